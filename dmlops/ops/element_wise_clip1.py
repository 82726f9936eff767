"""DML_OPERATOR_ELEMENT_WISE_CLIP1: the MinMaxDataType rule the descriptor file cannot express.

The docs: MinMaxDataType is "the data type of the Min and Max members, which must match
OutputTensor.DataType". Whether Min and Max are representable in MinMaxDataType is the generic
validator's rule (DML_SCALAR_UNION fields). Min > Max is allowed: the docs do not forbid it and
DirectML accepts it (vector float32_min_1.0_max_-1.0; f(x) = max(Min, min(x, Max)) then gives Min).
Rules only: no lowering yet.
"""
from __future__ import annotations

from ..errors import Problem
from ..types import DataType
from ..validation import tensor


def min_max_problems(desc, output: str) -> list[Problem]:
    """MinMaxDataType equals ``output``'s DataType (shared with ELEMENT_WISE_CLIP_GRAD1).

    An UNKNOWN MinMaxDataType is left to the generic validator, which already reports it."""
    y = tensor(desc, output)
    found = desc.min_max_data_type
    if y is None or found == DataType.UNKNOWN or found == y.data_type:
        return []
    return [Problem(desc.OPERATOR_TYPE, "MinMaxDataType", "data_type",
                    f"{found.name} does not match {output}'s DataType {y.data_type.name}; "
                    f"MinMaxDataType must match it.")]


def check(desc, level) -> list[Problem]:
    """MinMaxDataType is OutputTensor's DataType."""
    return min_max_problems(desc, "OutputTensor")
