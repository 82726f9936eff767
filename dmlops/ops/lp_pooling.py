"""DML_OPERATOR_LP_POOLING: shape rules the descriptor file cannot express.

InputTensor {BatchCount, ChannelCount, [Depth], Height, Width}. DimensionCount (the length of Strides,
WindowSize, StartPadding and EndPadding) is InputTensor's DimensionCount - 2 (DirectML refuses a 5-D input
with DimensionCount 2). Strides and WindowSize are at least 1. OutputTensor is {BatchCount, ChannelCount,
Output...} with Output = (InputSize + StartPadding + EndPadding - WindowSize) / Strides + 1 (floor).
P is at least 1: the page's Y = (X1^P + ... + Xn^P) ^ (1/P) has no value for P = 0. Shared rules:
dmlops/ops/_windows.py.
"""
from __future__ import annotations

from ..errors import Problem
from ._windows import p_problems, pooling_problems


def check(desc, level) -> list[Problem]:
    """DimensionCount, Strides and WindowSize >= 1, P >= 1, the window inside the padded input, OutputTensor sizes."""
    return pooling_problems(desc) + p_problems(desc)

