"""DML_OPERATOR_FILL_VALUE_SEQUENCE: rules the descriptor file cannot express.

From the docs page: ValueDataType, the type of ValueStart and ValueDelta, "must match OutputTensor.DataType";
OutputTensor "may have any size". DirectML agrees (vectors: a FLOAT32 ValueDataType with a FLOAT16 OutputTensor
is refused).
"""
from __future__ import annotations

from ..errors import Problem
from . import _layout as L


def check(desc, level) -> list[Problem]:
    """ValueDataType = OutputTensor.DataType."""
    return L.value_type_problems(desc, "ValueDataType")
