"""DML_OPERATOR_ELEMENT_WISE_QUANTIZE_LINEAR: rules the descriptor file cannot express.

From the docs: "If InputTensor is INT32, then ScaleTensor must be FLOAT32. Otherwise, ScaleTensor must
have the same DataType as InputTensor." InputTensor, ScaleTensor, ZeroPointTensor and OutputTensor
share DimensionCount and Sizes, and OutputTensor and ZeroPointTensor share a DataType (the
descriptor's 'same' rules): a per-axis or per-tensor scale is a full-size tensor read through zero
Strides (as in DirectML's vectors float32_to_uint8_per_channel). ZeroPointTensor is optional from
DML_FEATURE_LEVEL_6_2 (schema and header; see the descriptor notes). A scale of 0 is undefined
behaviour, a property of the data, not of the descriptor.

Math (docs): Output = clamp(round(Input / Scale) + ZeroPoint) to the output type's range, as dmlops.ops._quantize
computes it, which DirectML's vectors fix where the docs are silent (float32_to_uint8_per_channel and
float32_to_int8_per_channel, bit exact on every backend):

* round() is half to even (0.5 -> 0, 1.5 -> 2, -0.5 -> 0 in both cases; halves away from zero would give 129 / 1
  and 127 / -1);
* saturation to [0, 255] / [-128, 127]: inf, 1e9 / 0.05 give the top, -inf, -1e9 / 0.05 the bottom;
* NaN gives 0, not the zero point (UINT8 with zero point 128: 0) and not a clamped NaN (INT8: 0, not -128);
* per-channel scales and zero points are full-size tensors read through zero Strides (Strides {0, 1, 0, 0}).

An absent ZeroPointTensor (DML_FEATURE_LEVEL_6_2) is 0, ONNX QuantizeLinear's default, which ONNX Runtime's DirectML
provider passes through as the optional tensor: no vector covers it. An INT32 InputTensor is read into float32
(values beyond 2**24 round) and divided by its FLOAT32 scale; FLOAT16 is computed in float32 (dmlops.lower). ONNX:
Div, Round, Add, IsNaN/Where, Clip, Cast; torch: div, round, add, isnan/where, clamp, to.
"""
from __future__ import annotations

import numpy as np

from ..errors import Problem
from ..sample import Sample, td
from ..types import DataType
from ..validation import tensor
from . import _quantize as Q


def check(desc, level) -> list[Problem]:
    """ScaleTensor is FLOAT32 for an INT32 InputTensor, else of InputTensor's DataType."""
    x, scale = tensor(desc, "InputTensor"), tensor(desc, "ScaleTensor")
    if x is None or scale is None:
        return []
    expected = DataType.FLOAT32 if x.data_type == DataType.INT32 else x.data_type
    if scale.data_type == expected:
        return []
    why = " for an INT32 InputTensor" if x.data_type == DataType.INT32 else ", InputTensor's DataType"
    return [Problem(desc.OPERATOR_TYPE, "ScaleTensor", "data_type",
                    f"DataType {scale.data_type.name} does not fit InputTensor DataType {x.data_type.name} "
                    f"(allowed: {expected.name}{why}).")]


def reference(desc, x):
    """clamp(round(Input / Scale) + ZeroPoint), NaN -> 0 (module docstring)."""
    dtype = Q.numpy_dtype_of(desc.output_tensor.data_type)
    return {"OutputTensor": Q.reference_quantize(x["InputTensor"], x["ScaleTensor"], x["ZeroPointTensor"], dtype)}


def to_onnx(desc, g, x):
    """Div, Round (half to even), Add, NaN -> 0, Clip, Cast in float32 (dmlops.ops._quantize)."""
    dtype = Q.numpy_dtype_of(desc.output_tensor.data_type)
    return {"OutputTensor": Q.onnx_quantize(g, x["InputTensor"], x["ScaleTensor"], x["ZeroPointTensor"], dtype)}


def to_torch(desc, torch, x):
    """div, round (half to even), add, NaN -> 0, clamp, to in float32 (dmlops.ops._quantize)."""
    dtype = getattr(torch, Q.numpy_dtype_of(desc.output_tensor.data_type).name)
    return {"OutputTensor": Q.torch_quantize(torch, x["InputTensor"], x["ScaleTensor"], x["ZeroPointTensor"], dtype)}


def _samples():
    from ..descs import ElementWiseQuantizeLinear as cls

    exact = dict(atol=0, rtol=0, why="integer outputs: exact", float16_atol=0, float16_rtol=0)
    nan, inf = np.float32(np.nan), np.float32(np.inf)

    def make(in_type, out_type, sizes, scale_strides, zp_strides=None, zero_point=True, scale_type=None):
        return cls(input_tensor=td(in_type, sizes), scale_tensor=td(scale_type or in_type, sizes, scale_strides),
                   zero_point_tensor=td(out_type, sizes, zp_strides) if zero_point else None,
                   output_tensor=td(out_type, sizes))

    per_tensor = [0, 0, 0, 0]
    return [
        # Per-tensor scale 0.5, zero point 128 (zero Strides): x / 0.5 = [0, 2.5, 3.5, -0.5, 600, -600, NaN, inf],
        # rounded half to even [0, 2, 4, -0, 600, -600, NaN, inf], + 128 = [128, 130, 132, 128, 728, -472, NaN, inf],
        # saturated to [0, 255] with NaN -> 0: [128, 130, 132, 128, 255, 0, 0, 255].
        Sample("uint8_per_tensor_ties", make("FLOAT32", "UINT8", [1, 1, 2, 4], per_tensor, per_tensor),
               {"InputTensor": np.array([0, 1.25, 1.75, -0.25, 300, -300, nan, inf], np.float32).reshape(1, 1, 2, 4),
                "ScaleTensor": np.array([0.5], np.float32), "ZeroPointTensor": np.array([128], np.uint8)},
               {"OutputTensor": np.array([128, 130, 132, 128, 255, 0, 0, 255], np.uint8).reshape(1, 1, 2, 4)},
               **exact),
        # Per-channel (axis 0, Strides {1, 0}): row 0 scale 0.25 zero point -10, row 1 scale 2 zero point 10.
        # Row 0: [1, -1, 0.125, 40] / 0.25 = [4, -4, 0.5, 160] -> [4, -4, 0, 160] - 10 = [-6, -14, -10, 150] -> 127.
        # Row 1: [-3, 5, -1000, -inf] / 2 = [-1.5, 2.5, -500, -inf] -> [-2, 2, -500, -inf] + 10 = [8, 12, -128, -128].
        Sample("int8_per_channel", make("FLOAT32", "INT8", [2, 4], [1, 0], [1, 0]),
               {"InputTensor": np.array([[1, -1, 0.125, 40], [-3, 5, -1000, -inf]], np.float32),
                "ScaleTensor": np.array([0.25, 2], np.float32), "ZeroPointTensor": np.array([-10, 10], np.int8)},
               {"OutputTensor": np.array([[-6, -14, -10, 127], [8, 12, -128, -128]], np.int8)}, **exact),
        # INT32 input, FLOAT32 scale 2: [-7, 7, 5, 100, -1000, 2**31 - 1] / 2 = [-3.5, 3.5, 2.5, 50, -500, 2**30]
        # -> [-4, 4, 2, 50, -500, 2**30] (+ 0) saturated to INT8: [-4, 4, 2, 50, -128, 127].
        Sample("int32_input", make("INT32", "INT8", [6], [0], [0], scale_type="FLOAT32"),
               {"InputTensor": np.array([-7, 7, 5, 100, -1000, 2**31 - 1], np.int32),
                "ScaleTensor": np.array([2], np.float32), "ZeroPointTensor": np.array([0], np.int8)},
               {"OutputTensor": np.array([-4, 4, 2, 50, -128, 127], np.int8)}, **exact),
        # No ZeroPointTensor (DML_FEATURE_LEVEL_6_2): zero point 0. [1, -1, 2.5, 254.5, 255.5, 3] / 1 -> half to
        # even [1, -1, 2, 254, 256, 3] -> UINT8 [1, 0, 2, 254, 255, 3].
        Sample("uint8_no_zero_point", make("FLOAT32", "UINT8", [6], [0], zero_point=False),
               {"InputTensor": np.array([1, -1, 2.5, 254.5, 255.5, 3], np.float32),
                "ScaleTensor": np.array([1], np.float32)},
               {"OutputTensor": np.array([1, 0, 2, 254, 255, 3], np.uint8)}, **exact),
    ]


SAMPLES = _samples()
