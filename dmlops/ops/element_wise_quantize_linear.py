"""DML_OPERATOR_ELEMENT_WISE_QUANTIZE_LINEAR: rules the descriptor file cannot express.

From the docs: "If InputTensor is INT32, then ScaleTensor must be FLOAT32. Otherwise, ScaleTensor must
have the same DataType as InputTensor." InputTensor, ScaleTensor, ZeroPointTensor and OutputTensor
share DimensionCount and Sizes, and OutputTensor and ZeroPointTensor share a DataType (the
descriptor's 'same' rules): a per-axis or per-tensor scale is a full-size tensor read through zero
Strides (as in DirectML's vectors float32_to_uint8_per_channel). ZeroPointTensor is optional from
DML_FEATURE_LEVEL_6_2 (schema and header; see the descriptor notes). A scale of 0 is undefined
behaviour, a property of the data, not of the descriptor.

Math (docs): Output = clamp(round(Input / Scale) + ZeroPoint) to the output type's range.
Only check() is written so far.
"""
from __future__ import annotations

from ..errors import Problem
from ..types import DataType
from ..validation import tensor


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
