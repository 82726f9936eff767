"""DML_OPERATOR_ELEMENT_WISE_DEQUANTIZE_LINEAR: rules the descriptor file cannot express (none).

Every documented constraint is a descriptor 'same' rule the generic validator already enforces:
InputTensor, ScaleTensor, ZeroPointTensor and OutputTensor share DimensionCount and Sizes (per-axis
and per-tensor scales are full-size tensors read through zero Strides, as in DirectML's vectors
uint8_to_float32_per_channel), InputTensor and ZeroPointTensor share a DataType, and OutputTensor and
ScaleTensor share one. The support tiers give the data types per feature level; ZeroPointTensor is
optional from DML_FEATURE_LEVEL_6_2. A scale of 0 is undefined behaviour, a property of the data.

Math (docs): Output = (Input - ZeroPoint) * Scale, computed as (float32(Input) - float32(ZeroPoint)) * Scale in
float32 (dmlops.ops._quantize). DirectML's vectors uint8_to_float32_per_channel and int8_to_float32_per_channel (scale
and zero point per channel through Strides {0, 1, 0, 0}) are bit exact on every backend. For 32-bit integers beyond
2**24 the two conversions to float32 round (an exact integer difference could differ by one float32 step): no vector
covers it, a decision. An absent ZeroPointTensor (DML_FEATURE_LEVEL_6_2) is 0 (ONNX DequantizeLinear's default, no
vector). FLOAT16 outputs are computed in float32 and stored by dmlops.lower. ONNX: Cast, Sub, Mul; torch: to, sub, mul.
"""
from __future__ import annotations

import numpy as np

from ..errors import Problem
from ..sample import Sample, td
from . import _elementwise as ew
from . import _quantize as Q


def check(desc, level) -> list[Problem]:
    """Nothing beyond the generic rules (see the module docstring)."""
    return []


def reference(desc, x):
    """(Input - ZeroPoint) * Scale in float32."""
    return {"OutputTensor": Q.reference_dequantize(x["InputTensor"], x["ScaleTensor"], x["ZeroPointTensor"])}


def to_onnx(desc, g, x):
    """Cast, Sub, Mul in float32."""
    return {"OutputTensor": Q.onnx_dequantize(g, x["InputTensor"], x["ScaleTensor"], x["ZeroPointTensor"])}


def to_torch(desc, torch, x):
    """to, sub, mul in float32."""
    return {"OutputTensor": Q.torch_dequantize(torch, x["InputTensor"], x["ScaleTensor"], x["ZeroPointTensor"])}


def _samples():
    from ..descs import ElementWiseDequantizeLinear as cls

    exact = dict(atol=0, rtol=0, why="small integers times a power of two: exact in float32")

    def make(in_type, sizes, strides, zero_point=True, out_type="FLOAT32"):
        return cls(input_tensor=td(in_type, sizes), scale_tensor=td(out_type, sizes, strides),
                   zero_point_tensor=td(in_type, sizes, strides) if zero_point else None,
                   output_tensor=td(out_type, sizes))

    out = [
        # Per-tensor scale 0.5, zero point 128: ([0, 127, 128, 129, 255, 1, 200, 64] - 128) * 0.5
        # = [-64, -0.5, 0, 0.5, 63.5, -63.5, 36, -32].
        Sample("uint8_per_tensor", make("UINT8", [1, 1, 2, 4], [0, 0, 0, 0]),
               {"InputTensor": np.array([0, 127, 128, 129, 255, 1, 200, 64], np.uint8).reshape(1, 1, 2, 4),
                "ScaleTensor": np.array([0.5], np.float32), "ZeroPointTensor": np.array([128], np.uint8)},
               {"OutputTensor": np.array([-64, -0.5, 0, 0.5, 63.5, -63.5, 36, -32], np.float32).reshape(1, 1, 2, 4)},
               **exact),
        # Per-channel (axis 1, Strides {0, 1}): scales [0.25, -2], zero points [-128, 127]:
        # column 0: ([-128, 127] + 128) * 0.25 = [0, 63.75]; column 1: ([0, 127] - 127) * -2 = [254, -0].
        Sample("int8_per_channel", make("INT8", [2, 2], [0, 1]),
               {"InputTensor": np.array([[-128, 0], [127, 127]], np.int8),
                "ScaleTensor": np.array([0.25, -2], np.float32), "ZeroPointTensor": np.array([-128, 127], np.int8)},
               {"OutputTensor": np.array([[0, 254], [63.75, -0.0]], np.float32)}, **exact),
        # No ZeroPointTensor (DML_FEATURE_LEVEL_6_2): zero point 0. [-3, 0, 7, 100] * 0.125.
        Sample("int8_no_zero_point", make("INT8", [4], [0], zero_point=False),
               {"InputTensor": np.array([-3, 0, 7, 100], np.int8), "ScaleTensor": np.array([0.125], np.float32)},
               {"OutputTensor": np.array([-0.375, 0, 0.875, 12.5], np.float32)}, **exact),
    ]
    # Every integer InputTensor type: ([0, 10, 20, 7] - 10) * 1.5 = [-15, 0, 15, -4.5].
    for t in ("INT32", "INT16", "INT8", "UINT32", "UINT16", "UINT8"):
        out.append(Sample(f"int_{t.lower()}", make(t, [4], [0]),
                          {"InputTensor": ew.int_array([0, 10, 20, 7], t), "ScaleTensor": np.array([1.5], np.float32),
                           "ZeroPointTensor": ew.int_array([10], t)},
                          {"OutputTensor": np.array([-15, 0, 15, -4.5], np.float32)}, **exact))
    return out


SAMPLES = _samples()
