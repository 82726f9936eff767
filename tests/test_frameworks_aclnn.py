"""Ascend aclnnBinaryCrossEntropy / aclnnBinaryCrossEntropyBackward adapters (dmlops.frameworks.aclnn).

Oracles: torch.ops.aten.binary_cross_entropy_backward and torch.nn.functional.binary_cross_entropy (float32;
for float16 torch run in float32 and then cast to float16, Ascend's "fp16 in, fp32 compute"), the formulas of
seed_semantics.md §4.2 and of Ascend's golden (hicann/ops-nn loss/binary_cross_entropy/tests/assets/golden.py)
written in NumPy float64 here, and the measured edge-value table of seed_semantics.md §4.3. Every dmlops backend.
"""
import re

import numpy as np
import pytest

from dmlops.compose import Composer
from dmlops.errors import DmlOpsError
from dmlops.frameworks import aclnn
from dmlops.types import FeatureLevel

torch = pytest.importorskip("torch")
F = torch.nn.functional

BACKENDS = ("reference", "onnxruntime", "torch")
REDUCTIONS = ("none", "mean", "sum")
# Ascend's kernel and aten order the same float32 operations differently ((x - y) / den * w * g vs
# g * (x - y) / den * w) and scale by 1/numel instead of dividing by it: each of the ~5 roundings is
# <= 0.5 ulp (6e-8), so results agree to a few ulps; 1e-6 relative leaves margin without hiding a wrong formula.
F32_RTOL = 1e-6
# One float16 ulp is 2**-10 relative: float32 results that differ by a few float32 ulps can round to
# neighbouring float16 values, never further apart.
F16_RTOL = 2.0**-10


def rand(rng, shape, lo=0.0, hi=1.0, dtype=np.float32):
    return rng.uniform(lo, hi, shape).astype(dtype)


def t(a):
    return None if a is None else torch.from_numpy(np.ascontiguousarray(a))


def aten_backward(g, x, y, w, reduction):
    """torch's aten op on float32 copies of the arrays broadcast to self's shape by NumPy (aten's own broadcasting
    handles target (1, 5) but not (4, 1) against self (4, 5): "The size of tensor a (5) must match ...")."""
    f32 = [None if a is None else t(np.broadcast_to(a, x.shape).astype(np.float32)) for a in (g, x, y, w)]
    code = aclnn.REDUCTIONS.index(reduction)
    return torch.ops.aten.binary_cross_entropy_backward(*f32, code).numpy()


def formula_backward(g, x, y, w, reduction):
    """seed_semantics.md §4.2 in float64."""
    g, x, y = (a.astype(np.float64) for a in (g, x, y))
    w = 1.0 if w is None else w.astype(np.float64)
    out = g * w * (x - y) / np.maximum(x * (1 - x), 1e-12)
    return out / x.size if reduction == "mean" else np.broadcast_to(out, x.shape)


def golden_forward(x, y, w, reduction):
    """Ascend's golden (ops-nn loss/binary_cross_entropy/tests/assets/golden.py) in float64."""
    x, y = x.astype(np.float64), y.astype(np.float64)
    with np.errstate(divide="ignore"):
        loss = -(y * np.maximum(np.log(x), -100) + (1 - y) * np.maximum(np.log(1 - x), -100))
    if w is not None:
        loss = loss * w.astype(np.float64)
    return {"none": loss, "mean": np.sum(loss / x.size), "sum": np.sum(loss)}[reduction]


# ============================================================ backward: float32 against aten and the formula
@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("weighted", [False, True])
def test_backward_float32_matches_aten(backend, reduction, weighted):
    rng = np.random.default_rng(1)
    x, y = rand(rng, (4, 5), 0.02, 0.98), rand(rng, (4, 5))
    g, w = rand(rng, (4, 5), -2, 2), rand(rng, (4, 5), 0.5, 2) if weighted else None
    out = aclnn.binary_cross_entropy_backward(g, x, y, w, reduction, backend=backend)
    assert out.dtype == np.float32 and out.shape == (4, 5)
    np.testing.assert_allclose(out, aten_backward(g, x, y, w, reduction), rtol=F32_RTOL, atol=0)  # see F32_RTOL
    # float32 against the exact float64 formula: the same few roundings.
    np.testing.assert_allclose(out, formula_backward(g, x, y, w, reduction), rtol=F32_RTOL, atol=0)


@pytest.mark.parametrize("code", [0, 1, 2, np.int64(1)])
def test_reduction_codes_equal_names(code):
    rng = np.random.default_rng(2)
    x, y, g = rand(rng, (3, 4), 0.1, 0.9), rand(rng, (3, 4)), rand(rng, (3, 4))
    name = aclnn.REDUCTIONS[int(code)]
    by_code = aclnn.binary_cross_entropy_backward(g, x, y, reduction=code)
    by_name = aclnn.binary_cross_entropy_backward(g, x, y, reduction=name)
    np.testing.assert_array_equal(by_code, by_name)  # the same graph: bit-identical
    np.testing.assert_array_equal(aclnn.binary_cross_entropy(x, y, reduction=code),
                                  aclnn.binary_cross_entropy(x, y, reduction=name))


def test_mean_scales_by_numel_of_self_and_keeps_shape():
    x = np.full((2, 3), 0.75, np.float32)
    y = np.zeros((2, 3), np.float32)
    g = np.ones((), np.float32)
    # Hand-computed: (0.75 - 0) / (0.75 * 0.25) = 4, and mean divides by numel(self) = 6.
    out = aclnn.binary_cross_entropy_backward(g, x, y, reduction="mean")
    np.testing.assert_allclose(out, np.full((2, 3), 4 / 6), rtol=F32_RTOL)  # see F32_RTOL
    np.testing.assert_allclose(aclnn.binary_cross_entropy_backward(g, x, y, reduction="sum"), 4.0, rtol=F32_RTOL)


# ============================================================ broadcasting through zero strides
BROADCASTS = [  # (self, grad_output, target, weight)
    ((4, 5), (1, 5), (1, 5), None),
    ((4, 5), (), (4, 1), (5,)),
    ((2, 4, 3), (4, 1), (2, 1, 3), (1, 4, 3)),
    ((2, 3, 2, 2, 3), (3,), (2, 1, 2, 1, 3), (3, 1, 1, 3)),   # 5-D
]


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("shapes", BROADCASTS, ids=str)
def test_backward_broadcasts_like_aten(backend, shapes):
    rng = np.random.default_rng(3)
    xs, gs, ys, ws = shapes
    x, g, y = rand(rng, xs, 0.05, 0.95), rand(rng, gs, -1, 1), rand(rng, ys)
    w = None if ws is None else rand(rng, ws, 0.5, 1.5)
    for reduction in REDUCTIONS:
        out = aclnn.binary_cross_entropy_backward(g, x, y, w, reduction, backend=backend)
        assert out.shape == xs
        np.testing.assert_allclose(out, aten_backward(g, x, y, w, reduction), rtol=F32_RTOL, atol=0)  # F32_RTOL


def test_broadcast_inputs_are_read_through_zero_strides():
    rng = np.random.default_rng(4)
    x, g, y = rand(rng, (4, 5), 0.1, 0.9), rand(rng, (1, 5)), rand(rng, (4, 1))
    plan = aclnn.binary_cross_entropy_backward(g, x, y, return_graph=True)
    descs = dict(zip(plan.graph.input_names, plan.graph.input_descs()))
    assert list(descs["grad_output"].strides) == [0, 0, 0, 1] and list(descs["target"].strides) == [0, 0, 1, 0]
    assert descs["self"].strides is None
    # The compact arrays are bound as they are: no host-side broadcast copy.
    assert plan.feeds["grad_output"].size == 5 and plan.feeds["target"].size == 4
    # No node only copies an input: the first nodes already compute.
    assert {type(n).__name__ for n in plan.graph.nodes} <= {
        "ElementWiseSubtract", "ElementWiseMultiply", "ElementWiseIdentity", "ElementWiseClip", "ElementWiseDivide"}


@pytest.mark.parametrize("name,shape", [("target", (3, 5)), ("target", (2, 4, 5)), ("grad_output", (5, 4)),
                                        ("weight", (6,)), ("weight", (4, 5, 1))])
def test_backward_shape_that_does_not_broadcast_to_self_is_an_error(name, shape):
    rng = np.random.default_rng(5)
    args = {"grad_output": rand(rng, ()), "self": rand(rng, (4, 5), 0.1, 0.9), "target": rand(rng, (4, 5))}
    args[name] = rand(rng, shape)
    with pytest.raises(DmlOpsError, match=rf"aclnn\.BinaryCrossEntropyBackward: {name} of shape "
                                          rf"{re.escape(str(list(shape)))} does not broadcast to self's shape \[4, 5\] "
                                          r"\(the broadcast shape must equal self's\)\."):
        aclnn.binary_cross_entropy_backward(**args)


# ============================================================ float16: Ascend computes in float32
@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_backward_float16_is_float32_compute_cast_back(backend, reduction):
    rng = np.random.default_rng(6)
    x, y = rand(rng, (6, 7), 0.02, 0.98, np.float16), rand(rng, (6, 7), dtype=np.float16)
    g, w = rand(rng, (7,), -2, 2, np.float16), rand(rng, (6, 7), 0.5, 2, np.float16)
    out = aclnn.binary_cross_entropy_backward(g, x, y, w, reduction, backend=backend)
    assert out.dtype == np.float16
    want = aten_backward(g, x, y, w, reduction).astype(np.float16)  # torch in float32, then cast: Ascend's model
    np.testing.assert_allclose(out.astype(np.float32), want.astype(np.float32), rtol=F16_RTOL, atol=0)  # F16_RTOL


def test_mixed_float16_and_float32_promote_to_float32():
    rng = np.random.default_rng(7)
    x, y, g = rand(rng, (3, 4), 0.1, 0.9, np.float16), rand(rng, (3, 4)), rand(rng, (), dtype=np.float16)
    out = aclnn.binary_cross_entropy_backward(g, x, y)
    assert out.dtype == np.float32  # aclnn's promotion: float16 + float32 -> float32, and out takes it
    np.testing.assert_allclose(out, aten_backward(g, x, y, None, "mean"), rtol=F32_RTOL, atol=0)  # F32_RTOL


# ============================================================ the edge values of seed_semantics.md §4.3
EDGE_X = np.array([0, 1, 0, 1, 0.5, 1e-8], np.float32)
EDGE_Y = np.array([0, 1, 1, 0, 0.5, 1], np.float32)


@pytest.mark.parametrize("backend", BACKENDS)
def test_edge_values_float32(backend):
    g = np.ones(6, np.float32)
    out = aclnn.binary_cross_entropy_backward(g, EDGE_X, EDGE_Y, reduction="none", backend=backend)
    # The table's float32 row, as float32 values (the clamp 1e-12 and the quotients round the same way in aten).
    np.testing.assert_array_equal(out, np.array([0, 0, -1e12, 1e12, 0, -1e8], np.float32))
    np.testing.assert_array_equal(out, aten_backward(g, EDGE_X, EDGE_Y, None, "none"))


@pytest.mark.parametrize("backend", BACKENDS)
def test_edge_values_float16_follow_ascend_not_torch_cpu(backend):
    x16, y16, g16 = EDGE_X.astype(np.float16), EDGE_Y.astype(np.float16), np.ones(6, np.float16)
    out = aclnn.binary_cross_entropy_backward(g16, x16, y16, reduction="none", backend=backend)
    # "fp16 in, fp32 compute": 1e-8 underflows to 0 on the way in; no NaN. On the way out, ±1e12 is stored as
    # DirectML stores FLOAT16 (its CAST vectors: toward zero, a finite value never becomes inf): ±65504, where
    # Ascend's round-to-nearest cast gives ±inf.
    np.testing.assert_array_equal(out, np.array([0, 0, -65504, 65504, 0, -65504], np.float16))
    want32 = aten_backward(g16, x16, y16, None, "none")
    assert want32.dtype == np.float32 and np.array_equal(np.abs(want32[[2, 3, 5]]), np.full(3, 1e12, np.float32))
    np.testing.assert_array_equal(out, np.clip(want32, -65504, 65504).astype(np.float16))
    # torch's own float16 CPU kernel computes in float16: max(0 * 1, 1e-12) is 0 there, so 0/0 gives NaN at
    # positions 0 and 1 (the table's "fp16 arithmetic" row). The adapter deliberately differs.
    own = torch.ops.aten.binary_cross_entropy_backward(t(g16), t(x16), t(y16), None, 0).numpy()
    assert np.isnan(own[:2]).all() and not np.isnan(out).any()
    np.testing.assert_array_equal(own[[4]], out[[4]])
    assert np.isinf(own[[2, 3, 5]]).all() and np.array_equal(np.sign(own[[2, 3, 5]]), np.sign(out[[2, 3, 5]]))


def test_edge_values_forward():
    for dtype, want in ((np.float32, [0, 0, 100, 100, np.log(2), -np.log(1e-8)]),
                        (np.float16, [0, 0, 100, 100, np.log(2), 100])):  # float16: 1e-8 -> 0 -> log clamps at -100
        x, y = EDGE_X.astype(dtype), EDGE_Y.astype(dtype)
        for backend in BACKENDS:
            out = aclnn.binary_cross_entropy(x, y, reduction="none", backend=backend)
            assert out.dtype == dtype
            # log(2) and -log(1e-8) are rounded once to the output type: within one ulp of that type.
            np.testing.assert_allclose(out, np.array(want, dtype), rtol=np.finfo(dtype).eps, atol=0)
            want_torch = F.binary_cross_entropy(t(x.astype(np.float32)), t(y.astype(np.float32)), reduction="none")
            np.testing.assert_allclose(out, want_torch.numpy().astype(dtype), rtol=np.finfo(dtype).eps, atol=0)


# ============================================================ forward
@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("dtype", [np.float32, np.float16])
def test_forward_matches_torch_and_ascend_golden(backend, reduction, dtype):
    rng = np.random.default_rng(8)
    x, y = rand(rng, (5, 6), 0.01, 0.99, dtype), rand(rng, (5, 6), dtype=dtype)
    w = rand(rng, (6,), 0.5, 2, dtype)  # broadcasts to (5, 6)
    for weight in (None, w):
        out = aclnn.binary_cross_entropy(x, y, weight, reduction, backend=backend)
        assert out.dtype == dtype and out.shape == ((5, 6) if reduction == "none" else ())
        wt = None if weight is None else t(np.broadcast_to(weight, x.shape).astype(np.float32))
        want = F.binary_cross_entropy(t(x.astype(np.float32)), t(y.astype(np.float32)), wt, reduction=reduction)
        # float32: log and a sum of 30 terms in another order (torch's log1p, cascade sum): a few ulps of the
        # largest term; 2e-6 relative. float16: torch in float32 then cast (Ascend's model), one float16 ulp.
        rtol = 2e-6 if dtype == np.float32 else F16_RTOL
        np.testing.assert_allclose(out, want.numpy().astype(dtype), rtol=rtol, atol=0)
        np.testing.assert_allclose(out, golden_forward(x, y, weight, reduction).astype(dtype), rtol=rtol, atol=0)


def test_forward_and_backward_agree_with_autograd():
    """The backward is the forward's derivative away from the clamps: torch autograd of F.binary_cross_entropy."""
    rng = np.random.default_rng(9)
    x, y, w = rand(rng, (8, 3), 0.05, 0.95), rand(rng, (8, 3)), rand(rng, (8, 3), 0.5, 2)
    xt = t(x).requires_grad_()
    F.binary_cross_entropy(xt, t(y), t(w), reduction="mean").backward()
    g = np.ones((), np.float32)
    np.testing.assert_allclose(aclnn.binary_cross_entropy_backward(g, x, y, w, "mean"), xt.grad.numpy(),
                               rtol=F32_RTOL, atol=0)  # see F32_RTOL


# ============================================================ ranks and feature levels
@pytest.mark.parametrize("shape", [(), (7,), (2, 3, 2, 2, 2), (2, 1, 2, 1, 2, 1, 2, 2)], ids=str)
def test_ranks_zero_to_eight(shape):
    rng = np.random.default_rng(10)
    x, y, g = rand(rng, shape, 0.1, 0.9), rand(rng, shape), rand(rng, shape[-1:])
    for backend in BACKENDS:
        out = aclnn.binary_cross_entropy_backward(g, x, y, reduction="mean", backend=backend)
        np.testing.assert_allclose(out, aten_backward(g, x, y, None, "mean"), rtol=F32_RTOL, atol=0)  # F32_RTOL
        loss = aclnn.binary_cross_entropy(x, y, reduction="sum", backend=backend)
        np.testing.assert_allclose(loss, F.binary_cross_entropy(t(x), t(y), reduction="sum").numpy(),
                                   rtol=2e-6, atol=0)  # a sum of at most 32 float32 terms


LEVELS = [  # (rank, dtype, lowest level of the backward, of the forward with mean)
    (2, np.float32, "1.0", "1.0"),
    (4, np.float16, "1.0", "1.0"),
    (5, np.float32, "3.0", "3.0"),
    (8, np.float32, "3.0", "3.0"),
    (5, np.float16, "3.1", "3.1"),
    (8, np.float16, "3.1", "3.1"),
]


@pytest.mark.parametrize("rank,dtype,backward_level,forward_level", LEVELS)
def test_lowest_feature_level(rank, dtype, backward_level, forward_level):
    shape = (2,) * rank
    x = np.full(shape, 0.5, dtype)
    for plan, level in ((aclnn.binary_cross_entropy_backward(x[..., :1], x, x, x[:1], return_graph=True),
                         backward_level),
                        (aclnn.binary_cross_entropy(x, x, x[:1], "mean", return_graph=True), forward_level)):
        assert plan.lowest_feature_level == FeatureLevel.parse(level)
        plan.graph.validate(level)
        below = [lv for lv in FeatureLevel if lv < FeatureLevel.parse(level)]
        if below:
            assert plan.graph.problems(below[-1])  # and not at the level just below


def test_graph_is_element_wise_only_and_cached_per_signature():
    rng = np.random.default_rng(11)
    x, y = rand(rng, (3, 4), 0.1, 0.9, np.float16), rand(rng, (3, 4), dtype=np.float16)
    plan = aclnn.binary_cross_entropy_backward(x[:1], x, y, x, return_graph=True)
    kinds = {type(n).OPERATOR_TYPE for n in plan.graph.nodes}
    assert kinds == {"CAST", "ELEMENT_WISE_SUBTRACT", "ELEMENT_WISE_MULTIPLY", "ELEMENT_WISE_IDENTITY",
                     "ELEMENT_WISE_CLIP", "ELEMENT_WISE_DIVIDE"}
    forward = aclnn.binary_cross_entropy(x, y, return_graph=True)
    assert {type(n).OPERATOR_TYPE for n in forward.graph.nodes} == {
        "CAST", "ELEMENT_WISE_LOG", "ELEMENT_WISE_CLIP", "ELEMENT_WISE_MULTIPLY", "ELEMENT_WISE_IDENTITY",
        "ELEMENT_WISE_ADD", "REDUCE"}
    again = aclnn.binary_cross_entropy_backward(y[:1], y, x, y, return_graph=True)
    assert again.graph is plan.graph  # same shapes, dtypes and reduction: one graph
    np.testing.assert_array_equal(again.run("reference"),
                                  aclnn.binary_cross_entropy_backward(y[:1], y, x, y, backend="reference"))


# ============================================================ empty self
def test_empty_self_returns_without_a_graph():
    e16, e32 = np.zeros((0, 3), np.float16), np.zeros((0, 3), np.float32)
    out = aclnn.binary_cross_entropy_backward(np.ones((), np.float32), e16, e16)
    assert out.shape == (0, 3) and out.dtype == np.float32
    assert aclnn.binary_cross_entropy_backward(e16[:, :1], e16, e16).dtype == np.float16
    for reduction in REDUCTIONS:
        got = aclnn.binary_cross_entropy(e32, e32, reduction=reduction)
        want = F.binary_cross_entropy(t(e32), t(e32), reduction=reduction).numpy()  # [], nan, 0
        assert got.shape == want.shape and got.dtype == np.float32
        np.testing.assert_array_equal(got, want)
    with pytest.raises(DmlOpsError, match=r"aclnn\.BinaryCrossEntropy: self is empty, so there is no graph"):
        aclnn.binary_cross_entropy(e32, e32, return_graph=True)
    with pytest.raises(DmlOpsError, match=r"aclnn\.BinaryCrossEntropyBackward: self is empty, so there is no graph"):
        aclnn.binary_cross_entropy_backward(e32, e32, e32, return_graph=True)


# ============================================================ argument errors
@pytest.mark.parametrize("reduction", [3, -1, "avg", "Mean", True, 1.0, None])
def test_bad_reduction(reduction):
    x = np.full((2, 2), 0.5, np.float32)
    match = (r"reduction must be 'none', 'mean' or 'sum' \(or aclnn's code 0, 1 or 2\); got "
             + re.escape(repr(reduction)) + r"\.")
    with pytest.raises(DmlOpsError, match=r"aclnn\.BinaryCrossEntropyBackward: " + match):
        aclnn.binary_cross_entropy_backward(x, x, x, reduction=reduction)
    with pytest.raises(DmlOpsError, match=r"aclnn\.BinaryCrossEntropy: " + match):
        aclnn.binary_cross_entropy(x, x, reduction=reduction)


def test_bfloat16_is_an_error():
    x = torch.full((2, 2), 0.5)
    with pytest.raises(DmlOpsError, match=r"aclnn\.BinaryCrossEntropyBackward: self has dtype bfloat16; expected "
                                          r"float32 or float16\. DirectML has no bfloat16"):
        aclnn.binary_cross_entropy_backward(x, x.bfloat16(), x)
    ml_dtypes = pytest.importorskip("ml_dtypes")
    with pytest.raises(DmlOpsError, match=r"aclnn\.BinaryCrossEntropy: target has dtype bfloat16; expected float32 "
                                          r"or float16\. DirectML has no bfloat16"):
        aclnn.binary_cross_entropy(x.numpy(), x.numpy().astype(ml_dtypes.bfloat16))


def test_other_dtypes_ranks_and_types_are_errors():
    x = np.full((2, 2), 0.5, np.float32)
    with pytest.raises(DmlOpsError, match=r"aclnn\.BinaryCrossEntropyBackward: target has dtype float64; expected "
                                          r"float32 or float16\."):
        aclnn.binary_cross_entropy_backward(x, x, x.astype(np.float64))
    with pytest.raises(DmlOpsError, match=r"aclnn\.BinaryCrossEntropyBackward: grad_output must be an array; got "
                                          r"list\."):
        aclnn.binary_cross_entropy_backward([1.0], x, x)
    nine = np.full((1,) * 9, 0.5, np.float32)
    with pytest.raises(DmlOpsError, match=r"aclnn\.BinaryCrossEntropyBackward: self has 9 dimensions; aclnn allows "
                                          r"at most 8\."):
        aclnn.binary_cross_entropy_backward(x, nine, nine)


def test_forward_argument_errors():
    x = np.full((2, 3), 0.5, np.float32)
    with pytest.raises(DmlOpsError, match=r"aclnn\.BinaryCrossEntropy: target has shape \[1, 3\]; it must equal "
                                          r"self's shape \[2, 3\]\."):
        aclnn.binary_cross_entropy(x, x[:1])
    with pytest.raises(DmlOpsError, match=r"aclnn\.BinaryCrossEntropy: target has dtype float16 and self float32; "
                                          r"aclnnBinaryCrossEntropy requires one dtype \(it does not promote\)\."):
        aclnn.binary_cross_entropy(x, x.astype(np.float16))
    with pytest.raises(DmlOpsError, match=r"aclnn\.BinaryCrossEntropy: weight has dtype float16 and self float32"):
        aclnn.binary_cross_entropy(x, x, x.astype(np.float16))
    with pytest.raises(DmlOpsError, match=r"aclnn\.BinaryCrossEntropy: weight of shape \[2\] does not broadcast to "
                                          r"self's shape \[2, 3\]"):
        aclnn.binary_cross_entropy(x, x, x[:, 0])


def test_torch_tensors_are_accepted():
    rng = np.random.default_rng(12)
    x, y = rand(rng, (3, 3), 0.1, 0.9), rand(rng, (3, 3))
    g = np.ones((), np.float32)
    np.testing.assert_array_equal(aclnn.binary_cross_entropy_backward(t(g), t(x), t(y)),
                                  aclnn.binary_cross_entropy_backward(g, x, y))


# ============================================================ compose_*: one graph for loss and gradient
@pytest.mark.parametrize("backend", BACKENDS)
def test_compose_loss_and_gradient_in_one_graph(backend):
    import dmlops

    rng = np.random.default_rng(13)
    x, y, w = rand(rng, (6, 1), 0.05, 0.95), rand(rng, (6, 1)), rand(rng, (1,), 0.5, 2)
    c = Composer()
    xt, yt, wt = c.input("x", "FLOAT32", [6, 1]), c.input("y", "FLOAT32", [6, 1]), c.input("w", "FLOAT32", [1])
    c.output("loss", aclnn.compose_binary_cross_entropy(c, xt, yt, wt, "mean"))
    # grad_output as a Python number: folded into the mean's ScaleBias (no input for the constant 1).
    c.output("grad", aclnn.compose_binary_cross_entropy_backward(c, 1.0, xt, yt, wt, "mean"))
    got = dmlops.compile(c.build(), backend)({"x": x.ravel(), "y": y.ravel(), "w": w})  # 1-D buffers
    xg = t(x).requires_grad_()
    loss = F.binary_cross_entropy(xg, t(y), t(np.broadcast_to(w, (6, 1)).copy()), reduction="mean")
    loss.backward()
    np.testing.assert_allclose(np.asarray(got["loss"]).reshape(()), loss.item(), rtol=2e-6)  # 6 float32 terms
    np.testing.assert_allclose(np.asarray(got["grad"]).reshape(6, 1), xg.grad.numpy(), rtol=F32_RTOL)  # F32_RTOL


def test_compose_checks_its_tensors():
    c = Composer()
    x, y = c.input("x", "FLOAT32", [4, 5]), c.input("y", "FLOAT32", [3, 5])
    with pytest.raises(DmlOpsError, match=r"aclnn\.BinaryCrossEntropyBackward: target of shape \[1, 1, 3, 5\] does "
                                          r"not broadcast to self's shape \[1, 1, 4, 5\]"):
        aclnn.compose_binary_cross_entropy_backward(c, 1.0, x, y)
    i = c.input("i", "INT32", [4, 5])
    with pytest.raises(DmlOpsError, match=r"aclnn\.BinaryCrossEntropy: target is INT32; expected FLOAT32 or FLOAT16\."):
        aclnn.compose_binary_cross_entropy(c, x, i)
