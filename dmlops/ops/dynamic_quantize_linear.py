"""DML_OPERATOR_DYNAMIC_QUANTIZE_LINEAR: shape rules the descriptor file cannot express.

From the docs: "The expected number of elements in OutputScaleTensor is 1" and in
OutputZeroPointTensor "is 1" (one scale and zero point for the whole tensor); OutputTensor, the
quantized InputTensor, has InputTensor's Sizes (element-wise). The four tensors share a
DimensionCount and OutputTensor and OutputZeroPointTensor a DataType (the descriptor's 'same' rules).

Math: ONNX DynamicQuantizeLinear's, which ONNX Runtime's DirectML provider maps onto this operator (uint8 and int8):

    InputMin = min(min(Input), 0), InputMax = max(max(Input), 0)      (the range always holds 0)
    OutputScale = (InputMax - InputMin) * (1 / (qmax - qmin))          ([0, 255] for UINT8, [-128, 127] for INT8)
    OutputZeroPoint = clamp(round(qmin - InputMin / OutputScale))     (round half to even, saturated)
    Output = clamp(round(Input / OutputScale) + OutputZeroPoint)      (dmlops.ops._quantize's quantize)

all in float32, 1 / 255 rounded to float32 first: DirectML multiplies by the reciprocal (its sample_uint8_basic
gives OutputScale 0.020000001 = 5.1 * float32(1 / 255) for the range [-1.5, 3.6], where 5.1 / 255 rounds to
0.019999999 as ONNX's formula and ONNX Runtime compute it), so the scale can be one float32 step from ONNX's. Where
the docs differ: their formula leaves 0 out of the range and does not round the zero point (it also carries two
stray AValue / BValue lines from QUANTIZED_LINEAR_ADD); the zero point is an integer tensor, so it is rounded as the
output is, and quantizing with the rounded zero point is what dequantization inverts. DirectML's vectors hold one
case (sample_uint8_basic); tests/test_oracle_quantize.py also checks the lowerings against ONNX's
DynamicQuantizeLinear node cases, onnx.reference (one step apart in the scale at most) and hand arithmetic. An
all-zero input gives OutputScale 0 (the formula as written; ONNX leaves it open, onnx.reference gives 1/255 and ONNX
Runtime's CPU kernel 1): then 0 / 0 is NaN, and NaN quantizes to 0, so Output and OutputZeroPoint are 0. NaN inputs
are skipped by the range, as DirectML's REDUCE MIN / MAX skip NaN and its min / max of two values returns the
non-NaN one (their vectors): since the range always holds 0, that is the range of the input with NaN read as 0
(inferred: no DYNAMIC_QUANTIZE_LINEAR vector has a NaN; the backends disagreed, ONNX Runtime's CPU ReduceMin / Max
skipping NaN where NumPy and torch propagated it); a NaN element quantizes to 0 (QUANTIZE_LINEAR's rule). FLOAT16 inputs are computed in float32 (dmlops.lower). ONNX:
ReduceMin, ReduceMax, Min, Max, Sub, Mul, Div, Round, Clip, Cast; torch: min, max, minimum, maximum, mul, div, round,
clamp.
"""
from __future__ import annotations

import numpy as np

from ..errors import Problem
from ..sample import Sample, td
from . import _elementwise as ew
from . import _quantize as Q
from ._quantized import element_count_problems, same_sizes_problem


def check(desc, level) -> list[Problem]:
    """OutputTensor has InputTensor's Sizes; OutputScaleTensor and OutputZeroPointTensor hold one element."""
    out = [p for p in [same_sizes_problem(desc, "OutputTensor", "InputTensor")] if p]
    return out + element_count_problems(desc, ["OutputScaleTensor", "OutputZeroPointTensor"])


def _params(desc):
    """(output dtype, qmin, qmax, float32(1 / (qmax - qmin)): the factor DirectML scales the range by)."""
    t = desc.output_tensor.data_type
    lo, hi = Q.bounds_of(t)
    return Q.numpy_dtype_of(t), lo, hi, np.float32(1) / np.float32(hi - lo)


def reference(desc, x):
    """ONNX DynamicQuantizeLinear's range, scale and rounded zero point, then quantize (module docstring)."""
    dtype, lo, hi, inverse = _params(desc)
    v = x["InputTensor"].astype(np.float32)
    shape = tuple(desc.output_scale_tensor.sizes)
    r = np.where(np.isnan(v), np.float32(0), v)  # the range skips NaN (module docstring)
    mn = np.minimum(np.min(r), np.float32(0)).reshape(1)
    mx = np.maximum(np.max(r), np.float32(0)).reshape(1)
    with np.errstate(all="ignore"):
        scale = (mx - mn) * inverse
        zp = Q.reference_quantize(np.float32(lo) - mn / scale, np.float32(1), None, dtype)
    return {"OutputTensor": Q.reference_quantize(v, scale, zp, dtype),
            "OutputScaleTensor": scale.reshape(shape),
            "OutputZeroPointTensor": zp.reshape(tuple(desc.output_zero_point_tensor.sizes))}


def to_onnx(desc, g, x):
    """ReduceMin/ReduceMax over every axis (keepdims), Min/Max with 0, then the float32 formulas."""
    dtype, lo, hi, inverse = _params(desc)
    v = g.cast(x["InputTensor"], np.float32)
    f = lambda value: ew.onnx_const(g, value, np.float32)  # noqa: E731
    r = g.node("Where", [g.node("IsNaN", [v], dtype=np.bool_), f(0), v], dtype=np.float32)  # the range skips NaN
    mn = g.node("Min", [g.node("ReduceMin", [r], keepdims=1), f(0)])
    mx = g.node("Max", [g.node("ReduceMax", [r], keepdims=1), f(0)])
    scale = g.node("Mul", [g.node("Sub", [mx, mn]), f(inverse)])
    zp = Q.onnx_quantize(g, g.node("Sub", [f(lo), g.node("Div", [mn, scale])]), f(1), None, dtype)
    y = Q.onnx_quantize(g, v, scale, zp, dtype)
    reshape = lambda value, sizes: g.node("Reshape", [value, g.ints(sizes)])  # noqa: E731
    return {"OutputTensor": y, "OutputScaleTensor": reshape(scale, desc.output_scale_tensor.sizes),
            "OutputZeroPointTensor": reshape(zp, desc.output_zero_point_tensor.sizes)}


def to_torch(desc, torch, x):
    """min/max over the tensor, minimum/maximum with 0, then the float32 formulas."""
    dtype, lo, hi, inverse = _params(desc)
    tdtype = getattr(torch, dtype.name)
    v = x["InputTensor"].to(torch.float32)
    zero = torch.zeros((1,), dtype=torch.float32, device=v.device)
    r = torch.where(torch.isnan(v), torch.zeros_like(v), v)  # the range skips NaN
    mn = torch.minimum(r.min().reshape(1), zero)
    mx = torch.maximum(r.max().reshape(1), zero)
    scale = (mx - mn) * float(inverse)
    zp = Q.torch_quantize(torch, float(lo) - mn / scale, torch.ones_like(scale), None, tdtype)
    return {"OutputTensor": Q.torch_quantize(torch, v, scale, zp, tdtype),
            "OutputScaleTensor": scale.reshape(tuple(desc.output_scale_tensor.sizes)),
            "OutputZeroPointTensor": zp.reshape(tuple(desc.output_zero_point_tensor.sizes))}


def _samples():
    from ..descs import DynamicQuantizeLinear as cls

    def make(in_type, out_type, sizes):
        one = [1] * len(sizes)
        return cls(input_tensor=td(in_type, sizes), output_tensor=td(out_type, sizes),
                   output_scale_tensor=td("FLOAT32", one), output_zero_point_tensor=td(out_type, one))

    exact = dict(atol=0, rtol=0, why="every step is exact in float32 for these inputs",
                 float16_atol=0, float16_rtol=0)
    return [
        # UINT8: range [min(-1.5, 0), max(3.6, 0)] = [-1.5, 3.6]: scale 5.1 * float32(1 / 255) = 0.020000001 (DirectML's
        # sample_uint8_basic; 5.1 / 255 would round to 0.019999999); zero point round(0 - (-1.5 / 0.020000001)) =
        # round(74.99999) = 75; x / scale = [-75, 0, 102, 180] (rounded) -> + 75 = [0, 75, 177, 255].
        Sample("uint8_basic", make("FLOAT32", "UINT8", [2, 2]),
               {"InputTensor": np.array([[-1.5, 0], [2.04, 3.6]], np.float32)},
               {"OutputTensor": np.array([[0, 75], [177, 255]], np.uint8),
                "OutputScaleTensor": np.array([[0.020000001415610313]], np.float32),
                "OutputZeroPointTensor": np.array([[75]], np.uint8)}, **exact, float16=False),
        # All positive: the range is [0, 255] (0 joins it), scale 1, zero point 0: [1, 2.5, 3.5, 255] -> half to even
        # [1, 2, 4, 255].
        Sample("uint8_positive_ties", make("FLOAT32", "UINT8", [4]),
               {"InputTensor": np.array([1, 2.5, 3.5, 255], np.float32)},
               {"OutputTensor": np.array([1, 2, 4, 255], np.uint8), "OutputScaleTensor": np.ones(1, np.float32),
                "OutputZeroPointTensor": np.zeros(1, np.uint8)}, **exact),
        # INT8: range [-51, 204], scale 255 / 255 = 1, zero point round(-128 - (-51 / 1)) = -77;
        # [-51, 0, 204, 10.5] -> [-51, 0, 204, 10] - 77 = [-128, -77, 127, -67].
        Sample("int8_basic", make("FLOAT32", "INT8", [4]),
               {"InputTensor": np.array([-51, 0, 204, 10.5], np.float32)},
               {"OutputTensor": np.array([-128, -77, 127, -67], np.int8), "OutputScaleTensor": np.ones(1, np.float32),
                "OutputZeroPointTensor": np.array([-77], np.int8)}, **exact),
        # All zeros: scale 0 (the formula as written), 0 / 0 = NaN quantizes to 0: Output and zero point 0.
        Sample("all_zero", make("FLOAT32", "UINT8", [3]), {"InputTensor": np.zeros(3, np.float32)},
               {"OutputTensor": np.zeros(3, np.uint8), "OutputScaleTensor": np.zeros(1, np.float32),
                "OutputZeroPointTensor": np.zeros(1, np.uint8)}, **exact),
    ]


SAMPLES = _samples()
