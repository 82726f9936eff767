"""DML_OPERATOR_ELEMENT_WISE_DEQUANTIZE_LINEAR: rules the descriptor file cannot express (none).

Every documented constraint is a descriptor 'same' rule the generic validator already enforces:
InputTensor, ScaleTensor, ZeroPointTensor and OutputTensor share DimensionCount and Sizes (per-axis
and per-tensor scales are full-size tensors read through zero Strides, as in DirectML's vectors
uint8_to_float32_per_channel), InputTensor and ZeroPointTensor share a DataType, and OutputTensor and
ScaleTensor share one. The support tiers give the data types per feature level; ZeroPointTensor is
optional from DML_FEATURE_LEVEL_6_2. A scale of 0 is undefined behaviour, a property of the data.

Math (docs): Output = (Input - ZeroPoint) * Scale. Only check() is written so far.
"""
from __future__ import annotations

from ..errors import Problem


def check(desc, level) -> list[Problem]:
    """Nothing beyond the generic rules (see the module docstring)."""
    return []
