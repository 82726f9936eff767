"""B15 quantize (ELEMENT_WISE_QUANTIZE_LINEAR, ELEMENT_WISE_DEQUANTIZE_LINEAR, QUANTIZE, DEQUANTIZE,
DYNAMIC_QUANTIZE_LINEAR, ELEMENT_WISE_QUANTIZED_LINEAR_ADD) against independent implementations, on every dmlops
backend (reference, onnxruntime, torch).

Oracles: ONNX's node test cases (QuantizeLinear, DequantizeLinear incl. per-axis, blocked and 4-bit,
DynamicQuantizeLinear; tests/onnx_node_cases.py), onnx.reference's DynamicQuantizeLinear on random inputs, torch's
quantize_per_tensor / quantize_per_channel / dequantize on the CPU (power-of-two scales, so torch's x * (1 / scale)
is x / scale), and exact Python arithmetic (Fraction, round() half to even) for QUANTIZED_LINEAR_ADD, whose ONNX form
(com.microsoft QLinearAdd) is a contrib operator with its own fixed-point path. DirectML's own answers for the
element-wise pair are in tests/test_directml_vectors.py; where the node cases' ONNX semantics differ from DirectML's
(QUANTIZE's SCALE type on unsigned types: the midpoint zero point), the test maps the case as ONNX Runtime's DirectML
provider does (an explicit zero point of 0).
"""
import random
from fractions import Fraction

import numpy as np
import pytest

import dmlops
from dmlops import descs
from dmlops.enums import QuantizationType
from dmlops.types import DataType, TensorDesc
from tests.onnx_node_cases import attribute, generated

torch = pytest.importorskip("torch")
pytestmark = pytest.mark.filterwarnings("ignore:torch.quantize_per_tensor:UserWarning")

BACKENDS = ("reference", "onnxruntime", "torch")
TYPES = {"uint8": "UINT8", "int8": "INT8", "uint16": "UINT16", "int16": "INT16", "int32": "INT32", "uint32": "UINT32",
         "int4": "INT4", "uint4": "UINT4", "float32": "FLOAT32", "float16": "FLOAT16"}
FOUR_BIT = ("INT4", "UINT4")


def _torch_has_four_bit() -> bool:
    from dmlops.backends import torch as torch_backend

    try:
        torch_backend.torch_dtype(torch, DataType.INT4)
    except dmlops.DmlOpsError:
        return False
    return True


def backends_for(*types):
    """The backends to run: torch only where dmlops' torch backend carries INT4 / UINT4 (see the report)."""
    if any(t in FOUR_BIT for t in types) and not _torch_has_four_bit():
        return ("reference", "onnxruntime")
    return BACKENDS


def run_all(desc, inputs, backends=BACKENDS):
    """{backend: outputs} for the dmlops backends."""
    return {b: {k: np.asarray(v) for k, v in dmlops.run(desc, inputs, backend=b).items()} for b in backends}


def assert_same(got, want, what, atol=0.0, rtol=0.0):
    want = np.asarray(want)
    assert got.shape == want.shape and got.dtype == want.dtype, f"{what}: {got.dtype}{got.shape} {want.dtype}{want.shape}"
    if want.dtype.kind in "iu":
        np.testing.assert_array_equal(got, want, err_msg=what)
    else:
        np.testing.assert_allclose(got.astype(np.float64), want.astype(np.float64), atol=atol, rtol=rtol,
                                   equal_nan=True, err_msg=what)


def dml_type(array) -> str:
    return TYPES[np.dtype(array.dtype).name]


def carrier(array) -> np.ndarray:
    """An ONNX 4-bit array (ml_dtypes int4/uint4) as dmlops' int8/uint8 carrier; other arrays unchanged."""
    name = np.dtype(array.dtype).name
    if name in ("int4", "uint4"):
        return np.asarray(array).astype(np.int8 if name == "int4" else np.uint8)
    return np.asarray(array)


# ----------------------------------------------------------------------------------------------- ONNX node cases
def _broadcast(node, x_shape, q):
    """(Sizes, Strides, buffer) of a scale / zero point read through strides over ``x_shape`` (ONNX's rules:
    a scalar or 1-element tensor is per-tensor, a 1-D tensor lies along ``axis``)."""
    rank = len(x_shape)
    q = np.asarray(q)
    if q.size == 1:
        return list(x_shape), [0] * rank, q.reshape(1)
    axis = attribute(node, "axis", 1) % rank
    strides = [0] * rank
    strides[axis] = 1
    return list(x_shape), strides, q.reshape(-1)


def _per_axis_sizes(node, x_shape, q):
    """QUANTIZE / DEQUANTIZE's quantization tensor Sizes for an ONNX scale (per-tensor, per-axis or blocked)."""
    rank = len(x_shape)
    q = np.asarray(q)
    if q.ndim == rank:  # blocked: the ONNX scale already has the input's rank
        return q
    if q.size == 1:
        return q.reshape([1] * rank)
    axis = attribute(node, "axis", 1) % rank
    shape = [1] * rank
    shape[axis] = q.size
    return q.reshape(shape)


def _node_cases(module, op_type):
    cases = generated([module])
    return {name: c for name, c in cases.items() if c.node.op_type == op_type}


QUANTIZE_CASES = _node_cases("quantizelinear", "QuantizeLinear")
DEQUANTIZE_CASES = _node_cases("dequantizelinear", "DequantizeLinear")
DYNAMIC_CASES = _node_cases("dynamicquantizelinear", "DynamicQuantizeLinear")


def _usable(case, types):
    return all(np.dtype(a.dtype).name in types for a in list(case.inputs) + list(case.outputs))


ELEMENT_WISE_Q = sorted(n for n, c in QUANTIZE_CASES.items()
                        if _usable(c, ("float32", "uint8", "int8")) and attribute(c.node, "block_size", 0) == 0)
BLOCKED_OR_FOUR_BIT_Q = sorted(n for n, c in QUANTIZE_CASES.items()
                               if _usable(c, ("float32", "float16", "uint8", "int8", "int4", "uint4")))
ELEMENT_WISE_DQ = sorted(n for n, c in DEQUANTIZE_CASES.items()
                         if _usable(c, ("float32", "uint8", "int8", "int16", "uint16", "int32"))
                         and attribute(c.node, "block_size", 0) == 0)
BLOCKED_OR_FOUR_BIT_DQ = sorted(n for n, c in DEQUANTIZE_CASES.items()
                                if _usable(c, ("float32", "float16", "uint8", "int8", "int4", "uint4")))


def test_the_node_cases_we_rely_on_are_there():
    assert {"test_quantizelinear", "test_quantizelinear_axis"} <= set(ELEMENT_WISE_Q)
    assert {"test_quantizelinear_blocked_asymmetric", "test_quantizelinear_int4", "test_quantizelinear_uint4"} <= \
        set(BLOCKED_OR_FOUR_BIT_Q)
    assert {"test_dequantizelinear", "test_dequantizelinear_axis", "test_dequantizelinear_int16"} <= set(ELEMENT_WISE_DQ)
    assert {"test_dequantizelinear_blocked", "test_dequantizelinear_int4", "test_dequantizelinear_uint4"} <= \
        set(BLOCKED_OR_FOUR_BIT_DQ)
    assert len(DYNAMIC_CASES) == 3


@pytest.mark.parametrize("name", ELEMENT_WISE_Q)
def test_element_wise_quantize_linear_matches_onnx_node_cases(name):
    case = QUANTIZE_CASES[name]
    x, scale = case.inputs[0], case.inputs[1]
    zp = case.inputs[2] if len(case.inputs) > 2 else None
    y = case.outputs[0]
    sizes, strides, scale_buffer = _broadcast(case.node, x.shape, scale)
    out_t = dml_type(y)
    desc = descs.ElementWiseQuantizeLinear(
        input_tensor=TensorDesc("FLOAT32", sizes), scale_tensor=TensorDesc("FLOAT32", sizes, strides),
        zero_point_tensor=None if zp is None else TensorDesc(out_t, sizes, strides),
        output_tensor=TensorDesc(out_t, sizes))
    inputs = {"InputTensor": x, "ScaleTensor": scale_buffer}
    if zp is not None:
        inputs["ZeroPointTensor"] = _broadcast(case.node, x.shape, zp)[2]
    for b, out in run_all(desc, inputs).items():
        assert_same(out["OutputTensor"], y, f"{name} on {b}")


@pytest.mark.parametrize("name", BLOCKED_OR_FOUR_BIT_Q)
def test_quantize_matches_onnx_node_cases(name):
    """QUANTIZE with ONNX's scale / zero point (per-tensor, per-axis, blocked; UINT8, INT8, INT4, UINT4). A missing
    ONNX zero point is passed as an explicit 0, as ONNX Runtime's DirectML provider does (SCALE alone would mean the
    midpoint for unsigned types)."""
    case = QUANTIZE_CASES[name]
    x, scale = case.inputs[0], case.inputs[1]
    y = carrier(case.outputs[0])
    out_t = dml_type(case.outputs[0])
    zp = carrier(case.inputs[2]) if len(case.inputs) > 2 else np.zeros(np.shape(scale), y.dtype)
    s = _per_axis_sizes(case.node, x.shape, scale)
    z = _per_axis_sizes(case.node, x.shape, zp).astype(y.dtype)
    in_t = dml_type(x)
    desc = descs.Quantize(input_tensor=TensorDesc(in_t, list(x.shape)),
                          quantization_type=QuantizationType.SCALE_ZERO_POINT,
                          quantization_tensors=(TensorDesc(in_t, list(s.shape)), TensorDesc(out_t, list(z.shape))),
                          output_tensor=TensorDesc(out_t, list(x.shape)))
    assert dmlops.problems(desc, "6.4") == []
    inputs = {"InputTensor": x, "QuantizationTensors[0]": s, "QuantizationTensors[1]": z}
    for b, out in run_all(desc, inputs, backends_for(out_t)).items():
        assert_same(out["OutputTensor"], y, f"{name} on {b}")


@pytest.mark.parametrize("name", ELEMENT_WISE_DQ)
def test_element_wise_dequantize_linear_matches_onnx_node_cases(name):
    case = DEQUANTIZE_CASES[name]
    x, scale = case.inputs[0], case.inputs[1]
    zp = case.inputs[2] if len(case.inputs) > 2 else None
    y = case.outputs[0]
    sizes, strides, scale_buffer = _broadcast(case.node, x.shape, scale)
    in_t = dml_type(x)
    desc = descs.ElementWiseDequantizeLinear(
        input_tensor=TensorDesc(in_t, sizes), scale_tensor=TensorDesc("FLOAT32", sizes, strides),
        zero_point_tensor=None if zp is None else TensorDesc(in_t, sizes, strides),
        output_tensor=TensorDesc("FLOAT32", sizes))
    inputs = {"InputTensor": x, "ScaleTensor": scale_buffer}
    if zp is not None:
        inputs["ZeroPointTensor"] = _broadcast(case.node, x.shape, zp)[2]
    for b, out in run_all(desc, inputs).items():
        assert_same(out["OutputTensor"], y, f"{name} on {b}")


@pytest.mark.parametrize("name", BLOCKED_OR_FOUR_BIT_DQ)
def test_dequantize_matches_onnx_node_cases(name):
    case = DEQUANTIZE_CASES[name]
    x = carrier(case.inputs[0])
    scale = np.asarray(case.inputs[1])
    in_t = dml_type(case.inputs[0])
    zp = carrier(case.inputs[2]) if len(case.inputs) > 2 else np.zeros(np.shape(scale), x.dtype)
    y = case.outputs[0]
    out_t = dml_type(y)
    s = _per_axis_sizes(case.node, x.shape, scale)
    z = _per_axis_sizes(case.node, x.shape, zp).astype(x.dtype)
    desc = descs.Dequantize(input_tensor=TensorDesc(in_t, list(x.shape)),
                            quantization_type=QuantizationType.SCALE_ZERO_POINT,
                            quantization_tensors=(TensorDesc(out_t, list(s.shape)), TensorDesc(in_t, list(z.shape))),
                            output_tensor=TensorDesc(out_t, list(x.shape)))
    assert dmlops.problems(desc, "6.4") == []
    inputs = {"InputTensor": x, "QuantizationTensors[0]": s, "QuantizationTensors[1]": z}
    for b, out in run_all(desc, inputs, backends_for(in_t)).items():
        assert_same(out["OutputTensor"], y, f"{name} on {b}")


def _dynamic_desc(shape, out_t="UINT8", in_t="FLOAT32"):
    one = [1] * len(shape)
    return descs.DynamicQuantizeLinear(input_tensor=TensorDesc(in_t, list(shape)),
                                       output_tensor=TensorDesc(out_t, list(shape)),
                                       output_scale_tensor=TensorDesc("FLOAT32", one),
                                       output_zero_point_tensor=TensorDesc(out_t, one))


@pytest.mark.parametrize("name", sorted(DYNAMIC_CASES))
def test_dynamic_quantize_linear_matches_onnx_node_cases(name):
    case = DYNAMIC_CASES[name]
    x = case.inputs[0]
    y, scale, zp = case.outputs
    desc = _dynamic_desc(x.shape)
    one = (1,) * x.ndim
    for b, out in run_all(desc, {"InputTensor": x}).items():
        assert_same(out["OutputTensor"], y, f"{name} on {b}")
        assert_same(out["OutputScaleTensor"], np.asarray(scale, np.float32).reshape(one), f"{name} scale on {b}")
        assert_same(out["OutputZeroPointTensor"], np.asarray(zp).reshape(one), f"{name} zero point on {b}")


def _onnx_reference_dynamic(x):
    from onnx import TensorProto as T
    from onnx import helper as h
    from onnx.reference import ReferenceEvaluator

    node = h.make_node("DynamicQuantizeLinear", ["x"], ["y", "s", "z"])
    graph = h.make_graph([node], "g", [h.make_tensor_value_info("x", T.FLOAT, list(x.shape))],
                         [h.make_tensor_value_info("y", T.UINT8, None), h.make_tensor_value_info("s", T.FLOAT, None),
                          h.make_tensor_value_info("z", T.UINT8, None)])
    model = h.make_model(graph, opset_imports=[h.make_opsetid("", 11)])
    return ReferenceEvaluator(model).run(None, {"x": x})


@pytest.mark.parametrize("seed", range(6))
def test_dynamic_quantize_linear_matches_onnx_reference_on_random_inputs(seed):
    """onnx.reference divides the range by 255; DirectML multiplies it by float32(1 / 255) (its sample_uint8_basic:
    0.020000001, not 0.019999999). So the expected values are DirectML's formula in float32 NumPy steps, and
    onnx.reference must agree with them within one float32 step in the scale and one quantization step elsewhere."""
    rng = np.random.default_rng(seed)
    shape = (3, 5)
    x = (rng.standard_normal(shape) * [0.1, 3, 100][seed % 3] + [0, 2, -1][seed % 3]).astype(np.float32)
    if seed >= 4:  # all positive / all negative: 0 joins the range
        x = np.abs(x) * (1 if seed == 4 else -1)
    mn, mx = min(x.min(), np.float32(0)), max(x.max(), np.float32(0))
    scale = np.float32((mx - mn) * (np.float32(1) / np.float32(255)))
    zp = np.clip(np.rint(np.float32(0) - mn / scale), 0, 255).astype(np.uint8)
    y = np.clip(np.rint(x / scale) + np.float32(zp), 0, 255).astype(np.uint8)
    y_onnx, scale_onnx, zp_onnx = _onnx_reference_dynamic(x)
    assert abs(int(scale.view(np.int32)) - int(np.float32(scale_onnx).view(np.int32))) <= 1
    assert abs(int(zp) - int(zp_onnx)) <= 1 and np.abs(y.astype(int) - y_onnx.astype(int)).max() <= 1
    for b, out in run_all(_dynamic_desc(shape), {"InputTensor": x}).items():
        assert_same(out["OutputScaleTensor"], np.array([[scale]], np.float32), f"scale on {b}")
        assert_same(out["OutputZeroPointTensor"], np.array([[zp]], np.uint8), f"zero point on {b}")
        assert_same(out["OutputTensor"], y, f"output on {b}")


def test_dynamic_quantize_linear_scale_is_directml_s():
    """DirectML's own answer (vector sample_uint8_basic) and the rule on new ranges where the reciprocal and the
    division round apart: [-1.5, 3.6] -> 0.020000001 (division: 0.019999999)."""
    found = 0
    for x in ([-1.5, 0, 2.04, 3.6], [0.7, 3.3, -0.1], [-9.9, 1.1]):
        x = np.array(x, np.float32)
        rng = max(x.max(), 0) - min(x.min(), 0)
        want = np.float32(rng * (np.float32(1) / np.float32(255)))
        found += want != np.float32(rng / np.float32(255))
        for b, out in run_all(_dynamic_desc(x.shape), {"InputTensor": x}).items():
            assert_same(out["OutputScaleTensor"], np.array([want], np.float32), f"scale of {x} on {b}")
    assert found >= 2  # the two formulas do part on these inputs
    assert np.float32(5.1) * (np.float32(1) / np.float32(255)) == np.float32(0.020000001415610313)


def test_dynamic_quantize_linear_int8_by_hand():
    """INT8 (no ONNX operator): range [-2, 6] (0 inside), scale 8 / 255, zero point round(-128 + 2 / scale) =
    round(-64.25) = -64; Output = round(x / scale) - 64, each step in float32 (the scale is not a power of two, so
    the expected values are computed with float32 NumPy steps, then checked by hand for the ends)."""
    x = np.array([-2, 0, 1, 6, 3.3], np.float32)
    scale = np.float32(8) / np.float32(255)
    zp = int(np.rint(np.float32(-128) - np.float32(-2) / scale))
    assert zp == -64
    q = np.clip(np.rint(x / scale) + zp, -128, 127).astype(np.int8)
    assert q[0] == -128 and q[3] == 127 and q[1] == -64
    for b, out in run_all(_dynamic_desc([5], "INT8"), {"InputTensor": x}).items():
        assert_same(out["OutputTensor"], q, f"output on {b}")
        assert_same(out["OutputScaleTensor"], np.array([scale], np.float32), f"scale on {b}")
        assert_same(out["OutputZeroPointTensor"], np.array([zp], np.int8), f"zero point on {b}")


def test_dynamic_quantize_linear_float16_input():
    """FLOAT16 inputs are read into float32: the result equals the FLOAT32 operator on the same values."""
    x = np.array([-1.5, 0.25, 2, 7.75], np.float16)
    want = dmlops.run(_dynamic_desc([4]), {"InputTensor": x.astype(np.float32)}, backend="reference")
    for b, out in run_all(_dynamic_desc([4], in_t="FLOAT16"), {"InputTensor": x}).items():
        for k in want:
            assert_same(out[k], want[k], f"{k} on {b}")


# ----------------------------------------------------------------------------------------------- torch
def _torch_quantize(x, scale, zp, dtype, axis=None):
    t = torch.from_numpy(x)
    if axis is None:
        q = torch.quantize_per_tensor(t, float(scale), int(zp), dtype)
    else:
        q = torch.quantize_per_channel(t, torch.from_numpy(scale.astype(np.float64)),
                                       torch.from_numpy(zp.astype(np.int64)), axis, dtype)
    return q.int_repr().numpy(), torch.dequantize(q).numpy()


@pytest.mark.parametrize("qtype,out_t", [(torch.quint8, "UINT8"), (torch.qint8, "INT8")])
@pytest.mark.parametrize("seed", range(3))
def test_quantize_pair_matches_torch_per_tensor(qtype, out_t, seed):
    """ELEMENT_WISE_QUANTIZE_LINEAR vs torch.quantize_per_tensor (scale 2**-3, so torch's multiply by 1 / scale is
    the division; ties x = (k + 0.5) * scale included), then ELEMENT_WISE_DEQUANTIZE_LINEAR vs torch.dequantize.
    The zero points are even: torch rounds x / scale + zero_point where DirectML's docs (and ONNX) round x / scale
    and then add the zero point, which differ at ties when the zero point is odd (see the test below)."""
    rng = np.random.default_rng(seed)
    scale, zp = np.float32(0.125), (100 if out_t == "UINT8" else -8)
    x = (rng.integers(-2400, 2400, 64) / 16).astype(np.float32)  # multiples of 1/16: many ties at 1/8 steps
    want_q, want_x = _torch_quantize(x, scale, zp, qtype)
    dtype = np.uint8 if out_t == "UINT8" else np.int8
    sizes = [64]
    qdesc = descs.ElementWiseQuantizeLinear(input_tensor=TensorDesc("FLOAT32", sizes),
                                            scale_tensor=TensorDesc("FLOAT32", sizes, [0]),
                                            zero_point_tensor=TensorDesc(out_t, sizes, [0]),
                                            output_tensor=TensorDesc(out_t, sizes))
    ddesc = descs.ElementWiseDequantizeLinear(input_tensor=TensorDesc(out_t, sizes),
                                              scale_tensor=TensorDesc("FLOAT32", sizes, [0]),
                                              zero_point_tensor=TensorDesc(out_t, sizes, [0]),
                                              output_tensor=TensorDesc("FLOAT32", sizes))
    s, z = np.array([scale], np.float32), np.array([zp], dtype)
    for b in BACKENDS:
        q = np.asarray(dmlops.run(qdesc, {"InputTensor": x, "ScaleTensor": s, "ZeroPointTensor": z},
                                  backend=b)["OutputTensor"])
        assert_same(q, want_q.astype(dtype), f"quantize on {b}")
        back = np.asarray(dmlops.run(ddesc, {"InputTensor": q, "ScaleTensor": s, "ZeroPointTensor": z},
                                     backend=b)["OutputTensor"])
        assert_same(back, want_x.astype(np.float32), f"dequantize on {b}")


@pytest.mark.parametrize("qtype,out_t", [(torch.quint8, "UINT8"), (torch.qint8, "INT8")])
def test_quantize_matches_torch_per_channel(qtype, out_t):
    """QUANTIZE with per-channel tensors {1, 3, 1} vs torch.quantize_per_channel (axis 1), and DEQUANTIZE back."""
    rng = np.random.default_rng(7)
    x = (rng.integers(-900, 900, (2, 3, 4)) / 8).astype(np.float32)
    scale = np.array([0.25, 0.5, 2], np.float32)
    zp = np.array([4, 128, 200], np.uint8) if out_t == "UINT8" else np.array([-6, 0, 20], np.int8)  # even: above
    want_q, want_x = _torch_quantize(x, scale, zp, qtype, axis=1)
    tensors = (TensorDesc("FLOAT32", [1, 3, 1]), TensorDesc(out_t, [1, 3, 1]))
    qdesc = descs.Quantize(input_tensor=TensorDesc("FLOAT32", [2, 3, 4]),
                           quantization_type=QuantizationType.SCALE_ZERO_POINT, quantization_tensors=tensors,
                           output_tensor=TensorDesc(out_t, [2, 3, 4]))
    ddesc = descs.Dequantize(input_tensor=TensorDesc(out_t, [2, 3, 4]),
                             quantization_type=QuantizationType.SCALE_ZERO_POINT, quantization_tensors=tensors,
                             output_tensor=TensorDesc("FLOAT32", [2, 3, 4]))
    q_in = {"QuantizationTensors[0]": scale.reshape(1, 3, 1), "QuantizationTensors[1]": zp.reshape(1, 3, 1)}
    for b in BACKENDS:
        q = np.asarray(dmlops.run(qdesc, {"InputTensor": x, **q_in}, backend=b)["OutputTensor"])
        assert_same(q, want_q.astype(zp.dtype), f"quantize on {b}")
        back = np.asarray(dmlops.run(ddesc, {"InputTensor": q, **q_in}, backend=b)["OutputTensor"])
        assert_same(back, want_x.astype(np.float32), f"dequantize on {b}")


def test_odd_zero_points_round_before_the_add_unlike_torch():
    """round(x / scale) + zero_point (DirectML's docs, ONNX QuantizeLinear): 2.5 -> 2, + 7 = 9. torch's
    quantize_per_tensor rounds 2.5 + 7 = 9.5 -> 10. DirectML's vectors have only even zero points (128, 10, 250, 0 and
    0, 10, -10), so the docs decide."""
    x = np.array([2.5, 3.5, -2.5], np.float32)
    torch_q, _ = _torch_quantize(x, np.float32(1), 7, torch.qint8)
    assert torch_q.tolist() == [10, 10, 4]
    desc = descs.ElementWiseQuantizeLinear(input_tensor=TensorDesc("FLOAT32", [3]),
                                           scale_tensor=TensorDesc("FLOAT32", [3], [0]),
                                           zero_point_tensor=TensorDesc("INT8", [3], [0]),
                                           output_tensor=TensorDesc("INT8", [3]))
    inputs = {"InputTensor": x, "ScaleTensor": np.ones(1, np.float32), "ZeroPointTensor": np.array([7], np.int8)}
    for b, out in run_all(desc, inputs).items():
        assert_same(out["OutputTensor"], np.array([9, 11, 5], np.int8), f"on {b}")


# ----------------------------------------------------------------------------------------------- by hand
def _round_half_even(f: Fraction) -> int:
    return round(f)  # Python rounds a Fraction half to even


def _quantize_exact(value: Fraction, scale: Fraction, zp: int, lo: int, hi: int) -> int:
    return min(max(_round_half_even(value / scale) + zp, lo), hi)


def _add_desc(a_t, b_t, out_t, n, zero_points=True):
    one = [1]
    zp = (lambda t: TensorDesc(t, one)) if zero_points else (lambda t: None)  # noqa: E731
    return descs.ElementWiseQuantizedLinearAdd(
        a_tensor=TensorDesc(a_t, [n]), a_scale_tensor=TensorDesc("FLOAT32", one), a_zero_point_tensor=zp(a_t),
        b_tensor=TensorDesc(b_t, [n]), b_scale_tensor=TensorDesc("FLOAT32", one), b_zero_point_tensor=zp(b_t),
        output_scale_tensor=TensorDesc("FLOAT32", one), output_zero_point_tensor=zp(out_t),
        output_tensor=TensorDesc(out_t, [n]))


RANGES = {"UINT8": (0, 255), "INT8": (-128, 127)}


@pytest.mark.parametrize("a_t,b_t,out_t", [("UINT8", "UINT8", "UINT8"), ("INT8", "INT8", "INT8"),
                                           ("UINT8", "INT8", "INT8"), ("INT8", "UINT8", "UINT8")])
@pytest.mark.parametrize("seed", range(3))
def test_quantized_linear_add_matches_exact_arithmetic(a_t, b_t, out_t, seed):
    """Power-of-two scales keep every float32 step exact, so Fraction arithmetic with round() half to even is the
    oracle (ties included: the output scale is coarser than the input scales)."""
    rnd = random.Random(seed)
    n = 48
    scales = [Fraction(1, 2 ** rnd.randint(0, 4)) for _ in range(2)] + [Fraction(2 ** rnd.randint(-1, 2))]
    zps = [rnd.randint(*RANGES[t]) // 2 for t in (a_t, b_t, out_t)]
    a = [rnd.randint(*RANGES[a_t]) for _ in range(n)]
    b = [rnd.randint(*RANGES[b_t]) for _ in range(n)]
    lo, hi = RANGES[out_t]
    want = [_quantize_exact((ai - zps[0]) * scales[0] + (bi - zps[1]) * scales[1], scales[2], zps[2], lo, hi)
            for ai, bi in zip(a, b)]
    np_t = {t: np.dtype(t.lower()) for t in RANGES}
    inputs = {"ATensor": np.array(a, np_t[a_t]), "AScaleTensor": np.array([float(scales[0])], np.float32),
              "AZeroPointTensor": np.array([zps[0]], np_t[a_t]),
              "BTensor": np.array(b, np_t[b_t]), "BScaleTensor": np.array([float(scales[1])], np.float32),
              "BZeroPointTensor": np.array([zps[1]], np_t[b_t]),
              "OutputScaleTensor": np.array([float(scales[2])], np.float32),
              "OutputZeroPointTensor": np.array([zps[2]], np_t[out_t])}
    for b_, out in run_all(_add_desc(a_t, b_t, out_t, n), inputs).items():
        assert_same(out["OutputTensor"], np.array(want, np_t[out_t]), f"QUANTIZED_LINEAR_ADD on {b_}")


def test_quantized_linear_add_without_zero_points_and_with_a_broadcast_operand():
    """Absent zero points are 0; B broadcast through zero Strides: (A + 3) / 2 with ties -> half to even."""
    n = 6
    desc = _add_desc("INT8", "INT8", "INT8", n, zero_points=False).replace(
        b_tensor=TensorDesc("INT8", [n], [0]))
    inputs = {"ATensor": np.array([-4, -2, 0, 2, 4, 127], np.int8), "AScaleTensor": np.ones(1, np.float32),
              "BTensor": np.array([3], np.int8), "BScaleTensor": np.ones(1, np.float32),
              "OutputScaleTensor": np.full(1, 2, np.float32)}
    # (A + 3) / 2 = [-0.5, 0.5, 1.5, 2.5, 3.5, 65] -> [-0, 0, 2, 2, 4, 65]
    for b, out in run_all(desc, inputs).items():
        assert_same(out["OutputTensor"], np.array([0, 0, 2, 2, 4, 65], np.int8), f"on {b}")


def test_quantize_rounding_saturation_and_nan_follow_directml_vectors():
    """The rules ELEMENT_WISE_QUANTIZE_LINEAR's vectors show (half to even, saturation, NaN -> 0 even with zero
    point 128) hold for QUANTIZE too, on every backend."""
    x = np.array([0.5, 1.5, -0.5, 2.5, np.nan, np.inf, -np.inf, 1e9], np.float32)
    for out_t, zp, want in (("UINT8", 128, [128, 130, 128, 130, 0, 255, 0, 255]),
                            ("INT8", 0, [0, 2, 0, 2, 0, 127, -128, 127]),
                            ("UINT4", 8, [8, 10, 8, 10, 0, 15, 0, 15]),
                            ("INT4", 0, [0, 2, 0, 2, 0, 7, -8, 7])):
        np_t = np.uint8 if out_t.startswith("U") else np.int8
        tensors = (TensorDesc("FLOAT32", [1]), TensorDesc(out_t, [1]))
        desc = descs.Quantize(input_tensor=TensorDesc("FLOAT32", [8]),
                              quantization_type=QuantizationType.SCALE_ZERO_POINT, quantization_tensors=tensors,
                              output_tensor=TensorDesc(out_t, [8]))
        inputs = {"InputTensor": x, "QuantizationTensors[0]": np.ones(1, np.float32),
                  "QuantizationTensors[1]": np.array([zp], np_t)}
        for b, out in run_all(desc, inputs, backends_for(out_t)).items():
            assert_same(out["OutputTensor"], np.array(want, np_t), f"{out_t} on {b}")


def test_scale_alone_uses_the_midpoint_for_unsigned_types_only():
    """QUANTIZE / DEQUANTIZE with SCALE: zero point 128 (UINT8), 8 (UINT4), 0 (INT8, INT4)."""
    for t, zp in (("UINT8", 128), ("UINT4", 8), ("INT8", 0), ("INT4", 0)):
        np_t = np.uint8 if t.startswith("U") else np.int8
        q = (TensorDesc("FLOAT32", [1]),)
        qdesc = descs.Quantize(input_tensor=TensorDesc("FLOAT32", [3]), quantization_type=QuantizationType.SCALE,
                               quantization_tensors=q, output_tensor=TensorDesc(t, [3]))
        ddesc = descs.Dequantize(input_tensor=TensorDesc(t, [3]), quantization_type=QuantizationType.SCALE,
                                 quantization_tensors=q, output_tensor=TensorDesc("FLOAT32", [3]))
        for b in backends_for(t):
            got = np.asarray(dmlops.run(qdesc, {"InputTensor": np.array([0, 1, -1], np.float32),
                                                "QuantizationTensors[0]": np.ones(1, np.float32)},
                                        backend=b)["OutputTensor"])
            assert_same(got, np.array([zp, zp + 1, zp - 1], np_t), f"QUANTIZE {t} on {b}")
            back = np.asarray(dmlops.run(ddesc, {"InputTensor": got, "QuantizationTensors[0]": np.ones(1, np.float32)},
                                         backend=b)["OutputTensor"])
            assert_same(back, np.array([0, 1, -1], np.float32), f"DEQUANTIZE {t} on {b}")


# ----------------------------------------------------------------------------------------------- refusals
def _quantize_desc(kind, tensors, sizes=(2, 4), out_t="UINT8"):
    return descs.Quantize(input_tensor=TensorDesc("FLOAT32", list(sizes)), quantization_type=kind,
                          quantization_tensors=tuple(tensors), output_tensor=TensorDesc(out_t, list(sizes)))


def test_quantize_refuses_none_type_wrong_counts_and_uneven_blocks():
    found = [str(p) for p in dmlops.problems(_quantize_desc(QuantizationType.NONE, [TensorDesc("FLOAT32", [1, 1])]),
                                             "6.4")]
    assert any("QuantizationType: DML_QUANTIZATION_TYPE_NONE is not allowed" in p for p in found), found
    found = [str(p) for p in dmlops.problems(_quantize_desc(QuantizationType.SCALE_ZERO_POINT,
                                                            [TensorDesc("FLOAT32", [1, 1])]), "6.4")]
    assert any("QuantizationTensorCount: 1 tensor given; DML_QUANTIZATION_TYPE_SCALE_ZERO_POINT takes 2" in p
               for p in found), found
    found = [str(p) for p in dmlops.problems(_quantize_desc(QuantizationType.SCALE, [TensorDesc("FLOAT32", [1, 3])]),
                                             "6.4")]
    assert any("QuantizationTensors[0]: Sizes [1, 3] do not divide InputTensor Sizes [2, 4] into equal blocks" in p
               for p in found), found
    found = [str(p) for p in dmlops.problems(_quantize_desc(QuantizationType.SCALE_ZERO_POINT,
                                                            [TensorDesc("FLOAT32", [1, 1]), TensorDesc("INT8", [1, 1])]),
                                             "6.4")]
    assert any("the zero point has DataType INT8; it must have OutputTensor's DataType UINT8" in p for p in found), found


def test_quantize_and_dequantize_need_feature_level_6_3():
    desc = _quantize_desc(QuantizationType.SCALE, [TensorDesc("FLOAT32", [1, 1])])
    found = [str(p) for p in dmlops.problems(desc, "6.2")]
    assert any("QUANTIZE was introduced in DML_FEATURE_LEVEL_6_3" in p for p in found), found


def test_dynamic_quantize_linear_refuses_more_than_one_scale_element():
    desc = _dynamic_desc([4]).replace(output_scale_tensor=TensorDesc("FLOAT32", [2]))
    found = [str(p) for p in dmlops.problems(desc, "6.4")]
    assert any("OutputScaleTensor: Sizes [2] hold 2 elements; exactly 1 is expected." in p for p in found), found


def test_quantized_linear_add_refuses_per_channel_scales():
    desc = _add_desc("INT8", "INT8", "INT8", 4).replace(a_scale_tensor=TensorDesc("FLOAT32", [4]))
    found = [str(p) for p in dmlops.problems(desc, "6.4")]
    assert any("AScaleTensor: Sizes [4] hold 4 elements; exactly 1 is expected." in p for p in found), found
