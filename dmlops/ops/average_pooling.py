"""DML_OPERATOR_AVERAGE_POOLING: shape rules the descriptor file cannot express.

InputTensor {BatchCount, ChannelCount, [Depth], Height, Width}. DimensionCount (the length of Strides,
WindowSize, StartPadding and EndPadding) is InputTensor's DimensionCount - 2 (DirectML refuses a 5-D input
with DimensionCount 2). Strides and WindowSize are at least 1. OutputTensor is {BatchCount, ChannelCount,
Output...} with Output = (InputSize + StartPadding + EndPadding - WindowSize) / Strides + 1 (floor), as the
page prints it; a window larger than the padded input leaves no output. dmlops/ops/_windows.py holds the
shared rules.
"""
from __future__ import annotations

from ..errors import Problem
from ._windows import pooling_problems


def check(desc, level) -> list[Problem]:
    """DimensionCount, Strides and WindowSize >= 1, the window inside the padded input, OutputTensor sizes."""
    return pooling_problems(desc)
