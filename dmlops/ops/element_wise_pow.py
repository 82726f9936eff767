"""DML_OPERATOR_ELEMENT_WISE_POW: f(input, exponent) = pow(input, exponent).

"Negative bases are supported for exponents with integral values ... otherwise this operator returns NaN."
ExponentTensor may have another DataType than InputTensor (from DML_FEATURE_LEVEL_3_0). "When the input
tensor and exponent tensor both have integral data type, this operator guarantees exact results": integer
inputs are computed in float64 (exact for every result a 32-bit type holds; POW has no 64-bit integers) and
truncated toward zero; results outside the type, and negative integer exponents (1 / x^n), are not specified
by the page: they saturate here, as CAST does, and are not sampled.
"""
from __future__ import annotations

import numpy as np

from ..sample import Sample, td
from ..types import ScaleBias
from . import _elementwise as ew


def reference(desc, x):
    """pow in float64; integer inputs truncated toward zero and saturated to their type."""
    a, e = x["InputTensor"], x["ExponentTensor"]
    with np.errstate(all="ignore"):
        y = np.power(a.astype(np.float64), e.astype(np.float64))
    return {"OutputTensor": ew.convert(y, a.dtype) if ew.is_integer(a.dtype) else y}


def to_onnx(desc, g, x):
    """ONNX Pow: floats in the input's type, integers through float64 and a saturating cast."""
    a, e = x["InputTensor"], x["ExponentTensor"]
    if ew.is_integer(g.dtype(a)):
        y = g.node("Pow", [g.cast(a, np.float64), g.cast(e, np.float64)])
        return {"OutputTensor": ew.onnx_convert(g, y, g.dtype(a))}
    return {"OutputTensor": g.node("Pow", [a, g.cast(e, g.dtype(a))])}


def to_torch(desc, torch, x):
    """torch.pow: floats in the input's type, integers through float64 and a saturating cast."""
    a, e = x["InputTensor"], x["ExponentTensor"]
    if a.dtype.is_floating_point:
        return {"OutputTensor": torch.pow(a, e.to(a.dtype))}
    y = torch.pow(a.to(torch.float64), e.to(torch.float64))
    return {"OutputTensor": ew.torch_convert(torch, y, a.dtype)}


def _desc(cls, t, sizes, exponent_type=None, strides_e=None, **attrs):
    return cls(input_tensor=td(t, sizes), exponent_tensor=td(exponent_type or t, sizes, strides_e),
               output_tensor=td(t, sizes), **attrs)


def _samples():
    from ..descs import ElementWisePow as cls

    return [
        # 2^3 = 8, 4^0.5 = 2, (-2)^3 = -8, (-8)^0.5 = NaN (non-integral exponent), 0^0 = 1, 9^-0.5 = 1/3.
        Sample("basic", _desc(cls, "FLOAT32", [6]),
               {"InputTensor": np.array([2, 4, -2, -8, 0, 9], np.float32),
                "ExponentTensor": np.array([3, 0.5, 3, 0.5, 0, -0.5], np.float32)},
               {"OutputTensor": np.array([8, 2, -8, np.nan, 1, 1 / 3], np.float32)},
               atol=0, rtol=1e-6, why="float32 pow (1/3 rounds)", float16_atol=0, float16_rtol=1e-3),
        # Exponent 2 broadcast through strides [0, 0]: squares.
        Sample("broadcast_exponent", _desc(cls, "FLOAT32", [2, 3], strides_e=[0, 0]),
               {"InputTensor": np.array([[1, -2, 3], [0.5, -0.0, 10]], np.float32),
                "ExponentTensor": np.array([2], np.float32)},
               {"OutputTensor": np.array([[1, 4, 9], [0.25, 0, 100]], np.float32)},
               atol=0, rtol=1e-7, why="exact squares", float16_atol=0, float16_rtol=0),
        # ScaleBias 2x on the input only: [1, 1.5, -1] -> [2, 3, -2]; ^[2, 2, 3] -> [4, 9, -8].
        Sample("scale_bias", _desc(cls, "FLOAT32", [3], scale_bias=ScaleBias(2.0, 0.0)),
               {"InputTensor": np.array([1, 1.5, -1], np.float32), "ExponentTensor": np.array([2, 2, 3], np.float32)},
               {"OutputTensor": np.array([4, 9, -8], np.float32)},
               atol=0, rtol=1e-7, why="exact", float16_atol=0, float16_rtol=0),
        # FLOAT32 base, INT32 exponent: 1.5^2, (-2)^3, 4^-1, 0.5^-2.
        Sample("int32_exponent", _desc(cls, "FLOAT32", [4], exponent_type="INT32"),
               {"InputTensor": np.array([1.5, -2, 4, 0.5], np.float32), "ExponentTensor": ew.int_array([2, 3, -1, -2],
                                                                                                     "INT32")},
               {"OutputTensor": np.array([2.25, -8, 0.25, 4], np.float32)},
               atol=0, rtol=1e-7, why="exact", float16_atol=0, float16_rtol=0),
    ] + ew.integer_samples(
        lambda t: _desc(cls, t, [6]), ("INT32", "INT16", "INT8", "UINT32", "UINT16", "UINT8"),
        {"InputTensor": [2, 3, 5, 0, 1, 7], "ExponentTensor": [3, 2, 1, 0, 7, 2]},
        {"OutputTensor": [8, 9, 5, 1, 1, 49]}, why="integer powers: exact") + [
        Sample("int32_large", _desc(cls, "INT32", [4]),
               {"InputTensor": ew.int_array([-2, 3, -7, 46340], "INT32"),
                "ExponentTensor": ew.int_array([31, 19, 11, 2], "INT32")},
               # (-2)^31 = -2147483648, 3^19 = 1162261467, (-7)^11 = -1977326743, 46340^2 = 2147395600.
               {"OutputTensor": ew.int_array([-2**31, 1162261467, -1977326743, 2147395600], "INT32")},
               atol=0, rtol=0, why="exact"),
    ]


SAMPLES = _samples()
