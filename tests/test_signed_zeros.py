"""Signed zeros through the lowerings' ONNX Runtime traps (dmlops.ops._elementwise docstring, dmlops.lower).

* ONNX Runtime's CPU Where turns a -0.0 taken from its X input into +0.0: ew.onnx_where is exact, also when its
  condition is a Not node (NotWhereFusion swaps X and Y) and when an input is a constant;
* NoopElimination drops an Add of a 0 constant: ScaleBias {-1, 0} still turns 0 into +0.0 (THRESHOLD scale_bias);
* REDUCE MAX/MIN of zeros gives the zero of the right sign on every backend;
* a fused ReLU gives -0.0 for negative inputs (not in GEMM), the standalone ReLU +0.0.
"""
import itertools

import numpy as np
import onnxruntime as ort
import pytest

import dmlops
from dmlops.backends.onnx_graph import OnnxGraph
from dmlops.ops import _elementwise as ew
from dmlops.vectors import LEVEL, cases

BACKENDS = ["reference", "onnxruntime", "torch"]
VALUES = [-0.0, 0.0, 1.5, -2.0, np.nan, -np.inf]


def _ort(model, feed):
    session = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    return session.run(None, feed)


def _same(got, want):
    got, want = np.asarray(got), np.asarray(want)
    return got.shape == want.shape and bool(np.all(
        (np.isnan(got) & np.isnan(want)) | ((got == want) & (np.signbit(got) == np.signbit(want)))))


@pytest.mark.parametrize("dtype", [np.float32, np.float16])
@pytest.mark.parametrize("negate", [False, True], ids=["cond", "not_cond"])
def test_onnx_where_keeps_every_bit_on_the_cpu_provider(dtype, negate):
    pairs = list(itertools.product(VALUES, VALUES))
    c = np.array([i % 2 == 0 for i in range(len(pairs))] * 2)
    x = np.array([a for a, _ in pairs] * 2, dtype)
    y = np.array([b for _, b in pairs] * 2, dtype)
    g = OnnxGraph()
    cond = g.input("c", np.bool_, [len(c)])
    if negate:
        cond = g.node("Not", [cond], dtype=np.bool_)
    out = ew.onnx_where(g, cond, g.input("x", dtype, [len(x)]), g.input("y", dtype, [len(y)]))
    g.output(out, "z", [len(c)])
    (got,) = _ort(g.model(), {"c": c, "x": x, "y": y})
    assert _same(got, np.where(~c if negate else c, x, y))


@pytest.mark.parametrize("constant", [-0.0, 0.0])
def test_onnx_where_with_a_constant_true_branch(constant):
    g = OnnxGraph()
    c = g.input("c", np.bool_, [4])
    y = g.input("y", np.float32, [4])
    g.output(ew.onnx_where(g, c, ew.onnx_const(g, constant, np.float32), y), "z", [4])
    c_v, y_v = np.array([1, 0, 1, 0], bool), np.array([-0.0, -0.0, 1, 0], np.float32)
    (got,) = _ort(g.model(), {"c": c_v, "y": y_v})
    assert _same(got, np.where(c_v, np.float32(constant), y_v))


def _case(case_id):
    return next(c for c in cases() if c.id == case_id)


@pytest.mark.parametrize("backend", BACKENDS)
def test_scale_bias_adds_a_zero_bias(backend):
    case = _case("ELEMENT_WISE_THRESHOLD-scale_bias")  # ScaleBias {-1, 0}, Min -1: max(-x + 0, -1)
    got = dmlops.run(case.desc(), {"InputTensor": np.array([0.0, -0.0, 2, -3], np.float32)}, backend=backend,
                     feature_level=LEVEL)["OutputTensor"]
    assert not np.any(np.signbit(np.asarray(got))[:2])  # 0 * -1 + 0 and -0 * -1 + 0 are +0


@pytest.mark.parametrize("backend", BACKENDS)
def test_scale_bias_one_zero_is_skipped(backend):
    case = _case("ELEMENT_WISE_IDENTITY-edge_neg_zero_scalebias_1_0")
    x = case.inputs()
    got = dmlops.run(case.desc(), x, backend=backend, feature_level=LEVEL)["OutputTensor"]
    assert _same(got, x["InputTensor"])


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("function", ["MAX", "MIN"])
@pytest.mark.parametrize("zero", [-0.0, 0.0])
def test_reduce_max_min_of_zeros(backend, function, zero):
    case = _case(f"REDUCE-{function.lower()}_rows")
    desc = case.desc()
    x = np.full_like(case.inputs()["InputTensor"], zero)
    got = dmlops.run(desc, {"InputTensor": x}, backend=backend, feature_level=LEVEL)["OutputTensor"]
    assert np.all(np.asarray(got) == 0) and np.all(np.signbit(np.asarray(got)) == np.signbit(zero))


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("case_id, negative_zero", [("ELEMENT_WISE_ADD1-fused_relu", True),
                                                    ("GEMM-channels_3d_fused_relu", False)])
def test_fused_relu_sign_of_zero(backend, case_id, negative_zero):
    case = _case(case_id)
    desc = case.desc()
    got = np.asarray(dmlops.run(desc, case.inputs(), backend=backend, feature_level=LEVEL)["OutputTensor"])
    want = case.outputs(desc)["OutputTensor"]
    assert _same(got, want)
    assert bool(np.any((want == 0) & np.signbit(want))) == negative_zero
