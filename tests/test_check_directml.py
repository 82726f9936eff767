"""``dmlops check`` against the real judge: ONNX Runtime's DirectML provider, where onnxruntime-directml is installed
(Windows), and the CPU-kernel table dmlops ships against the installed onnxruntime (issue 21, part 5).

The ``directml`` test creates, for every model and for every node of it alone, a session with CPU fallback disabled
(as dmlops creates its own): creation must succeed exactly where dmlops says DirectML. Elsewhere it is skipped, and
tests/test_check_models.py checks the same verdict logic against ONNX Runtime's CPU provider instead.
"""
import json
from pathlib import Path

import onnx
import pytest
from onnx import helper as h

from dmlops.check import Verdict, check_model
from dmlops.check.provider import CPU_TABLE
from tests.check_models import gelu_between_relus, if_model, resize, unary

BACKEND = Path(onnx.__file__).parent / "backend" / "test" / "data"


def test_the_cpu_kernel_table_is_what_the_installed_onnxruntime_registers():
    ort = pytest.importorskip("onnxruntime")
    from tools import gen_ort_cpu_kernels

    shipped = json.loads(CPU_TABLE.read_text(encoding="utf-8"))
    if shipped["meta"]["onnxruntime"] != ort.__version__:
        pytest.skip(f"the table is from onnxruntime {shipped['meta']['onnxruntime']}, this is {ort.__version__}: "
                    "python -m tools.gen_ort_cpu_kernels rewrites it")
    assert gen_ort_cpu_kernels.render(gen_ort_cpu_kernels.build()) == CPU_TABLE.read_text(encoding="utf-8")
    assert min(lo for lo, _, _ in shipped["kernels"]["ai.onnx"]["Add"]) == 7  # no Add-6: opset-6 Add models fail


def _session_ok(ort, model_bytes) -> tuple[bool, str]:
    options = ort.SessionOptions()
    options.add_session_config_entry("session.disable_cpu_ep_fallback", "1")
    options.enable_mem_pattern = False
    try:
        ort.InferenceSession(model_bytes, options, providers=["DmlExecutionProvider"])
        return True, ""
    except Exception as e:  # noqa: BLE001 - onnxruntime's own exception classes
        return False, str(e).splitlines()[0]


def _alone(model, report_node, index):
    """The node ``index`` of ``model``'s main graph as a model of its own: its initializers kept, every other input a
    graph input of the type and shape shape inference gave it."""
    graph = model.graph
    node = graph.node[index]
    inits = {t.name: t for t in graph.initializer}
    infos = {t.name: t for t in report_node.inputs + report_node.outputs}

    def value(name):
        t = infos[name]
        elem = getattr(onnx.TensorProto, t.elem.upper()) if t.elem else onnx.TensorProto.FLOAT
        return h.make_tensor_value_info(name, elem, list(t.shape) if t.shape is not None else None)

    ins = [value(x) for x in node.input if x and x not in inits]
    outs = [value(x) for x in node.output if x]
    m = h.make_model(h.make_graph([node], "alone", ins, outs, [inits[x] for x in node.input if x in inits]),
                     opset_imports=list(model.opset_import))
    m.ir_version = model.ir_version
    return m


@pytest.mark.directml
def test_every_verdict_matches_a_directml_session_with_cpu_fallback_disabled(tmp_path):
    ort = pytest.importorskip("onnxruntime")
    if "DmlExecutionProvider" not in ort.get_available_providers():
        pytest.skip("onnxruntime here has no DmlExecutionProvider (install onnxruntime-directml on Windows)")
    import dmlops

    where = {"device": "dml:0"} if dmlops.devices() else {"feature_level": "6.4"}  # ORT ships DirectML 1.15 (6.4)
    models = [unary("Relu"), unary("Exp", elem=onnx.TensorProto.DOUBLE), gelu_between_relus(), resize(), if_model(),
              *[onnx.load(str(p)) for p in sorted(BACKEND.glob("light/*.onnx"))],
              *[onnx.load(str(p)) for p in sorted(BACKEND.glob("*/*/model.onnx"))]]
    mismatches = []
    for k, m in enumerate(models):
        report = check_model(m, cpu_fallback=False, **where)
        ok, why = _session_ok(ort, m.SerializeToString())
        expected = all(n.verdict in (Verdict.DIRECTML, Verdict.FOLDED) or n.reason.startswith("a CPU kernel registered")
                       for n in report.nodes)
        if ok != expected:
            mismatches.append(f"model {k} ({m.graph.name}): session {'created' if ok else 'refused: ' + why}; dmlops "
                              f"says {report.headline()}")
        if any(n.origin for n in report.nodes):
            continue  # inlined function bodies renumber the nodes: the whole-model session above judges them
        for n in report.nodes:
            if n.graph or n.verdict is Verdict.FOLDED or "GetCpuPreferredNodes" in n.reason or \
                    n.reason.startswith("a CPU kernel registered"):
                continue  # context-dependent verdicts: the whole-model session above judges them
            ok, why = _session_ok(ort, _alone(m, n, n.index).SerializeToString())
            if ok != (n.verdict is Verdict.DIRECTML):
                mismatches.append(f"model {k} {n.label}: session {'created' if ok else 'refused: ' + why}; dmlops "
                                  f"says {n.verdict.value}: {n.reason}")
    assert not mismatches, "\n".join(mismatches[:40])
