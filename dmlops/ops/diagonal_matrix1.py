"""DML_OPERATOR_DIAGONAL_MATRIX1: rules the descriptor file cannot express.

From the docs page: ValueDataType "must match OutputTensor::DataType"; the optional InputTensor supplies
OutputTensor[coordinate] off the diagonal band (the page's pseudo-code reads InputTensor[coordinate] for every
output coordinate), so it must have OutputTensor's Sizes (DataType and DimensionCount are the generic validator's
rules). DiagonalFillBegin and DiagonalFillEnd take any values (begin > end inverts the band). DirectML agrees
(vectors: a FLOAT32 ValueDataType with FLOAT16 tensors, and a {1, 1, 1, 1} InputTensor with a {1, 1, 1, 2}
OutputTensor, are refused).
"""
from __future__ import annotations

from ..errors import Problem
from . import _layout as L


def check(desc, level) -> list[Problem]:
    """ValueDataType = OutputTensor.DataType; InputTensor (when given) has OutputTensor's Sizes."""
    return L.value_type_problems(desc, "ValueDataType") + L.same_sizes_problems(desc, "InputTensor", "OutputTensor")
