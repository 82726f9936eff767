"""DML_OPERATOR_ELEMENT_WISE_POW: f(input, exponent) = pow(input, exponent).

"Negative bases are supported for exponents with integral values ... otherwise this operator returns NaN."
ExponentTensor may have another DataType than InputTensor from DML_FEATURE_LEVEL_3_0; "until
DML_FEATURE_LEVEL_3_0, ExponentTensor must match the type of InputTensor" (check()).

* Floats: DirectML computes exp2(exponent * log2|input|) in float32, with the sign of a negative input for odd
  integral exponents (ew.pow_directml; DirectML's vectors: basic, edge_pow_domain). Unlike IEEE pow (ONNX Pow,
  torch.pow): 0 ** 0, NaN ** 0, 1 ** NaN and (-1) ** inf are NaN, (-0) ** -1 is +inf, and large results carry
  the float32 rounding of exponent * log2|input| (10 ** 2 = 99.99999). Every backend computes that formula.
* ScaleBias applies to ExponentTensor too (DirectML's vectors: scale_bias gives (2 * 1) ** (2 * 2) = 16):
  dmlops.lower applies it to every input.
* Integers: "When the input tensor and exponent tensor both have integral data type, this operator guarantees
  exact results": repeated squaring in int64 (ew.integer_power), no float. Results outside the type wrap as
  MULTIPLY does, and negative exponents give 1 / x**n truncated (0 ** -n: the type's maximum); DirectML's
  vectors do not cover either. An integer input with a float exponent is computed as floats and converted as
  CAST converts (truncated, saturated).
"""
from __future__ import annotations

import numpy as np

from ..errors import Problem
from ..sample import Sample, td
from ..types import FeatureLevel, ScaleBias
from ..validation import tensor
from . import _elementwise as ew

MIXED_TYPES_SINCE = FeatureLevel.parse("3.0")


def check(desc, level) -> list[Problem]:
    """Below DML_FEATURE_LEVEL_3_0, ExponentTensor has InputTensor's DataType."""
    x, e = tensor(desc, "InputTensor"), tensor(desc, "ExponentTensor")
    if x is None or e is None or level >= MIXED_TYPES_SINCE or x.data_type == e.data_type:
        return []
    return [Problem(desc.OPERATOR_TYPE, "ExponentTensor", "same",
                    f"DataType {e.data_type.name} differs from InputTensor's {x.data_type.name}; until "
                    f"{MIXED_TYPES_SINCE.dml_name} ExponentTensor must match the type of InputTensor.")]


def reference(desc, x):
    """ew.pow_directml in float32; integer tensors exactly (ew.integer_power)."""
    a, e = x["InputTensor"], x["ExponentTensor"]
    if ew.is_integer(a.dtype) and ew.is_integer(e.dtype):
        return {"OutputTensor": ew.integer_power(a, e, a.dtype)}
    y = ew.pow_directml(a, e)
    return {"OutputTensor": ew.convert(y, a.dtype) if ew.is_integer(a.dtype) else y}


def to_onnx(desc, g, x):
    """ew.onnx_pow_directml in float32; integer tensors by repeated squaring in int64 (ew.onnx_integer_power)."""
    a, e = x["InputTensor"], x["ExponentTensor"]
    if ew.is_integer(g.dtype(a)) and ew.is_integer(g.dtype(e)):
        return {"OutputTensor": ew.onnx_integer_power(g, a, e, g.dtype(a))}
    y = ew.onnx_pow_directml(g, a, e)
    return {"OutputTensor": ew.onnx_convert(g, y, g.dtype(a)) if ew.is_integer(g.dtype(a)) else y}


def to_torch(desc, torch, x):
    """ew.torch_pow_directml in float32; integer tensors by repeated squaring in int64 (ew.torch_integer_power)."""
    a, e = x["InputTensor"], x["ExponentTensor"]
    if not a.dtype.is_floating_point and not e.dtype.is_floating_point:
        return {"OutputTensor": ew.torch_integer_power(torch, a, e, a.dtype)}
    y = ew.torch_pow_directml(torch, a, e)
    return {"OutputTensor": y if a.dtype.is_floating_point else ew.torch_convert(torch, y, a.dtype)}


def _desc(cls, t, sizes, exponent_type=None, strides_e=None, **attrs):
    return cls(input_tensor=td(t, sizes), exponent_tensor=td(exponent_type or t, sizes, strides_e),
               output_tensor=td(t, sizes), **attrs)


def _samples():
    from ..descs import ElementWisePow as cls

    return [
        # 2^3 = 8, 4^0.5 = 2, (-2)^3 = -8, (-8)^0.5 = NaN (non-integral exponent), 0^0 = NaN (DirectML's
        # exp2(0 * log2 0) = exp2(NaN); IEEE and ONNX give 1), 9^-0.5 = 1/3.
        Sample("basic", _desc(cls, "FLOAT32", [6]),
               {"InputTensor": np.array([2, 4, -2, -8, 0, 9], np.float32),
                "ExponentTensor": np.array([3, 0.5, 3, 0.5, 0, -0.5], np.float32)},
               {"OutputTensor": np.array([8, 2, -8, np.nan, np.nan, 1 / 3], np.float32)},
               atol=0, rtol=1e-6, why="float32 pow (1/3 rounds)", float16_atol=0, float16_rtol=1e-3),
        # Exponent 2 broadcast through strides [0, 0]: squares.
        Sample("broadcast_exponent", _desc(cls, "FLOAT32", [2, 3], strides_e=[0, 0]),
               {"InputTensor": np.array([[1, -2, 3], [0.5, -0.0, 10]], np.float32),
                "ExponentTensor": np.array([2], np.float32)},
               {"OutputTensor": np.array([[1, 4, 9], [0.25, 0, 100]], np.float32)},
               atol=0, rtol=1e-7, why="exact squares", float16_atol=0, float16_rtol=0),
        # ScaleBias 2x on both inputs (DirectML's vector scale_bias): [1, 1.5, -1] -> [2, 3, -2];
        # [2, 2, 3] -> [4, 4, 6]; so [16, 81, 64].
        Sample("scale_bias", _desc(cls, "FLOAT32", [3], scale_bias=ScaleBias(2.0, 0.0)),
               {"InputTensor": np.array([1, 1.5, -1], np.float32), "ExponentTensor": np.array([2, 2, 3], np.float32)},
               {"OutputTensor": np.array([16, 81, 64], np.float32)},
               atol=0, rtol=2.4e-7, why="exp2(4 log2 3) rounds in float32", float16_atol=0.0625, float16_rtol=0),
        # FLOAT32 base, INT32 exponent: 1.5^2, (-2)^3, 4^-1, 0.5^-2, as DirectML gives them (sample_int32_exponent):
        # its exp2(2 log2 1.5) is 2.2500002, one float32 step above 2.25; powers of two stay exact.
        Sample("int32_exponent", _desc(cls, "FLOAT32", [4], exponent_type="INT32"),
               {"InputTensor": np.array([1.5, -2, 4, 0.5], np.float32), "ExponentTensor": ew.int_array([2, 3, -1, -2],
                                                                                                     "INT32")},
               {"OutputTensor": np.array([2.2500002, -8, 0.25, 4], np.float32)},
               atol=0, rtol=1.2e-7, why="DirectML's exp2/log2 (2.2500002) vs the correctly rounded 2.25: one float32 "
               "step", float16_atol=0, float16_rtol=0),
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
