"""Element-wise operators, CAST, FILL_VALUE_CONSTANT and ADAM_OPTIMIZER against independent implementations.

Oracles: ONNX's node test cases (regenerated in memory from onnx.backend.test.case.node), ONNX's reference
evaluator (for the FLOAT16 runs), PyTorch aten ops and autograd, torch.optim.Adam, ONNX's Adam reference
function, ONNX Runtime's ConstantOfShape, and exact Python integer arithmetic. Every dmlops backend
(reference, onnxruntime, torch) is checked, in FLOAT32 and FLOAT16.
"""
import math
import re

import numpy as np
import pytest

import dmlops
from dmlops.types import FeatureLevel, ScaleBias, TensorDesc
from tests.onnx_node_cases import generated

torch = pytest.importorskip("torch")

BACKENDS = ("reference", "onnxruntime", "torch")
LATEST = FeatureLevel.latest()
DATA_TYPES = {"float16": "FLOAT16", "float32": "FLOAT32", "float64": "FLOAT64", "int8": "INT8", "int16": "INT16",
              "int32": "INT32", "int64": "INT64", "uint8": "UINT8", "uint16": "UINT16", "uint32": "UINT32",
              "uint64": "UINT64"}
INTEGER_TYPES = ("INT64", "INT32", "INT16", "INT8", "UINT64", "UINT32", "UINT16", "UINT8")


def run_all(desc, inputs):
    """{backend: outputs} for the three dmlops backends."""
    return {b: dmlops.run(desc, inputs, backend=b) for b in BACKENDS}


def strided(data_type, array, shape):
    """(TensorDesc, buffer): ``array`` read at ``shape`` through zero strides, the way DirectML broadcasts."""
    a = np.asarray(array)
    aligned = (1,) * (len(shape) - a.ndim) + a.shape
    packed = np.ascontiguousarray(a).reshape(aligned)
    if aligned == tuple(shape):
        return TensorDesc(data_type, list(shape)), packed
    strides = [st // packed.itemsize if n == s else 0 for n, s, st in zip(aligned, shape, packed.strides)]
    return TensorDesc(data_type, list(shape), strides), packed.ravel()


def data_type(array) -> str:
    """The DML DataType of a NumPy array."""
    return DATA_TYPES[np.asarray(array).dtype.name]


# ============================================================ ONNX node test cases
ONNX_MODULES = ("add", "sub", "mul", "div", "max", "min", "clip", "log", "exp", "sqrt", "reciprocal", "pow", "abs",
                "cast")


def _onnx_cases():
    """{name: (node, inputs, outputs)} from onnx's node-case generators of ONNX_MODULES (tests/onnx_node_cases.py)."""
    return {n: (c.node, c.inputs, c.outputs) for n, c in generated(ONNX_MODULES).items()}


ONNX_NODE_CASES = _onnx_cases()
ONNX_PATTERN = re.compile(r"test_(add|sub|mul|div|max|min|clip|log|exp|sqrt|reciprocal|pow|abs|cast)(_|$)")
SKIPPED = {
    r"test_cast_.*(BFLOAT16|FLOAT8|INT4|UINT4|INT2|UINT2|FLOAT4E2M1|e8m0|STRING)": "DirectML has no such DataType",
    r"test_cast_no_saturate": "float8 targets: DirectML has no such DataType",
    r"test_pow_types_(int64_.*|float32_u?int64)": "POW declares no 64-bit integer DataType",
    r"test_(max|min)_float64": "MAX/MIN declare no FLOAT64",
}
# Where DirectML's documented formula differs from ONNX: the DirectML expectation from the case inputs.
def _float16_toward_zero(x):
    """``x`` stored in FLOAT16 as DirectML stores it: to float32, then toward zero (an independent model: NumPy's
    nearest conversion, stepped one float16 toward zero where it rounded away from zero)."""
    f = np.asarray(x).astype(np.float32)
    with np.errstate(over="ignore"):
        h = f.astype(np.float16)
    away = np.abs(h.astype(np.float64)) > np.abs(f.astype(np.float64))
    return np.where(away, np.nextafter(h, np.float16(0)), h).astype(np.float16)


DIFFERENCES = {
    # ONNX Clip gives max when min > max; DirectML's f(x) = max(Min, min(x, Max)) gives Min.
    "test_clip_min_greater_than_max": lambda x, lo, hi: np.full_like(x, lo),
    # ONNX Cast rounds to nearest; DirectML's vectors decide: FLOAT16 is stored toward zero
    # (CAST edge_float32_to_float16_overflow_ties_subnormal: 65520 -> 65504, 1 + 3 * 2**-11 -> 1 + 2**-10).
    "test_cast_FLOAT_to_FLOAT16": lambda x, lo, hi: _float16_toward_zero(x),
    "test_cast_DOUBLE_to_FLOAT16": lambda x, lo, hi: _float16_toward_zero(x),
}
BINARY = {"Add": "ElementWiseAdd", "Sub": "ElementWiseSubtract", "Mul": "ElementWiseMultiply",
          "Div": "ElementWiseDivide", "Max": "ElementWiseMax", "Min": "ElementWiseMin"}
UNARY = {"Abs": "ElementWiseAbs", "Exp": "ElementWiseExp", "Log": "ElementWiseLog", "Sqrt": "ElementWiseSqrt",
         "Reciprocal": "ElementWiseRecip"}
# float32 tolerances against ONNX's NumPy float32 results.
RTOL = {
    "Exp": (1e-6, "NumPy's float32 exp/log/pow and the backends' differ by a few ulps (1.2e-7 each)"),
    "Log": (1e-6, "NumPy's float32 exp/log/pow and the backends' differ by a few ulps (1.2e-7 each)"),
    "Pow": (1e-6, "NumPy's float32 exp/log/pow and the backends' differ by a few ulps (1.2e-7 each)"),
}
DEFAULT_RTOL = (2.5e-7, "correctly rounded float32 ops, one extra rounding in a float64 reference: 2 ulps")


def _skip_reason(name):
    return next((why for pattern, why in SKIPPED.items() if re.match(pattern, name)), None)


def _onnx_params():
    for name in sorted(n for n in ONNX_NODE_CASES if ONNX_PATTERN.match(n)):
        node, inputs, _ = ONNX_NODE_CASES[name]
        why = _skip_reason(name)
        marks = [pytest.mark.skip(reason=why)] if why else []
        yield pytest.param(name, False, id=name, marks=marks)
        floats = inputs is not None and any(a.dtype == np.float32 for a in inputs)
        if not why and floats and node.op_type != "Cast" and all(a.dtype != np.float64 for a in inputs):
            yield pytest.param(name, True, id=f"{name}-float16")


def _binary(op, a, b, shape):
    cls = getattr(dmlops, BINARY[op])
    da, va = strided(data_type(a), a, shape)
    db, vb = strided(data_type(b), b, shape)
    desc = cls(a_tensor=da, b_tensor=db, output_tensor=TensorDesc(data_type(a), list(shape)))
    return desc, {"ATensor": va, "BTensor": vb}


def _dml_cases(node, values):
    """[(desc, inputs)] running the ONNX node in DirectML operators (a variadic Max/Min folds pairwise)."""
    from onnx import helper

    op = node.op_type
    shape = np.broadcast_shapes(*[v.shape for v in values if v is not None])
    if op in BINARY:
        if len(values) == 1:  # a one-input Max/Min is a copy
            d = TensorDesc(data_type(values[0]), list(shape))
            return [(dmlops.ElementWiseIdentity(input_tensor=d, output_tensor=d), {"InputTensor": values[0]})]
        return [_binary(op, values[0], values[1], shape)] + [("fold", v) for v in values[2:]]
    if op in UNARY:
        d = TensorDesc(data_type(values[0]), list(shape))
        return [(getattr(dmlops, UNARY[op])(input_tensor=d, output_tensor=d), {"InputTensor": values[0]})]
    if op == "Pow":
        di, vi = strided(data_type(values[0]), values[0], shape)
        de, ve = strided(data_type(values[1]), values[1], shape)
        desc = dmlops.ElementWisePow(input_tensor=di, exponent_tensor=de,
                                     output_tensor=TensorDesc(data_type(values[0]), list(shape)))
        return [(desc, {"InputTensor": vi, "ExponentTensor": ve})]
    if op == "Clip":
        lo = float(values[1]) if len(values) > 1 and values[1] is not None else -math.inf
        hi = float(values[2]) if len(values) > 2 and values[2] is not None else math.inf
        d = TensorDesc(data_type(values[0]), list(shape))
        return [(dmlops.ElementWiseClip(input_tensor=d, output_tensor=d, min=lo, max=hi), {"InputTensor": values[0]})]
    if op == "Cast":
        to = np.dtype(helper.tensor_dtype_to_np_dtype(helper.get_attribute_value(node.attribute[0])))
        desc = dmlops.Cast(input_tensor=TensorDesc(data_type(values[0]), list(shape)),
                           output_tensor=TensorDesc(DATA_TYPES[to.name], list(shape)))
        return [(desc, {"InputTensor": values[0]})]
    raise AssertionError(op)


@pytest.mark.parametrize(("name", "float16"), list(_onnx_params()))
def test_matches_onnx_node_case(name, float16):
    node, inputs, outputs = ONNX_NODE_CASES[name]
    present = dict(zip([n for n in node.input if n], inputs))
    values = [present.get(n) if n else None for n in node.input]
    expected = outputs[0]
    if float16:
        from onnx.reference import ReferenceEvaluator

        # The oracle: ONNX's reference evaluator on the float16-rounded inputs, computed in float32.
        values = [v.astype(np.float16) if v is not None and v.dtype == np.float32 else v for v in values]
        feeds = {n: v.astype(np.float32) if v.dtype == np.float16 else v
                 for n, v in zip(node.input, values) if n}
        expected = ReferenceEvaluator(node).run(None, feeds)[0]
    if name in DIFFERENCES:
        lo = values[1] if len(values) > 1 else -math.inf
        hi = values[2] if len(values) > 2 else math.inf
        dml_expected = DIFFERENCES[name](values[0], lo, hi)
        assert not np.array_equal(dml_expected, expected)  # the difference is real
        expected = dml_expected
    steps = _dml_cases(node, values)
    for backend in BACKENDS:
        got = _run_steps(node.op_type, steps, backend)
        assert got.dtype == (np.float16 if float16 and expected.dtype == np.float32 else expected.dtype)
        if got.dtype.kind in "iu":
            np.testing.assert_array_equal(got, expected, err_msg=backend)  # integer results are exact
        elif float16:
            # One float16 rounding of the result (2**-11 relative) plus float32 evaluation; atol: the float16
            # subnormal spacing 2**-24.
            np.testing.assert_allclose(got.astype(np.float32), expected, rtol=1e-3, atol=6e-8, equal_nan=True,
                                       err_msg=backend)
        else:
            rtol, why = RTOL.get(node.op_type, DEFAULT_RTOL)
            np.testing.assert_allclose(got, expected, rtol=rtol, atol=0, equal_nan=True, err_msg=f"{backend}: {why}")


def _run_steps(op, steps, backend):
    """The output of ``steps`` on ``backend``."""
    y = None
    for desc, x in steps:
        if isinstance(desc, str):  # fold the next operand of a variadic Max/Min into the running result
            desc, x = _binary(op, y, x, np.broadcast_shapes(y.shape, x.shape))
        assert not desc.problems(LATEST), desc.problems(LATEST)  # every unskipped case maps to a valid desc
        y = next(iter(dmlops.run(desc, x, backend=backend).values()))
    return y


def test_onnx_node_cases_are_all_there():
    names = {n for n in ONNX_NODE_CASES if ONNX_PATTERN.match(n)}
    for expected in ("test_add_bcast", "test_div_int32_trunc", "test_clip_min_greater_than_max",
                     "test_pow_bcast_scalar", "test_cast_FLOAT_to_FLOAT16", "test_max_uint64", "test_reciprocal",
                     "test_abs", "test_sqrt"):
        assert expected in names
    assert len(names) > 100


# ============================================================ PyTorch oracles
RNG = np.random.default_rng(2024)
FLOATS = ("FLOAT32", "FLOAT16")


@pytest.fixture(autouse=True)
def _fresh_rng():
    """Each test draws the same data however the tests are selected."""
    global RNG
    RNG = np.random.default_rng(2024)


def _np(data_type):
    return np.dtype(data_type.lower())


def _assert_float(got, want, data_type, rtol32, why32, rtol16=2e-3, atol16=1e-6):
    """Compare a dmlops result in ``data_type`` with a float32/float64 oracle."""
    if data_type == "FLOAT16":
        # One float16 rounding of the input to the op (ScaleBias) and one of the output: ~2 * 2**-11 relative.
        np.testing.assert_allclose(got.astype(np.float64), want, rtol=rtol16, atol=atol16, equal_nan=True)
    else:
        # atol: x * Scale and + Bias round separately (2**-24 each of terms of size ~1), which cancellation
        # near 0 can make large relative to the result.
        np.testing.assert_allclose(got.astype(np.float64), want, rtol=rtol32, atol=2e-7, equal_nan=True,
                                   err_msg=why32)


def _unary(cls, data_type, shape, **attrs):
    d = TensorDesc(data_type, list(shape))
    return cls(input_tensor=d, output_tensor=d, **attrs)


UNARY_TORCH = {
    # name: (desc factory, torch oracle on float32/64 tensors, input generator, float32 rtol and why)
    "clip": (lambda t: _unary(dmlops.ElementWiseClip, t, [3, 5], min=-0.75, max=0.5),
             lambda x: torch.clamp(x, -0.75, 0.5), lambda: RNG.standard_normal((3, 5)), 0, "a select"),
    "threshold": (lambda t: _unary(dmlops.ElementWiseThreshold, t, [3, 5], min=0.25),
                  lambda x: torch.clamp(x, min=0.25), lambda: RNG.standard_normal((3, 5)), 0, "a select"),
    "constant_pow": (lambda t: _unary(dmlops.ElementWiseConstantPow, t, [3, 5], exponent=2.5),
                     lambda x: torch.pow(x, 2.5), lambda: RNG.random((3, 5)) * 3, 1e-6, "float32 pow"),
    "constant_pow_negative_base": (lambda t: _unary(dmlops.ElementWiseConstantPow, t, [3, 5], exponent=-3.0),
                                   lambda x: torch.pow(x, -3.0), lambda: RNG.uniform(-3, -0.5, (3, 5)), 1e-6,
                                   "float32 pow"),
    "identity_scale_bias": (lambda t: _unary(dmlops.ElementWiseIdentity, t, [3, 5], scale_bias=ScaleBias(-1.5, 0.25)),
                            lambda x: x * -1.5 + 0.25, lambda: RNG.standard_normal((3, 5)), 1e-7, "one rounding"),
    "abs_scale_bias": (lambda t: _unary(dmlops.ElementWiseAbs, t, [3, 5], scale_bias=ScaleBias(2.0, -1.0)),
                       lambda x: torch.abs(x * 2 - 1), lambda: RNG.standard_normal((3, 5)), 1e-7, "one rounding"),
    "exp_scale_bias": (lambda t: _unary(dmlops.ElementWiseExp, t, [3, 5], scale_bias=ScaleBias(0.5, 0.1)),
                       lambda x: torch.exp(x * 0.5 + 0.1), lambda: RNG.standard_normal((3, 5)), 1e-6, "float32 exp"),
    "log_scale_bias": (lambda t: _unary(dmlops.ElementWiseLog, t, [3, 5], scale_bias=ScaleBias(3.0, 0.5)),
                       lambda x: torch.log(x * 3 + 0.5), lambda: RNG.random((3, 5)) + 0.2, 1e-6, "float32 log"),
    "sqrt_scale_bias": (lambda t: _unary(dmlops.ElementWiseSqrt, t, [3, 5], scale_bias=ScaleBias(2.0, 1.0)),
                        lambda x: torch.sqrt(x * 2 + 1), lambda: RNG.random((3, 5)), 1e-6, "float32 rounding twice"),
    "recip_scale_bias": (lambda t: _unary(dmlops.ElementWiseRecip, t, [3, 5], scale_bias=ScaleBias(1.0, 2.0)),
                         lambda x: torch.reciprocal(x + 2), lambda: RNG.random((3, 5)), 1e-6, "float32 rounding twice"),
}


@pytest.mark.parametrize("data_type", FLOATS)
@pytest.mark.parametrize("name", sorted(UNARY_TORCH))
def test_unary_matches_torch(name, data_type):
    make, oracle, gen, rtol, why = UNARY_TORCH[name]
    x = gen().astype(_np(data_type))
    want = oracle(torch.from_numpy(x.astype(np.float64))).numpy()  # float64 on the (rounded) input
    for backend, out in run_all(make(data_type), {"InputTensor": x}).items():
        # float32: rtol as listed (0 for selects); float16: see _assert_float.
        # float16 atol 1e-3: the float16 rounding of x * Scale + Bias (2**-11 of ~2) moves log's result near 0 by
        # up to ~5e-4 absolute.
        _assert_float(out["OutputTensor"], want, data_type, max(rtol, 1.2e-7), f"{backend}: {why}", atol16=1e-3)


@pytest.mark.parametrize("data_type", FLOATS)
def test_clip_grad_matches_torch_clamp_backward(data_type):
    lo, hi = -0.5, 0.75
    x = RNG.standard_normal((4, 6)).astype(_np(data_type))
    x[np.abs(x - lo) < 1e-2] += 0.05  # off the boundaries, where torch and DirectML agree (see below)
    x[np.abs(x - hi) < 1e-2] += 0.05
    dy = RNG.standard_normal((4, 6)).astype(_np(data_type))
    xt = torch.tensor(x.astype(np.float32), requires_grad=True)
    torch.clamp(xt, lo, hi).backward(torch.from_numpy(dy.astype(np.float32)))
    t = TensorDesc(data_type, [4, 6])
    desc = dmlops.ElementWiseClipGrad(input_tensor=t, input_gradient_tensor=t, output_gradient_tensor=t,
                                      min=lo, max=hi)
    for backend, out in run_all(desc, {"InputTensor": x, "InputGradientTensor": dy}).items():
        # A select of dY: exact in either type.
        np.testing.assert_array_equal(out["OutputGradientTensor"].astype(np.float32), xt.grad.numpy(), err_msg=backend)


def test_clip_grad_boundaries_differ_from_torch():
    # DirectML: "If x is at or below [Min] ... the gradient result is 0"; torch.clamp's backward passes dY there.
    x = np.array([-1, 1, 0, np.nan], np.float32)
    xt = torch.tensor(x, requires_grad=True)
    torch.clamp(xt, -1.0, 1.0).backward(torch.ones(4))
    assert xt.grad.tolist() == [1, 1, 1, 0]
    t = TensorDesc("FLOAT32", [4])
    desc = dmlops.ElementWiseClipGrad(input_tensor=t, input_gradient_tensor=t, output_gradient_tensor=t,
                                      min=-1.0, max=1.0)
    for backend, out in run_all(desc, {"InputTensor": x, "InputGradientTensor": np.ones(4, np.float32)}).items():
        # x = NaN gives 0, as torch does: DirectML passes dY only where Min < x < Max (its vectors decide:
        # ELEMENT_WISE_CLIP_GRAD basic and edge_x_at_bounds_nan).
        np.testing.assert_array_equal(out["OutputGradientTensor"], [0, 0, 1, 0], err_msg=backend)


@pytest.mark.parametrize("data_type", FLOATS)
def test_add1_fused_relu_matches_torch(data_type):
    a = RNG.standard_normal((2, 3, 4)).astype(_np(data_type))
    b = RNG.standard_normal((1, 1, 4)).astype(_np(data_type))
    db, vb = strided(data_type, b, (2, 3, 4))
    t = TensorDesc(data_type, [2, 3, 4])
    desc = dmlops.ElementWiseAdd1(a_tensor=t, b_tensor=db, output_tensor=t, fused_activation=dmlops.ActivationRelu())
    want = torch.relu(torch.from_numpy(a.astype(np.float64)) + torch.from_numpy(b.astype(np.float64))).numpy()
    for backend, out in run_all(desc, {"ATensor": a, "BTensor": vb}).items():
        _assert_float(out["OutputTensor"], want, data_type, 1.2e-7, f"{backend}: one float32 rounding")


# ============================================================ integers: exact Python arithmetic
def _wrap(value, data_type):
    lo, hi = (int(v) for v in (np.iinfo(_np(data_type)).min, np.iinfo(_np(data_type)).max))
    return (value - lo) % (hi - lo + 1) + lo


def _trunc_div(a, b):
    q = abs(a) // abs(b)
    return q if (a < 0) == (b < 0) else -q


INT_OPS = {
    "ElementWiseAdd": lambda a, b: a + b, "ElementWiseSubtract": lambda a, b: a - b,
    "ElementWiseMultiply": lambda a, b: a * b, "ElementWiseDivide": _trunc_div,
    "ElementWiseMax": max, "ElementWiseMin": min,
}


def _random_ints(data_type, n, nonzero=False):
    info = np.iinfo(_np(data_type))
    v = RNG.integers(int(info.min), int(info.max), n, dtype=_np(data_type), endpoint=True)
    v[:4] = [info.min, info.max, info.max // 2 + 1, 1 if nonzero else 0][:4]  # the extremes and 2**(bits-1)
    if nonzero:
        v[v == 0] = 1
    return v


@pytest.mark.parametrize("data_type", INTEGER_TYPES)
@pytest.mark.parametrize("op", sorted(INT_OPS))
def test_integer_binary_matches_python(op, data_type):
    a = _random_ints(data_type, 16)
    b = _random_ints(data_type, 16, nonzero=(op == "ElementWiseDivide"))[::-1].copy()
    if op == "ElementWiseDivide" and data_type.startswith("INT"):
        b[(a == np.iinfo(a.dtype).min) & (b == -1)] = 2  # INT_MIN / -1 overflows: undefined
    want = np.array([_wrap(INT_OPS[op](int(p), int(q)), data_type) for p, q in zip(a, b)], dtype=a.dtype)
    t = TensorDesc(data_type, [16])
    desc = getattr(dmlops, op)(a_tensor=t, b_tensor=t, output_tensor=t)
    for backend, out in run_all(desc, {"ATensor": a, "BTensor": b}).items():
        np.testing.assert_array_equal(out["OutputTensor"], want, err_msg=backend)  # wrapping integer math: exact


# ============================================================ CAST
def _saturate(value, target, source=None):
    """An independent scalar model of CAST's integer rule: truncate, saturate, NaN -> 0. Integer sources follow
    DirectML's vectors (CAST edge_int32_to_uint8, edge_uint32_to_int8, ...), which decide over plain saturation:
    the value is held in a register of 32 bits (64 when either type has 64), read with the target's signedness,
    then saturated (INT8 -1 -> UINT8 255, UINT32 2**32 - 1 -> INT8 -1)."""
    info = np.iinfo(_np(target))
    if isinstance(value, float):
        if math.isnan(value):
            return 0
        if math.isinf(value):
            return int(info.max) if value > 0 else int(info.min)
        value = math.trunc(value)
    elif source is not None:
        bits = 64 if 8 in (np.dtype(_np(source)).itemsize, np.dtype(_np(target)).itemsize) else 32
        value %= 2**bits  # the register's bits
        if info.min < 0 and value >= 2 ** (bits - 1):
            value -= 2**bits  # read as signed
    return min(max(int(value), int(info.min)), int(info.max))


CAST_PAIRS = [("FLOAT32", t) for t in INTEGER_TYPES] + [("FLOAT16", "INT16"), ("FLOAT16", "UINT8"),
                                                         ("INT64", "INT8"), ("UINT64", "INT32"), ("INT32", "UINT16"),
                                                         ("INT8", "UINT64"), ("UINT32", "INT8"), ("INT16", "UINT8")]


@pytest.mark.parametrize(("src", "dst"), CAST_PAIRS)
def test_cast_to_integer_matches_python(src, dst):
    if src.startswith("FLOAT"):
        with np.errstate(over="ignore"):  # large values overflow FLOAT16 to inf: also a saturation case
            x = (RNG.standard_normal(24) * 10.0 ** RNG.integers(0, 20, 24)).astype(_np(src))
        x[:6] = [np.nan, np.inf, -np.inf, -0.5, 2.5, -2.5]
        values = [float(v) for v in x]
    else:
        x = _random_ints(src, 24)
        values = [int(v) for v in x]
    want = np.array([_saturate(v, dst, src) for v in values], dtype=_np(dst))
    desc = dmlops.Cast(input_tensor=TensorDesc(src, [24]), output_tensor=TensorDesc(dst, [24]))
    for backend, out in run_all(desc, {"InputTensor": x}).items():
        np.testing.assert_array_equal(out["OutputTensor"], want, err_msg=backend)  # exact by the rule


@pytest.mark.parametrize(("src", "dst"), [("FLOAT32", "FLOAT16"), ("FLOAT16", "FLOAT32"), ("INT32", "FLOAT16"),
                                          ("INT64", "FLOAT32"), ("UINT32", "FLOAT32"), ("FLOAT32", "INT32")])
def test_cast_in_range_matches_torch(src, dst):
    from dmlops.backends.torch import torch_dtype
    from dmlops.types import DataType

    if src.startswith("FLOAT"):
        x = (RNG.standard_normal(32) * 1000).astype(_np(src))
    else:
        x = RNG.integers(-(2**20) if src.startswith("INT") else 0, 2**20, 32).astype(_np(src))
        x[:2] = [2**24 + 1, 65519] if src != "INT64" else [2**53 + 1, 2**40 + 3]  # values that round
    want = torch.from_numpy(x).to(torch_dtype(torch, DataType.parse(dst))).numpy()  # in range: .to() is defined
    if dst == "FLOAT16":
        # torch rounds to nearest; DirectML's vectors decide: FLOAT16 is stored toward zero (CAST
        # edge_int32_to_float16_ties_overflow: 2051 -> 2050). Step torch's result toward zero where it rounded away.
        exact = torch.from_numpy(x).to(torch.float64).numpy()
        away = np.abs(want.astype(np.float64)) > np.abs(exact)
        want = np.where(away, np.nextafter(want, np.float16(0)), want).astype(np.float16)
        assert away.any()  # the difference is real
    desc = dmlops.Cast(input_tensor=TensorDesc(src, [32]), output_tensor=TensorDesc(dst, [32]))
    for backend, out in run_all(desc, {"InputTensor": x}).items():
        np.testing.assert_array_equal(out["OutputTensor"], want, err_msg=backend)  # IEEE conversions: exact


# ============================================================ FILL_VALUE_CONSTANT
@pytest.mark.parametrize(("data_type", "value"), [("FLOAT32", -2.5), ("FLOAT16", 0.1), ("INT32", -7),
                                                  ("UINT64", 2**64 - 1), ("INT8", -128), ("UINT16", 65535)])
def test_fill_matches_onnxruntime_constant_of_shape(data_type, value):
    import onnxruntime as ort
    from onnx import helper, numpy_helper

    sizes = [2, 3, 1]
    tensor = numpy_helper.from_array(np.array([value], dtype=_np(data_type)), "value")
    node = helper.make_node("ConstantOfShape", ["shape"], ["y"], value=tensor)
    graph = helper.make_graph([node], "fill", [helper.make_tensor_value_info("shape", 7, [3])],
                              [helper.make_tensor_value_info("y", tensor.data_type, sizes)])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)])
    model.ir_version = 8
    session = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    want = session.run(None, {"shape": np.array(sizes, np.int64)})[0]
    desc = dmlops.FillValueConstant(output_tensor=TensorDesc(data_type, sizes), value_data_type=data_type, value=value)
    for backend, out in run_all(desc, {}).items():
        np.testing.assert_array_equal(out["OutputTensor"], want, err_msg=backend)  # a constant: exact


def test_fill_value_data_type_must_match_the_output():
    desc = dmlops.FillValueConstant(output_tensor=TensorDesc("INT32", [4]), value_data_type="FLOAT32", value=1.0)
    with pytest.raises(dmlops.ValidationError,
                       match=r"FILL_VALUE_CONSTANT\.ValueDataType: FLOAT32 must match OutputTensor\.DataType "
                             r"\(INT32\)\."):
        dmlops.validate(desc, LATEST)


def test_binary_operands_must_have_equal_sizes():
    # DirectML does not broadcast: a smaller B needs zero strides, not other Sizes.
    desc = dmlops.ElementWiseSubtract(a_tensor=TensorDesc("FLOAT32", [2, 3]), b_tensor=TensorDesc("FLOAT32", [1, 3]),
                                      output_tensor=TensorDesc("FLOAT32", [2, 3]))
    with pytest.raises(dmlops.ValidationError, match=r"ATensor, BTensor and OutputTensor must have the same Sizes"):
        dmlops.validate(desc, LATEST)


# ============================================================ ADAM_OPTIMIZER
def _adam_desc(data_type, shape, lr, b1, b2, eps):
    t = TensorDesc(data_type, list(shape))
    return dmlops.AdamOptimizer(input_parameters_tensor=t, input_first_moment_tensor=t, input_second_moment_tensor=t,
                                gradient_tensor=t, training_step_tensor=TensorDesc("UINT32", [1, 1, 1, 1]),
                                output_parameters_tensor=t, output_first_moment_tensor=t,
                                output_second_moment_tensor=t, learning_rate=lr, beta1=b1, beta2=b2, epsilon=eps)


def _adam_inputs(data_type, shape, step):
    dt = _np(data_type)
    return {"InputParametersTensor": RNG.standard_normal(shape).astype(dt),
            "InputFirstMomentTensor": (0.1 * RNG.standard_normal(shape)).astype(dt),
            "InputSecondMomentTensor": (0.05 * RNG.random(shape) + 0.01).astype(dt),
            "GradientTensor": RNG.standard_normal(shape).astype(dt),
            "TrainingStepTensor": np.full((1, 1, 1, 1), step, np.uint32)}


ADAM_OUTPUTS = ("OutputParametersTensor", "OutputFirstMomentTensor", "OutputSecondMomentTensor")


@pytest.mark.parametrize("data_type", FLOATS)
@pytest.mark.parametrize("step", [1, 7])
def test_adam_matches_torch_optim_adam(data_type, step):
    lr, b1, b2, eps = 0.01, 0.9, 0.999, 1e-3  # a large Epsilon, so its placement matters
    shape = (1, 2, 3, 4)
    x = _adam_inputs(data_type, shape, step)
    param = torch.tensor(x["InputParametersTensor"].astype(np.float64))
    # DirectML adds Epsilon to sqrt(V); torch adds eps to sqrt(V) / sqrt(1 - beta2^t): scale eps to match.
    opt = torch.optim.Adam([param], lr=lr, betas=(b1, b2), eps=eps / math.sqrt(1 - b2**step), foreach=False)
    param.grad = torch.tensor(x["GradientTensor"].astype(np.float64))
    opt.state[param] = {"step": torch.tensor(float(step - 1)),  # torch increments it before the update
                        "exp_avg": torch.tensor(x["InputFirstMomentTensor"].astype(np.float64)),
                        "exp_avg_sq": torch.tensor(x["InputSecondMomentTensor"].astype(np.float64))}
    with torch.no_grad():
        opt.step()
    want = (param.detach().numpy(), opt.state[param]["exp_avg"].numpy(), opt.state[param]["exp_avg_sq"].numpy())
    for backend, out in run_all(_adam_desc(data_type, shape, lr, b1, b2, eps), x).items():
        for name, w in zip(ADAM_OUTPUTS, want):
            # float32: a dozen float32 operations; float16: outputs rounded to 2**-11 relative.
            _assert_float(out[name], w, data_type, 2e-6, f"{backend} {name}: float32 evaluation", rtol16=2e-3,
                          atol16=2e-4)


@pytest.mark.parametrize("data_type", FLOATS)
def test_adam_matches_onnx_adam_reference(data_type):
    from onnx.backend.test.case.node.adam import apply_adam

    lr, b1, b2, eps, step = 0.1, 0.95, 0.5, 1e-7, 3
    shape = (2, 1, 3, 2)
    x = _adam_inputs(data_type, shape, step)
    f64 = {k: v.astype(np.float64) for k, v in x.items()}
    # ONNX's Adam with no regularisation (norm_coefficient = 0) and t > 0 is the DirectML formula.
    want = apply_adam(lr, step, f64["InputParametersTensor"], f64["GradientTensor"], f64["InputFirstMomentTensor"],
                      f64["InputSecondMomentTensor"], 0.0, 0.0, b1, b2, eps)
    for backend, out in run_all(_adam_desc(data_type, shape, lr, b1, b2, eps), x).items():
        for name, w in zip(ADAM_OUTPUTS, want):
            _assert_float(out[name], w, data_type, 2e-6, f"{backend} {name}: float32 evaluation", rtol16=2e-3,
                          atol16=2e-4)


@pytest.mark.parametrize("backend", BACKENDS)
def test_adam_step_zero_skips_the_bias_correction_as_directml_and_onnx(backend):
    # At T = 0 the page's Alpha is sqrt(1 - 1) / (1 - 1) = 0 / 0; DirectML (its vector edge_training_step_uint32_0)
    # and ONNX's Adam skip the bias correction instead (Alpha = 1).
    from onnx.backend.test.case.node.adam import apply_adam

    x = _adam_inputs("FLOAT32", (1, 1, 1, 3), 0)
    out = dmlops.run(_adam_desc("FLOAT32", (1, 1, 1, 3), 0.1, 0.9, 0.999, 1e-8), x, backend=backend)
    f64 = {k: v.astype(np.float64) for k, v in x.items()}
    want = apply_adam(0.1, 0, f64["InputParametersTensor"], f64["GradientTensor"], f64["InputFirstMomentTensor"],
                      f64["InputSecondMomentTensor"], 0.0, 0.0, 0.9, 0.999, 1e-8)
    for name, w in zip(ADAM_OUTPUTS, want):
        _assert_float(out[name], w, "FLOAT32", 2e-6, f"{backend} {name}: float32 evaluation")


def test_adam_training_step_is_uint32():
    # The docs' tier table says FLOAT32/FLOAT16, its member text UINT32; DirectML refuses a float step.
    desc = _adam_desc("FLOAT32", (1, 1, 2, 2), 0.1, 0.9, 0.999, 1e-8)
    desc = desc.replace(training_step_tensor=TensorDesc("FLOAT32", [1, 1, 1, 1]))
    with pytest.raises(dmlops.ValidationError,
                       match=r"ADAM_OPTIMIZER\.TrainingStepTensor: DataType FLOAT32 not supported at "
                             r"DML_FEATURE_LEVEL_6_4 \(supported: UINT32\)"):
        dmlops.validate(desc, LATEST)


def test_adam_training_step_must_be_a_scalar():
    desc = _adam_desc("FLOAT32", (1, 1, 2, 2), 0.1, 0.9, 0.999, 1e-8)
    desc = desc.replace(training_step_tensor=TensorDesc("UINT32", [1, 1, 1, 2]))
    with pytest.raises(dmlops.ValidationError,
                       match=r"ADAM_OPTIMIZER\.TrainingStepTensor: Sizes \[1, 1, 1, 2\] must all be 1"):
        dmlops.validate(desc, LATEST)
