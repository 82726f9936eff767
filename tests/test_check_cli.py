"""The ``dmlops check`` command: exit codes as ``validate`` (0 all DirectML, 1 fallback or failure, 2 bad input), the
options, several models with a progress bar and one row each, JSON (issue 21, parts 1 and 3)."""
import json
import re

import pytest

from dmlops import cli
from dmlops.backends.directml import adapters
from dmlops.types import FeatureLevel
from tests.check_models import as_file, gelu_between_relus, resize, unary


def run(capsys, *argv):
    code = cli.main(["check", *argv])
    out, err = capsys.readouterr()
    assert "Traceback" not in out + err
    return code, out, err


def test_a_model_all_on_directml_exits_0(tmp_path, capsys):
    path = as_file(unary("Relu"), tmp_path / "relu.onnx")
    code, out, _ = run(capsys, path, "--feature-level", "5.0")
    assert code == 0
    assert out.splitlines()[-4] == f"{path} at DML_FEATURE_LEVEL_5_0: 1 of 1 nodes on DirectML (100.0% of 6 FLOPs)."
    assert "    Relu x1: ACTIVATION_RELU from 1.0" in out


def test_a_fallback_exits_1_and_is_listed_with_its_reason(tmp_path, capsys):
    path = as_file(gelu_between_relus(), tmp_path / "gelu.onnx")
    code, out, _ = run(capsys, path, "--feature-level", "5.0")
    assert code == 1
    row = next(line for line in out.splitlines() if " gelu " in line)
    assert "CPU fallback" in row and row.endswith("the DirectML provider registers no Gelu kernel")
    assert "    node 1 'gelu' (Gelu): 'a' in from DirectML; 'b' out to DirectML (1 node(s))" in out


def test_no_cpu_fallback_turns_the_fallback_into_a_failure(tmp_path, capsys):
    path = as_file(gelu_between_relus(), tmp_path / "gelu.onnx")
    code, out, _ = run(capsys, path, "--no-cpu-fallback")
    assert code == 1
    assert "CPU fallback off (as dmlops sets it)" in out
    assert "blocking ops (session creation fails): Gelu x1" in out


def test_nodes_lists_every_node(tmp_path, capsys):
    path = as_file(gelu_between_relus(), tmp_path / "gelu.onnx")
    _, out, _ = run(capsys, path, "--nodes")
    assert sum(1 for line in out.splitlines() if " r1 " in line or " r2 " in line) == 2


def test_json_has_every_node_and_the_summary(tmp_path, capsys):
    path = as_file(resize(), tmp_path / "resize.onnx")
    code, _, _ = run(capsys, path, "--feature-level", "6.3", "--json", str(tmp_path / "r.json"))
    assert code == 1
    doc = json.loads((tmp_path / "r.json").read_text())
    (model,) = doc["models"]
    assert model["feature_level"] == "6.3" and model["summary"]["blocking_ops"] == {"Resize": 1}
    assert model["summary"]["lowest_feature_level"] == "6.4" and model["summary"]["exit_code"] == 1
    (node,) = model["nodes"]
    assert node["verdict"] == "fails" and node["dml_operators"] == ["RESAMPLE3"]
    assert node["min_feature_level"] == "6.4" and node["claimed_by_provider"] is True


def test_feature_level_and_device_exclude_each_other(tmp_path, capsys):
    path = as_file(unary("Relu"), tmp_path / "relu.onnx")
    with pytest.raises(SystemExit) as e:
        cli.main(["check", path, "--feature-level", "5.0", "--device", "dml:0"])
    assert e.value.code == 2
    assert "argument --device: not allowed with argument --feature-level" in capsys.readouterr().err
    with pytest.raises(SystemExit) as e:
        cli.main(["check", path, "--feature-level", "9.9"])
    assert e.value.code == 2
    assert "'9.9' is not a DirectML feature level" in capsys.readouterr().err


def test_device_takes_level_and_types_from_the_adapter(tmp_path, capsys, monkeypatch):
    fake = adapters.Adapter(index=0, name="Test GPU", vendor="test", vendor_id=1, memory_bytes=1 << 30,
                            feature_level=FeatureLevel.FL_6_4, float16=True, float64=False)
    monkeypatch.setattr(adapters, "devices", lambda: [fake])
    path = as_file(resize(), tmp_path / "resize.onnx")
    code, out, _ = run(capsys, path, "--device", "dml:0")
    assert code == 0
    assert "checked for dml:0 (Test GPU) at DML_FEATURE_LEVEL_6_4, FLOAT16 yes, FLOAT64 no (from dml:0 (Test GPU))" in out
    code, _, err = run(capsys, path, "--device", "dml:0", "--float64")
    assert code == 2 and err == ("dmlops: error: check: --float64 and --no-float16 describe a device given by "
                                 "--feature-level; --device reads them from the adapter.\n")
    monkeypatch.setattr(adapters, "devices", lambda: [])
    code, _, err = run(capsys, path, "--device", "dml:0")
    assert code == 2 and err.startswith("dmlops: error: dml:0: no such DirectML adapter; found none")


def test_several_models_get_a_progress_bar_and_one_row_each(tmp_path, capsys):
    folder = tmp_path / "models"
    folder.mkdir()
    as_file(unary("Relu"), folder / "a_relu.onnx")
    as_file(gelu_between_relus(), folder / "b_gelu.onnx")
    as_file(resize(), folder / "c_resize.onnx")
    code, out, err = run(capsys, str(folder), "--feature-level", "5.0", "--progress", "on")
    assert code == 1
    assert err.splitlines()[-1].startswith("[##############################] 3/3 ")
    rows = out.splitlines()
    assert rows[0] == f"in {folder}/:"
    assert rows[1].split() == ["model", "nodes", "DirectML", "fallback", "fails", "folded", "FLOPs", "on", "DML",
                               "lowest", "FL", "blocking", "ops"]
    assert rows[2].split() == ["a_relu.onnx", "1", "1", "0", "0", "0", "100.0%", "5.0", "-"]
    assert rows[3].split() == ["b_gelu.onnx", "3", "2", "1", "0", "0", "66.7%", "5.0", "-"]
    assert rows[4].split() == ["c_resize.onnx", "1", "0", "0", "1", "0", "0.0%", "6.4", "Resize", "x1"]
    assert re.fullmatch(r"3 model\(s\) checked in \d+\.\d s: 1 all on DirectML, 1 with CPU fallback, 1 failing, "
                        r"0 unreadable\.", rows[5])
    code, _, err = run(capsys, str(folder), "--progress", "off")
    assert err == ""


def test_the_command_is_in_the_top_level_help(capsys):
    with pytest.raises(SystemExit):
        cli.main(["--help"])
    assert "check" in capsys.readouterr().out


def test_many_nodes_off_directml_are_grouped_per_op_and_reason(tmp_path, capsys):
    from onnx import helper as h

    from tests.check_models import F, model, vi

    nodes = [h.make_node("Gelu", [f"v{k}"], [f"v{k + 1}"], name=f"g{k}") for k in range(14)]
    path = as_file(model(nodes, [vi("v0", F, [4])], [vi("v14", F, [4])], opset=20), tmp_path / "gelus.onnx")
    code, out, _ = run(capsys, path)
    assert code == 1
    assert "  14 nodes not on DirectML, per op and reason (--nodes lists each):" in out
    assert ("    Gelu x14 (CPU fallback; nodes 0, 1, 2, 3, 4, 5, ...): the DirectML provider registers no Gelu kernel"
            in out)
    _, every, _ = run(capsys, path, "--nodes")
    assert sum(1 for line in every.splitlines() if "  Gelu  " in line) == 14
