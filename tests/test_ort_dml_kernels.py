"""ONNX Runtime's DirectML provider would load every model dmlops builds (issue 9, part 4).

The provider's kernel table ships in the package (dmlops/data/ort_dml_ep_kernels.json, a verbatim copy of
../shared/reference/ort_dml_ep_kernels.json). Every model is built as it would be for a ``dml`` device (FLOAT16
computed as FLOAT16) and each node is checked against the table: op, opset resolving to a registered since-version,
input and output types, and no FLOAT64 unless the descriptor itself has FLOAT64 tensors.
"""
import filecmp
from pathlib import Path

import numpy as np
import onnx
import pytest

import dmlops
from dmlops.backends import ort_dml_kernels
from dmlops.backends.onnx_graph import IR_VERSION, OPSET
from dmlops.backends.onnxruntime import build_model, dml_node_problems, refuse_unsupported_nodes
from dmlops.graph import GraphDesc
from dmlops.lower import runnable
from dmlops.ops import module
from dmlops.sample import float16_variant
from dmlops.types import FeatureLevel

SHARED = Path(__file__).resolve().parents[2] / "shared" / "reference" / "ort_dml_ep_kernels.json"


@pytest.mark.skipif(not SHARED.is_file(), reason="../shared/reference is not present")
def test_the_shipped_table_is_verbatim():
    assert filecmp.cmp(SHARED, ort_dml_kernels.TABLE, shallow=False)


def _model(nodes, inputs, outputs, opset=OPSET):
    h = onnx.helper
    graph = h.make_graph(nodes, "t", inputs, outputs)
    model = h.make_model(graph, opset_imports=[h.make_opsetid("", opset)])
    model.ir_version = IR_VERSION
    return model


def _vi(name, elem, shape):
    return onnx.helper.make_tensor_value_info(name, elem, shape)


F, D, U16 = onnx.TensorProto.FLOAT, onnx.TensorProto.DOUBLE, onnx.TensorProto.UINT16


def test_a_registered_node_passes():
    m = _model([onnx.helper.make_node("Add", ["a", "b"], ["c"])], [_vi("a", F, [2]), _vi("b", F, [2])], [_vi("c", F, [2])])
    assert ort_dml_kernels.problems(m) == []


def test_an_opset_that_resolves_to_an_unregistered_version_is_named():
    # ScatterElements-18 (reductions max/min) has no DML registration: 11, 13 and 16 only.
    n = onnx.helper.make_node("ScatterElements", ["d", "i", "u"], ["o"], axis=0)
    m = _model([n], [_vi("d", F, [3]), _vi("i", onnx.TensorProto.INT64, [1]), _vi("u", F, [1])], [_vi("o", F, [3])])
    assert ort_dml_kernels.problems(m) == [
        "node 0 ScatterElements: opset 18 resolves to ScatterElements-18, which the DirectML provider does not "
        "register (registered: 11, 13, 16)."]
    assert ort_dml_kernels.problems(_model([n], m.graph.input, m.graph.output, opset=16)) == []


def test_types_outside_the_registration_and_float64_are_named():
    m = _model([onnx.helper.make_node("Exp", ["a"], ["b"])], [_vi("a", D, [2])], [_vi("b", D, [2])])
    assert ort_dml_kernels.problems(m) == [
        "node 0 Exp: input 0 (input) is tensor(double); output 0 (output) is tensor(double); the DirectML provider's "
        "Exp-13 takes T in tensor(float), tensor(float16)."]
    # Identity registers double, but only a device with FLOAT64 runs it.
    m = _model([onnx.helper.make_node("Identity", ["a"], ["b"])], [_vi("a", D, [2])], [_vi("b", D, [2])])
    assert ort_dml_kernels.problems(m, float64=True) == []
    assert ort_dml_kernels.problems(m) == [
        "node 0 Identity: input 0 (input) is tensor(double); output 0 (output) is tensor(double); the DirectML "
        "provider's Identity-16 takes V in tensor(float), tensor(uint8), tensor(int8), tensor(uint16), tensor(int16), "
        "tensor(int32), tensor(int64), tensor(bool), tensor(float16), tensor(uint32), tensor(uint64)."]


def test_an_op_the_provider_lacks_is_named():
    m = _model([onnx.helper.make_node("Gelu", ["a"], ["b"])], [_vi("a", F, [2])], [_vi("b", F, [2])], opset=20)
    assert ort_dml_kernels.problems(m) == ["node 0 Gelu: the DirectML provider has no Gelu kernel."]


def test_a_dml_session_refuses_such_a_model_at_compile_time_naming_the_node():
    desc = dmlops.ElementWiseExp(input_tensor=dmlops.TensorDesc("FLOAT32", [2]),
                                 output_tensor=dmlops.TensorDesc("FLOAT32", [2]))
    m = _model([onnx.helper.make_node("Exp", ["a"], ["b"])], [_vi("a", D, [2])], [_vi("b", D, [2])])
    with pytest.raises(dmlops.DmlOpsError, match=r"^ELEMENT_WISE_EXP: its ONNX model has 1 node\(s\) that ONNX "
                                                 r"Runtime's DirectML provider cannot run \(CPU fallback is off\): "
                                                 r"node 0 Exp: input 0 \(input\) is tensor\(double\)"):
        refuse_unsupported_nodes(GraphDesc.single(desc), m)
    refuse_unsupported_nodes(GraphDesc.single(desc), build_model(GraphDesc.single(desc), False))  # the real one passes


def _sample_graphs():
    for op in sorted(runnable()):
        graphs = []
        for s in module(op).SAMPLES:
            graphs.append((s.name, s.desc))
            variant = float16_variant(s, FeatureLevel.latest())
            if variant is not None:
                graphs.append((variant.name, variant.desc))
        yield pytest.param(graphs, id=op)


def _problems(graph) -> list[str]:
    return dml_node_problems(graph, build_model(graph, upcast_float16=False))  # as for dml: FLOAT16 stays FLOAT16


@pytest.mark.parametrize("samples", list(_sample_graphs()))
def test_every_operator_sample_loads_on_the_directml_provider(samples):
    found = {name: p for name, desc in samples if (p := _problems(GraphDesc.single(desc)))}
    assert found == {}


def _adapter_graphs():
    from dmlops import demo_adapters

    return [pytest.param(case.graph, id=case.label.split()[0]) for case in demo_adapters.cases(np.random.default_rng(0))]


@pytest.mark.parametrize("make", _adapter_graphs())
def test_every_framework_adapter_graph_loads_on_the_directml_provider(make):
    adapter = make()
    assert _problems(adapter.graph) == []


def test_the_demo_training_graph_loads_on_the_directml_provider():
    from dmlops import demo

    graph = demo.training_step_graph(256, 2, 16, 0.05)
    assert _problems(graph) == []


def _app_graphs():
    import importlib.util
    import sys

    root = Path(__file__).resolve().parents[1] / "samples"
    sys.path.insert(0, str(root))
    try:
        mlp = importlib.import_module("train_mlp_bce")
        bn = importlib.import_module("batchnorm_training")
        gru = importlib.import_module("train_gru")
    finally:
        sys.path.remove(str(root))
    return {
        "train_mlp_bce.step": lambda: mlp.step_graph(64, 2, 8),
        "train_mlp_bce.evaluate": lambda: mlp.step_graph(64, 2, 8, train=False),
        "batchnorm_training.train": lambda: bn.training_graph(32, 0.03),
        "batchnorm_training.infer": lambda: bn.inference_graph(32),
        "train_gru.step": lambda: gru.step_graph(gru.make_config(4, 6, 5)),
    }


@pytest.mark.parametrize("name", sorted(_app_graphs()))
def test_every_sample_app_graph_loads_on_the_directml_provider(name):
    graph = _app_graphs()[name]()
    graph = graph[0] if isinstance(graph, tuple) else graph
    assert _problems(graph) == []
