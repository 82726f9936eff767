"""`dmlops selftest`: every DirectML path against the reference and DirectML's answers. No DirectML here, so the
same machinery is checked on the CPU paths (``--path``), with a broken lowering and a refusal simulated."""
import json
import re
import subprocess
import sys

import pytest

import dmlops
from dmlops import selftest
from dmlops.compiled import clear_cache


def test_a_cpu_path_agrees_with_directml_and_writes_the_report(tmp_path):
    lines, report = [], tmp_path / "r.json"
    assert selftest.main(["onnxruntime:cpu"], ["ELEMENT_WISE_ADD", "gru"], str(report), out=lines.append) == 0
    assert lines[0] == "checking onnxruntime:cpu against the reference (samples) and DirectML's answers (vectors)"
    doc = json.loads(report.read_text())
    assert doc["paths"] == ["onnxruntime:cpu"] and doc["environment"]["packages"]["numpy"] == __import__("numpy").__version__
    sources = {(c["op"], c["source"]) for c in doc["cases"]}
    assert {("GRU", "sample"), ("GRU", "vector"), ("ELEMENT_WISE_ADD", "vector")} <= sources
    assert doc["totals"] == {"ok": len(doc["cases"]), "mismatch": 0, "error": 0, "refused": 0}
    # the columns have a header; samples (against the reference) and vectors (against DirectML's answers) apart
    assert lines[1].split() == ["operator", "path", "samples", "vectors", "result", "memory", "time"]
    n = {src: sum(c["op"] == "ELEMENT_WISE_ADD" and c["source"] == src for c in doc["cases"]) for src in ("sample", "vector")}
    assert n["sample"] and n["vector"]
    row = lines[2].split()
    assert row[:6] == ["ELEMENT_WISE_ADD", "onnxruntime:cpu", f"{n['sample']}/{n['sample']}",
                       f"{n['vector']}/{n['vector']}", "ok", "-"]  # no memory figure off the native path
    assert lines[1].index("samples") < lines[1].index("vectors")
    assert lines[2].index(f"{n['vector']}/{n['vector']}") + len(f"{n['vector']}/{n['vector']}") == \
        lines[1].index("vectors") + len("vectors")  # right-aligned under its header
    assert doc["memory"] == {} and all(c["device_bytes"] is None for c in doc["cases"])


def test_a_wrong_lowering_is_a_mismatch_and_exit_1(monkeypatch):
    from dmlops.ops import element_wise_add

    clear_cache()
    monkeypatch.setattr(element_wise_add, "to_torch", lambda desc, torch, x: {"OutputTensor": x["ATensor"] - x["BTensor"]})
    lines = []
    try:
        assert selftest.main(["torch:cpu"], ["ELEMENT_WISE_ADD"], None, out=lines.append) == 1
    finally:
        clear_cache()
    assert " FAIL " in lines[2]
    assert any(l.startswith("    mismatch vector ") and "OutputTensor" in l for l in lines)
    assert any(l.startswith("    mismatch sample ") and "outside atol" in l for l in lines)


def test_a_refusal_is_reported_but_is_not_a_failure(monkeypatch):
    def refuse(*args, **kwargs):
        raise dmlops.DmlOpsError("torch-directml cannot run this safely: simulated")

    monkeypatch.setattr(dmlops, "compile", refuse)
    results = selftest.selftest(["torch:cpu"], ["ELEMENT_WISE_IDENTITY"], out=lambda line: None)
    assert results and {r.result for r in results} == {"refused"}
    assert results[0].detail == "torch-directml cannot run this safely: simulated"
    assert selftest.report(["torch:cpu"], results)["totals"]["refused"] == len(results)


def test_a_value_refused_at_run_time_is_refused_but_another_error_is_an_error(monkeypatch):
    from dmlops.ops import element_wise_add

    def refuse_value(desc, torch, x):
        raise dmlops.UnsupportedValue("ELEMENT_WISE_ADD.ATensor: element (0,) is 4294967295; simulated")

    clear_cache()
    monkeypatch.setattr(element_wise_add, "to_torch", refuse_value)
    try:
        results = selftest.selftest(["torch:cpu"], ["ELEMENT_WISE_ADD"], out=lambda line: None)
        assert results and {r.result for r in results} == {"refused"}
        assert results[0].detail == "ELEMENT_WISE_ADD.ATensor: element (0,) is 4294967295; simulated"
        clear_cache()
        monkeypatch.setattr(element_wise_add, "to_torch", lambda desc, torch, x: 1 / 0)
        results = selftest.selftest(["torch:cpu"], ["ELEMENT_WISE_ADD"], out=lambda line: None)
        assert {r.result for r in results} == {"error"}
        assert results[0].detail == "ZeroDivisionError: division by zero"
    finally:
        clear_cache()


def test_no_directml_path_exits_2_and_says_what_to_do(monkeypatch):
    monkeypatch.setattr(selftest, "directml_paths", lambda: [])
    lines = []
    assert selftest.main(None, None, None, out=lines.append) == 2
    assert lines == ["dmlops selftest: no DirectML path here (no onnxruntime-directml DML provider, no torch-directml, no "
                     "native DirectML device: 'dmlops devices' says why); --path onnxruntime:cpu checks dmlops's "
                     "lowerings against DirectML's answers without DirectML."]


def test_the_command_rejects_an_unknown_backend_without_a_traceback():
    r = subprocess.run([sys.executable, "-m", "dmlops", "selftest", "--path", "cuda"], capture_output=True, text=True)
    assert r.returncode == 2 and "Traceback" not in r.stderr
    assert "selftest: unknown backend 'cuda' in path 'cuda'; choose one of onnxruntime, torch, reference" in r.stderr


def test_a_named_path_that_does_not_exist_is_refused_before_the_run():
    for path, why in (("onnxruntime:nope", "onnxruntime: unknown device 'nope'; use 'cpu', 'cuda[:N]' or 'dml[:N]'."),
                      ("directml:cpu", "directml: runs on DirectML devices only (dml:N); got device 'cpu'."),
                      ("reference:cuda", "reference: runs on the CPU only; got device 'cuda' (available: cpu).")):
        lines = []
        with pytest.raises(dmlops.DmlOpsError, match=rf"^selftest: path '{re.escape(path)}' does not exist here: "
                                                     rf"{re.escape(why)}"):
            selftest.main([path], ["ELEMENT_WISE_IDENTITY"], None, out=lines.append)
        assert lines == []  # nothing ran


def test_the_command_exits_2_in_one_line_for_a_path_that_does_not_exist(tmp_path):
    """Issue 20: these checked nothing and exited 0."""
    for path in ("onnxruntime:nope", "directml:cpu", "torch:cuda:7", "directml:dml:3"):
        r = subprocess.run([sys.executable, "-m", "dmlops", "selftest", "--path", path, "--op", "ELEMENT_WISE_IDENTITY"],
                           capture_output=True, text=True)
        assert r.returncode == 2 and r.stdout == "", (path, r)
        assert "Traceback" not in r.stderr and len(r.stderr.strip().splitlines()) == 1, r.stderr
        assert r.stderr.startswith(f"dmlops: error: selftest: path '{path}' does not exist here: ")
    assert "('dmlops devices' says where dmlops looked for DirectML)" in r.stderr  # dml:3: DirectML's long reason


def test_a_path_that_checked_nothing_exits_2(monkeypatch):
    def refuse(*args, **kwargs):
        raise dmlops.DmlOpsError("refused: simulated\nsecond line")

    monkeypatch.setattr(dmlops, "compile", refuse)
    lines = []
    assert selftest.main(["reference"], ["ELEMENT_WISE_IDENTITY"], None, out=lines.append) == 2
    n = int(re.fullmatch(r"0 ok, 0 mismatch, 0 error, (\d+) refused", lines[-2]).group(1))
    assert n > 0 and re.fullmatch(rf"dmlops selftest: reference checked nothing: all {n} of its cases were refused "
                                  r"\(first: ELEMENT_WISE_IDENTITY \S+: refused: simulated\)", lines[-1]), lines[-1]


def test_the_report_file_is_checked_before_the_run(tmp_path):
    """Issue 20: --json naming a folder gave a traceback after the whole run."""
    for target, why in ((tmp_path, "is a folder"), (tmp_path / "missing" / "r.json", "No such file or directory")):
        r = subprocess.run([sys.executable, "-m", "dmlops", "selftest", "--path", "reference", "--op",
                            "ELEMENT_WISE_IDENTITY", "--json", str(target)], capture_output=True, text=True)
        assert r.returncode == 2 and r.stdout == "" and "Traceback" not in r.stderr, r
        assert re.fullmatch(rf"dmlops: error: selftest --json {re.escape(str(target))}: cannot write the report there "
                            rf"\(({why})\); name a file in a folder that exists and is writable\.\n", r.stderr), r.stderr
    fresh = tmp_path / "fresh.json"
    selftest.check_report_file(str(fresh))
    assert not fresh.exists()  # the check leaves nothing behind
    kept = tmp_path / "old.json"
    kept.write_text("{}")
    selftest.check_report_file(str(kept))
    assert kept.read_text() == "{}"  # nor truncates an old report before the run
