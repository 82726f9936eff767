"""The predicate and logic operators (ELEMENT_WISE_LOGICAL_AND/OR/XOR/NOT, the five comparisons, IS_NAN,
IS_INFINITY, IF) against independent implementations.

Oracles: ONNX's node test cases (equal, greater, less, greater_or_equal, less_or_equal, and, or, xor, not, isnan,
isinf, where; regenerated in memory, with ONNX's reference evaluator for the FLOAT16 runs), PyTorch ops (eq, gt, lt,
ge, le, logical_*, isnan, isinf, isposinf, isneginf, where) and Python integers (UINT64 order) on random tensors of
every DataType the operators' tiers declare, specials included (NaN, ±0, ±inf, NaN payloads, integer extremes).
Every dmlops backend (reference, onnxruntime, torch) is checked, exactly: outputs are 1/0 of the declared output
type, and IF is compared bit for bit.
"""
import re

import numpy as np
import pytest

import dmlops
from dmlops.types import FeatureLevel, TensorDesc

from dmlops.enums import IsInfinityMode
from tests.onnx_node_cases import attribute, generated

torch = pytest.importorskip("torch")

BACKENDS = ("reference", "onnxruntime", "torch")
LATEST = FeatureLevel.latest()
INTEGER_TYPES = ("INT64", "INT32", "INT16", "INT8", "UINT64", "UINT32", "UINT16", "UINT8")
COMPARED_TYPES = ("FLOAT32", "FLOAT16") + INTEGER_TYPES
SELECTED_TYPES = ("FLOAT64", "FLOAT32", "FLOAT16") + INTEGER_TYPES
DATA_TYPES = {t.lower(): t for t in SELECTED_TYPES}


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


def assert_exact(got, want, what):
    """Equal dtypes, shapes and values (1/0 outputs, or a select compared bit for bit)."""
    got = np.asarray(got)
    assert got.dtype == want.dtype, what
    assert got.shape == want.shape, what
    if got.dtype.kind == "f":
        bits = np.dtype(f"u{got.dtype.itemsize}")
        np.testing.assert_array_equal(got.view(bits), want.view(bits), err_msg=what)
    else:
        np.testing.assert_array_equal(got, want, err_msg=what)


def torch_tensor(array):
    return torch.from_numpy(np.ascontiguousarray(array))


# ============================================================ ONNX node test cases
MODULES = ("equal", "greater", "less", "greater_or_equal", "less_or_equal", "and_", "or_", "xor", "not_", "isnan",
           "isinf", "where")
CASES = generated(MODULES)
COMPARE = {"Equal": "ElementWiseLogicalEquals", "Greater": "ElementWiseLogicalGreaterThan",
           "Less": "ElementWiseLogicalLessThan", "GreaterOrEqual": "ElementWiseLogicalGreaterThanOrEqual",
           "LessOrEqual": "ElementWiseLogicalLessThanOrEqual"}
LOGIC = {"And": "ElementWiseLogicalAnd", "Or": "ElementWiseLogicalOr", "Xor": "ElementWiseLogicalXor"}
SKIPPED = {r"test_equal_string.*": "DirectML has no string DataType"}


def _skip_reason(name):
    return next((why for pattern, why in SKIPPED.items() if re.match(pattern, name)), None)


def _dml(value):
    """A node-case array as a DirectML tensor's values: bool as UINT8 0/1."""
    return value.astype(np.uint8) if value.dtype == np.bool_ else value


def _descs(node, values, shape):
    """[(desc, inputs)] computing the ONNX node with DirectML operators (comparisons and IS_NAN into UINT8 and
    UINT32 outputs; logic keeps its input type, UINT8)."""
    op = node.op_type
    names = {"Where": ("ConditionTensor", "ATensor", "BTensor"), "Not": ("InputTensor",),
             "IsNaN": ("InputTensor",), "IsInf": ("InputTensor",)}.get(op, ("ATensor", "BTensor"))
    tensors, inputs = [], {}
    for name, v in zip(names, values):
        t, buffer = strided(DATA_TYPES[v.dtype.name], v, shape)
        tensors.append(t)
        inputs[name] = buffer
    fields = dict(zip([re.sub(r"(?<!^)(?=[A-Z])", "_", n).lower() for n in names], tensors))
    if op in COMPARE or op == "IsNaN":
        cls = getattr(dmlops, COMPARE.get(op, "ElementWiseIsNan"))
        return [(cls(**fields, output_tensor=TensorDesc(out, list(shape))), inputs) for out in ("UINT8", "UINT32")]
    if op in LOGIC or op == "Not":
        cls = getattr(dmlops, LOGIC.get(op, "ElementWiseLogicalNot"))
        return [(cls(**fields, output_tensor=TensorDesc("UINT8", list(shape))), inputs)]
    if op == "IsInf":
        positive, negative = attribute(node, "detect_positive", 1), attribute(node, "detect_negative", 1)
        mode = {(1, 1): "EITHER", (1, 0): "POSITIVE", (0, 1): "NEGATIVE"}[(positive, negative)]
        return [(dmlops.ElementWiseIsInfinity(**fields, output_tensor=TensorDesc("UINT8", list(shape)),
                                              infinity_mode=IsInfinityMode[mode]), inputs)]
    assert op == "Where"
    out = TensorDesc(tensors[1].data_type, list(shape))
    return [(dmlops.ElementWiseIf(**fields, output_tensor=out), inputs)]


def _onnx_params():
    for name in sorted(CASES):
        case = CASES[name]
        why = _skip_reason(name)
        yield pytest.param(name, False, id=name, marks=[pytest.mark.skip(reason=why)] if why else [])
        if not why and any(v.dtype == np.float32 for v in case.inputs):
            yield pytest.param(name, True, id=f"{name}-float16")


def test_every_node_module_has_cases():
    ops = {c.node.op_type for c in CASES.values()}
    assert ops == set(COMPARE) | set(LOGIC) | {"Not", "IsNaN", "IsInf", "Where"}


@pytest.mark.parametrize(("name", "float16"), list(_onnx_params()))
def test_matches_onnx_node_case(name, float16):
    case = CASES[name]
    values = list(case.inputs)
    expected = case.outputs[0]
    if float16:
        from onnx.reference import ReferenceEvaluator

        # The oracle: ONNX's reference evaluator on the float16 inputs.
        values = [v.astype(np.float16) if v.dtype == np.float32 else v for v in values]
        expected = ReferenceEvaluator(case.node).run(None, dict(zip(case.node.input, values)))[0]
    shape = np.broadcast_shapes(*(v.shape for v in values))
    for desc, inputs in _descs(case.node, [_dml(v) for v in values], shape):
        assert not desc.problems(LATEST), desc.problems(LATEST)
        want = _dml(expected).astype(desc.output_tensor.data_type.numpy_dtype)
        for backend, out in run_all(desc, inputs).items():
            assert_exact(out["OutputTensor"], want, f"{name} {desc.output_tensor.data_type.name} on {backend}")


# ============================================================ PyTorch / Python oracles
def random_values(rng, data_type, shape):
    """Values over the whole range of ``data_type`` with its extremes; floats with NaN, ±0 and ±inf."""
    dtype = np.dtype(data_type.lower())
    n = int(np.prod(shape))
    if dtype.kind == "f":
        v = (rng.standard_normal(n) * 4).astype(dtype)
        specials = np.array([np.nan, -np.nan, 0.0, -0.0, np.inf, -np.inf, 1.0, -1.0], dtype)
        at = rng.choice(n, size=min(n, 24), replace=False)
        v[at] = rng.choice(specials, size=at.size)
        return v.reshape(shape)
    info = np.iinfo(dtype)
    v = rng.integers(info.min, info.max, size=n, dtype=dtype, endpoint=True)
    # Small values too (the random ones are mostly huge), and the extremes.
    small = rng.integers(max(int(info.min), -3), 4, size=n).astype(dtype)
    v = np.where(rng.random(n) < 0.3, small, v)
    v[:2] = [info.min, info.max]
    return v.reshape(shape)


def with_ties(rng, a, b):
    """``b`` with a third of its elements equal to ``a`` (and a -0 against each +0 of ``a``)."""
    b = b.copy()
    tie = rng.random(a.shape) < 0.35
    b[tie] = a[tie]
    if a.dtype.kind == "f":
        with np.errstate(invalid="ignore"):
            b[tie & (a == 0)] = -a[tie & (a == 0)]
    return b


def oracle_compare(fn_name, a, b):
    """torch's comparison (uint16/uint32 widened to int64, exactly); UINT64 in Python integers."""
    if a.dtype == np.uint64:
        return np.array([getattr(int(x), f"__{fn_name}__")(int(y)) for x, y in zip(a.ravel(), b.ravel())],
                        bool).reshape(a.shape)
    ta, tb = torch_tensor(a), torch_tensor(b)
    if a.dtype in (np.uint16, np.uint32):
        ta, tb = ta.to(torch.int64), tb.to(torch.int64)
    return getattr(torch, fn_name)(ta, tb).numpy()  # float16 compared as float16 by torch


COMPARISONS = {"ElementWiseLogicalEquals": "eq", "ElementWiseLogicalGreaterThan": "gt",
               "ElementWiseLogicalLessThan": "lt", "ElementWiseLogicalGreaterThanOrEqual": "ge",
               "ElementWiseLogicalLessThanOrEqual": "le"}


@pytest.mark.parametrize("output_type", ["UINT8", "UINT32"])
@pytest.mark.parametrize("data_type", COMPARED_TYPES)
@pytest.mark.parametrize("cls_name", sorted(COMPARISONS))
def test_comparison_matches_torch(cls_name, data_type, output_type):
    rng = np.random.default_rng(sum(map(ord, cls_name + data_type + output_type)))
    shape = [3, 4, 5]
    a = random_values(rng, data_type, shape)
    b = with_ties(rng, a, random_values(rng, data_type, shape))
    t = TensorDesc(data_type, shape)
    desc = getattr(dmlops, cls_name)(a_tensor=t, b_tensor=t, output_tensor=TensorDesc(output_type, shape))
    want = oracle_compare(COMPARISONS[cls_name], a, b).astype(output_type.lower())
    for backend, out in run_all(desc, {"ATensor": a, "BTensor": b}).items():
        assert_exact(out["OutputTensor"], want, backend)


@pytest.mark.parametrize("cls_name", sorted(COMPARISONS))
def test_comparison_broadcast_rank8_matches_torch(cls_name):
    rng = np.random.default_rng(len(cls_name))
    shape = [2, 1, 3, 1, 2, 2, 1, 3]
    a = random_values(rng, "FLOAT32", shape)
    row = random_values(rng, "FLOAT32", [3])  # B: one value per index of the last axis, through zero strides
    tb, buffer = strided("FLOAT32", row, shape)
    desc = getattr(dmlops, cls_name)(a_tensor=TensorDesc("FLOAT32", shape), b_tensor=tb,
                                     output_tensor=TensorDesc("UINT8", shape))
    want = oracle_compare(COMPARISONS[cls_name], a, np.broadcast_to(row, shape).copy()).astype(np.uint8)
    for backend, out in run_all(desc, {"ATensor": a, "BTensor": buffer}).items():
        assert_exact(out["OutputTensor"], want, backend)


def test_unsigned_order_above_the_signed_range():
    """UINT64 at and above 2**63, UINT32 at and above 2**31: greater than the values below them (Python integers)."""
    for data_type, top in (("UINT64", 2**64), ("UINT32", 2**32)):
        half = top // 2
        a = np.array([top - 1, half, half - 1, 0, half, 1], dtype=data_type.lower())
        b = np.array([half, half - 1, half, top - 1, half, top - 1], dtype=data_type.lower())
        t = TensorDesc(data_type, [6])
        for cls_name, fn in COMPARISONS.items():
            desc = getattr(dmlops, cls_name)(a_tensor=t, b_tensor=t, output_tensor=TensorDesc("UINT8", [6]))
            want = np.array([getattr(int(x), f"__{fn}__")(int(y)) for x, y in zip(a, b)], np.uint8)
            for backend, out in run_all(desc, {"ATensor": a, "BTensor": b}).items():
                assert_exact(out["OutputTensor"], want, f"{cls_name} {data_type} on {backend}")


LOGIC_ORACLES = {"ElementWiseLogicalAnd": torch.logical_and, "ElementWiseLogicalOr": torch.logical_or,
                 "ElementWiseLogicalXor": torch.logical_xor}


def truth_values(rng, data_type, shape):
    """0, 1, 2, the type's maximum and random values: logic treats every nonzero value as true."""
    top = np.iinfo(np.dtype(data_type.lower())).max
    pool = np.array([0, 0, 0, 1, 1, 2, top, top // 3], dtype=data_type.lower())
    return rng.choice(pool, size=shape)


@pytest.mark.parametrize("data_type", ["UINT8", "UINT32"])
@pytest.mark.parametrize("cls_name", sorted(LOGIC_ORACLES))
def test_binary_logic_matches_torch(cls_name, data_type):
    rng = np.random.default_rng(sum(map(ord, cls_name + data_type)))
    shape = [4, 5, 6]
    a, b = truth_values(rng, data_type, shape), truth_values(rng, data_type, shape)
    t = TensorDesc(data_type, shape)
    desc = getattr(dmlops, cls_name)(a_tensor=t, b_tensor=t, output_tensor=t)
    # torch.logical_* on int64 copies (no uint32 kernels): nonzero is true there too.
    want = LOGIC_ORACLES[cls_name](torch_tensor(a).to(torch.int64), torch_tensor(b).to(torch.int64)).numpy()
    for backend, out in run_all(desc, {"ATensor": a, "BTensor": b}).items():
        assert_exact(out["OutputTensor"], want.astype(a.dtype), backend)


@pytest.mark.parametrize("data_type", ["UINT8", "UINT32"])
def test_logical_not_matches_torch(data_type):
    rng = np.random.default_rng(len(data_type))
    x = truth_values(rng, data_type, [4, 5, 6])
    t = TensorDesc(data_type, list(x.shape))
    want = torch.logical_not(torch_tensor(x).to(torch.int64)).numpy().astype(x.dtype)
    for backend, out in run_all(dmlops.ElementWiseLogicalNot(input_tensor=t, output_tensor=t),
                                {"InputTensor": x}).items():
        assert_exact(out["OutputTensor"], want, backend)


def float_bits(rng, data_type, shape):
    """Random bit patterns of a float type; ±inf, ±0, quiet and signaling NaNs with payloads and subnormals first."""
    dtype = np.dtype(data_type.lower())
    bits = np.dtype(f"u{dtype.itemsize}")
    v = rng.integers(0, np.iinfo(bits).max, size=shape, dtype=bits, endpoint=True)
    flat = v.reshape(-1)
    specials = {2: [0x7C00, 0xFC00, 0x0000, 0x8000, 0x7E00, 0xFE01, 0x0001, 0x7C01, 0xFD23],
                4: [0x7F800000, 0xFF800000, 0, 0x80000000, 0x7FC00000, 0xFFC00123, 0x00000001, 0x7F800001],
                8: [0x7FF0000000000000, 0xFFF0000000000000, 0, 2**63, 0x7FF8000000000000, 0xFFF8000000000123, 1,
                0x7FF0000000000001]}
    flat[: len(specials[dtype.itemsize])] = specials[dtype.itemsize]
    return v.view(dtype)


@pytest.mark.parametrize("output_type", ["UINT8", "UINT32"])
@pytest.mark.parametrize("data_type", ["FLOAT32", "FLOAT16"])
def test_is_nan_matches_torch(data_type, output_type):
    rng = np.random.default_rng(len(data_type + output_type))
    x = np.concatenate([float_bits(rng, data_type, [60]), random_values(rng, data_type, [60])]).reshape(2, 3, 4, 5)
    desc = dmlops.ElementWiseIsNan(input_tensor=TensorDesc(data_type, list(x.shape)),
                                   output_tensor=TensorDesc(output_type, list(x.shape)))
    want = torch.isnan(torch_tensor(x)).numpy().astype(output_type.lower())
    for backend, out in run_all(desc, {"InputTensor": x}).items():
        assert_exact(out["OutputTensor"], want, backend)


INFINITY_ORACLES = {"EITHER": torch.isinf, "POSITIVE": torch.isposinf, "NEGATIVE": torch.isneginf}


@pytest.mark.parametrize("data_type", ["FLOAT32", "FLOAT16"])
@pytest.mark.parametrize("mode", sorted(INFINITY_ORACLES))
def test_is_infinity_matches_torch(mode, data_type):
    rng = np.random.default_rng(len(mode + data_type))
    x = np.concatenate([float_bits(rng, data_type, [60]), random_values(rng, data_type, [60])]).reshape(2, 3, 4, 5)
    desc = dmlops.ElementWiseIsInfinity(input_tensor=TensorDesc(data_type, list(x.shape)),
                                        output_tensor=TensorDesc("UINT8", list(x.shape)),
                                        infinity_mode=IsInfinityMode[mode])
    want = INFINITY_ORACLES[mode](torch_tensor(x)).numpy().astype(np.uint8)
    for backend, out in run_all(desc, {"InputTensor": x}).items():
        assert_exact(out["OutputTensor"], want, backend)


def _quieted_float16(bits):
    """FLOAT16 bit patterns with every signaling NaN quieted (the quiet bit 0x0200 set)."""
    nan = (bits & 0x7C00) == 0x7C00
    nan &= (bits & 0x03FF) != 0
    return np.where(nan, bits | 0x0200, bits)


@pytest.mark.parametrize("data_type", SELECTED_TYPES)
def test_if_matches_torch_where_bit_for_bit(data_type):
    rng = np.random.default_rng(len(data_type) * 7 + SELECTED_TYPES.index(data_type))
    shape = [3, 4, 5]
    dtype = np.dtype(data_type.lower())
    make = float_bits if dtype.kind == "f" else random_values
    a, b = make(rng, data_type, shape), make(rng, data_type, shape)
    cond = rng.choice(np.array([0, 0, 1, 2, 7, 128, 255], np.uint8), size=shape)
    t = TensorDesc(data_type, shape)
    desc = dmlops.ElementWiseIf(condition_tensor=TensorDesc("UINT8", shape), a_tensor=t, b_tensor=t, output_tensor=t)
    # torch.where on the bit patterns (as signed integers of the same width: torch has no uint16/32/64 where).
    signed = np.dtype(f"i{dtype.itemsize}")
    want = torch.where(torch_tensor(cond).to(torch.bool), torch_tensor(a.view(signed)),
                       torch_tensor(b.view(signed))).numpy().view(dtype)
    for backend, out in run_all(desc, {"ConditionTensor": cond, "ATensor": a, "BTensor": b}).items():
        got = np.asarray(out["OutputTensor"])
        if data_type == "FLOAT16" and backend != "reference":
            # dmlops.lower computes FLOAT16 in float32 on these backends, and the float16 <-> float32 conversions
            # quiet a signaling NaN (0x7C01 -> 0x7E01); every other bit pattern is kept.
            assert got.dtype == want.dtype
            np.testing.assert_array_equal(got.view(np.uint16), _quieted_float16(want.view(np.uint16)), backend)
        else:
            assert_exact(got, want, backend)


def test_if_broadcast_and_minus_zero():
    """A -0 selected from either side stays -0 (ONNX Runtime's CPU Where would give +0); zero strides broadcast."""
    shape = [2, 3]
    cond = np.array([[1, 0, 255], [0, 3, 0]], np.uint8)
    ta, a = strided("FLOAT32", np.array([-0.0, np.nan], np.float32).reshape(2, 1), shape)
    tb, b = strided("FLOAT32", np.array([-0.0, 1.0, -np.inf], np.float32), shape)
    desc = dmlops.ElementWiseIf(condition_tensor=TensorDesc("UINT8", shape), a_tensor=ta, b_tensor=tb,
                                output_tensor=TensorDesc("FLOAT32", shape))
    want = np.array([[-0.0, 1.0, -0.0], [-0.0, np.nan, -np.inf]], np.float32)
    for backend, out in run_all(desc, {"ConditionTensor": cond, "ATensor": a, "BTensor": b}).items():
        assert_exact(out["OutputTensor"], want, backend)
