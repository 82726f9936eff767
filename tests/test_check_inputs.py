"""``dmlops check`` on bad input: one line and exit 2, or a verdict; never a traceback, never the weights read
(issue 21, part 2)."""
import builtins
import os
import subprocess
import sys
from pathlib import Path

import onnx
import pytest
from onnx import helper as h

from dmlops import cli
from dmlops.check import ModelInputError, Verdict, check_model
from dmlops.check.load import MAX_PROTO_BYTES
from tests.check_models import F, as_file, model, unary, vi


def run_cli(capsys, *argv):
    code = cli.main(["check", *argv])
    out, err = capsys.readouterr()
    assert "Traceback" not in out + err
    return code, out, err


def test_a_file_that_is_not_onnx_is_one_line_and_exit_2(tmp_path, capsys):
    p = tmp_path / "notes.txt"
    p.write_text("hello, this is not a model\n")
    code, out, err = run_cli(capsys, str(p))
    assert code == 2 and out == ""
    assert err == (f"dmlops: error: {p}: not an ONNX model (27 bytes that protobuf cannot parse as an "
                   "onnx.ModelProto: DecodeError).\n")


def test_bytes_protobuf_parses_into_an_empty_message_are_not_a_model(tmp_path):
    p = tmp_path / "zeros.onnx"
    p.write_bytes(b"")
    with pytest.raises(ModelInputError, match=r"zeros.onnx: not an ONNX model \(no IR version or no graph\)\.$"):
        check_model(p)


def test_a_truncated_model_is_named_as_such(tmp_path, capsys):
    whole = unary("Relu").SerializeToString()
    p = tmp_path / "cut.onnx"
    p.write_bytes(whole[: len(whole) // 2])
    code, out, err = run_cli(capsys, str(p))
    assert code == 2
    assert err.startswith(f"dmlops: error: {p}: a truncated or corrupt ONNX model (")
    assert err.count("\n") == 1


def test_missing_files_and_folders(tmp_path, capsys):
    code, _, err = run_cli(capsys, str(tmp_path / "absent.onnx"))
    assert code == 2 and err == f"dmlops: error: {tmp_path / 'absent.onnx'}: cannot read it (No such file or directory).\n"
    with pytest.raises(ModelInputError, match="a folder, not a model file"):
        check_model(tmp_path)
    code, _, err = run_cli(capsys, str(tmp_path))  # an empty folder
    assert code == 2 and err == f"dmlops: error: no .onnx file in {tmp_path}.\n"


def test_a_single_file_of_2_gib_or_more_is_refused_before_reading(tmp_path, monkeypatch):
    p = tmp_path / "huge.onnx"
    with open(p, "wb") as f:
        f.truncate(MAX_PROTO_BYTES + 1)  # sparse: nothing is written
    opened = []
    real_open = builtins.open
    monkeypatch.setattr(builtins, "open", lambda *a, **k: opened.append(a[0]) or real_open(*a, **k))
    with pytest.raises(ModelInputError) as e:
        check_model(p)
    assert str(e.value) == (f"{p}: 2.0 GiB; an ONNX model file holds at most 2 GiB (protobuf's limit): a larger model "
                            "keeps its weights in external data files.")
    assert Path(p) not in [Path(x) for x in opened if isinstance(x, (str, os.PathLike))]


def _external_model(tmp_path, numel: int, location: str = "weights.bin"):
    # A Gemm whose weight claims `numel` floats in an external file: only the header says so.
    w = onnx.TensorProto()
    w.name, w.data_type = "w", onnx.TensorProto.FLOAT
    w.dims.extend([numel // 1000, 1000])
    w.data_location = onnx.TensorProto.EXTERNAL
    for k, v in (("location", location), ("offset", "0"), ("length", str(numel * 4))):
        e = w.external_data.add()
        e.key, e.value = k, v
    m = model([h.make_node("MatMul", ["x", "w"], ["y"])], [vi("x", F, [1, numel // 1000])], [vi("y", F, [1, 1000])],
              initializers=[w])
    return m


def test_a_3_gib_external_weight_is_checked_without_reading_it(tmp_path, monkeypatch):
    numel = 750_000_000  # 3 GB of float32
    m = _external_model(tmp_path, numel)
    path = tmp_path / "big.onnx"
    onnx.save(m, str(path))  # the ModelProto itself is a few hundred bytes
    with open(tmp_path / "weights.bin", "wb") as f:
        f.truncate(numel * 4)  # sparse
    real_open = builtins.open

    def guarded(file, *a, **k):
        assert Path(str(file)).name != "weights.bin", "the weights were opened"
        return real_open(file, *a, **k)

    monkeypatch.setattr(builtins, "open", guarded)
    r = check_model(path, feature_level="5.0")
    node = r.nodes[0]
    assert node.verdict is Verdict.DIRECTML and node.inputs[1].shape == (750_000, 1000)
    assert node.flops == 2 * 1000 * 750_000
    assert r.notes == ["weights in external data ('weights.bin': 1 tensor(s)) were not read"]


def test_a_missing_external_weight_file_is_noted(tmp_path):
    path = tmp_path / "orphan.onnx"
    onnx.save(_external_model(tmp_path, 2000, "gone.bin"), str(path))
    r = check_model(path)
    assert r.notes[1] == ("initializer 'w': its external data file 'gone.bin' is missing; ONNX Runtime cannot load the "
                          "model without it")


def test_an_opset_newer_than_the_table_gets_a_verdict_and_a_note():
    newest = onnx.defs.onnx_opset_version()
    m = unary("Relu", opset=newest + 2)
    r = check_model(m)
    n = r.nodes[0]
    assert n.verdict is Verdict.DIRECTML and n.since_version == 14
    assert f"opset {newest + 2} is newer than the provider's table" in n.inferred
    assert r.notes == [f"opset {newest + 2} is newer than any this ONNX ({onnx.__version__}, opset {newest}) or the "
                       "provider's table knows: each op resolves to the newest schema known here (inferred)"]


def test_an_unknown_domain_is_a_verdict_with_exit_1(tmp_path, capsys):
    m = model([h.make_node("Frobnicate", ["x"], ["y"], domain="com.example")], [vi("x", F, [2])], [vi("y", F, [2])],
              extra_opsets=[("com.example", 1)])
    code, out, _ = run_cli(capsys, as_file(m, tmp_path / "custom.onnx"))
    assert code == 1
    assert "fails" in out and "domain 'com.example' is not one ONNX Runtime knows" in out


def test_check_model_refuses_other_objects():
    with pytest.raises(ModelInputError, match="check_model takes a path or an onnx.ModelProto; got int."):
        check_model(3)


def test_the_command_shows_no_traceback_for_bad_input_in_a_real_process(tmp_path):
    p = tmp_path / "bad.onnx"
    p.write_bytes(b"\x08\x07\x12\xff\xff")
    done = subprocess.run([sys.executable, "-m", "dmlops", "check", str(p)], capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.startswith(f"dmlops: error: {p}: a truncated or corrupt ONNX model") and \
        done.stderr.count("\n") == 1


def test_a_folder_with_a_bad_file_reports_it_in_its_row(tmp_path, capsys):
    as_file(unary("Relu"), tmp_path / "good.onnx")
    (tmp_path / "bad.onnx").write_text("{}")
    code, out, _ = run_cli(capsys, str(tmp_path), "--progress", "off")
    assert code == 2
    rows = out.splitlines()
    assert rows[0] == f"in {tmp_path}/:"  # rows name the models relative to the folder they share
    assert rows[2].startswith("bad.onnx ") and rows[2].endswith(
        "error: not an ONNX model (2 bytes that protobuf cannot parse as an onnx.ModelProto: DecodeError).")
    assert rows[3].startswith("good.onnx ")
    assert rows[-1].startswith("2 model(s) checked in ") and rows[-1].endswith(
        "1 all on DirectML, 0 with CPU fallback, 0 failing, 1 unreadable.")


def test_an_element_type_onnx_does_not_know_is_a_verdict_not_a_crash():
    m = unary("Relu")
    m.graph.input[0].type.tensor_type.elem_type = 99
    r = check_model(m)
    # No provider has a Relu for it, so Relu's function body is inlined; its Max cannot take it either.
    last = r.nodes[-1]
    assert last.op == "Max" and last.inputs[0].type == "tensor(type 99)" and last.verdict is Verdict.FAILS
    assert last.reason.startswith("input 0 (data_0) is type 99; the provider's Max-13 takes T in float")
    assert last.reason.endswith("no provider can run it")


def test_mutilated_models_never_raise_anything_but_a_one_line_error():
    # Nodes deleted, ops renamed, domains and opsets changed, inputs added, attributes dropped: a verdict or a
    # DmlOpsError, never another exception (the command would show it as a traceback).
    import random

    from dmlops.errors import DmlOpsError
    from tests.check_models import dynamic_reshape, gelu_between_relus, if_model

    rng = random.Random(7)
    bases = [if_model(), dynamic_reshape(), gelu_between_relus(), unary("Relu")]
    for _ in range(150):
        m = onnx.ModelProto()
        m.CopyFrom(rng.choice(bases))
        g = m.graph
        for _ in range(3):
            kind = rng.randrange(7)
            if kind == 0 and g.node:
                del g.node[rng.randrange(len(g.node))]
            elif kind == 1 and g.node:
                rng.choice(g.node).op_type = rng.choice(["Conv", "Foo", "If", "Loop", "", "Constant", "Shape"])
            elif kind == 2:
                del m.opset_import[:]
            elif kind == 3 and g.node:
                rng.choice(g.node).input.append(rng.choice(["", "nope", "x"]))
            elif kind == 4 and g.node:
                rng.choice(g.node).domain = rng.choice(["com.microsoft", "ai.onnx.ml", "x.y"])
            elif kind == 5 and m.opset_import:
                m.opset_import[0].version = rng.choice([1, 5, 30, 1000, -1])
            elif kind == 6 and g.node:
                del rng.choice(g.node).attribute[:]
        try:
            r = check_model(m)
        except DmlOpsError as e:
            assert "\n" not in str(e)
            continue
        assert all(n.reason for n in r.nodes)
        r.text()
