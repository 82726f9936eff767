"""`dmlops selftest`: every DirectML path against the reference and DirectML's answers. No DirectML here, so the
same machinery is checked on the CPU paths (``--path``), with a broken lowering and a refusal simulated."""
import json
import subprocess
import sys

import dmlops
from dmlops import selftest
from dmlops.compiled import clear_cache


def test_a_cpu_path_agrees_with_directml_and_writes_the_report(tmp_path):
    lines, report = [], tmp_path / "r.json"
    assert selftest.main(["onnxruntime:cpu"], ["ELEMENT_WISE_ADD", "gru"], str(report), out=lines.append) == 0
    assert lines[0] == "checking onnxruntime:cpu against the reference (samples) and DirectML's answers (vectors)"
    assert lines[1].startswith("ELEMENT_WISE_ADD") and lines[1].split()[1:3] == ["onnxruntime:cpu", "46/46"]
    doc = json.loads(report.read_text())
    assert doc["paths"] == ["onnxruntime:cpu"] and doc["environment"]["packages"]["numpy"] == __import__("numpy").__version__
    sources = {(c["op"], c["source"]) for c in doc["cases"]}
    assert {("GRU", "sample"), ("GRU", "vector"), ("ELEMENT_WISE_ADD", "vector")} <= sources
    assert doc["totals"] == {"ok": len(doc["cases"]), "mismatch": 0, "error": 0, "refused": 0}


def test_a_wrong_lowering_is_a_mismatch_and_exit_1(monkeypatch):
    from dmlops.ops import element_wise_add

    clear_cache()
    monkeypatch.setattr(element_wise_add, "to_torch", lambda desc, torch, x: {"OutputTensor": x["ATensor"] - x["BTensor"]})
    lines = []
    try:
        assert selftest.main(["torch:cpu"], ["ELEMENT_WISE_ADD"], None, out=lines.append) == 1
    finally:
        clear_cache()
    assert " FAIL" in lines[1]
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
