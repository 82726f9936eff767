"""DML_OPERATOR_PADDING1: shape rules the descriptor file cannot express.

PADDING's rules (DimensionCount = the tensors' DimensionCount, OutputTensor.Sizes = InputTensor.Sizes +
StartPadding + EndPadding; see padding.py), plus PaddingValueDataType, "which must match
OutputTensor.DataType". DirectML agrees (vectors: DimensionCount 2 for 4-dimensional tensors is refused).
"""
from __future__ import annotations

from ..errors import Problem
from . import _layout as L


def check(desc, level) -> list[Problem]:
    """PADDING's rules; PaddingValueDataType = OutputTensor.DataType."""
    return L.value_type_problems(desc, "PaddingValueDataType") + L.padding_problems(desc)
