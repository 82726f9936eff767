"""DML_OPERATOR_MAX_POOLING1: shape rules the descriptor file cannot express.

As MAX_POOLING: DimensionCount (the length of Strides, WindowSize, StartPadding and EndPadding) is
InputTensor's DimensionCount - 2; Strides and WindowSize are at least 1; OutputTensor is {BatchCount,
ChannelCount, Output...} with Output = (InputSize + StartPadding + EndPadding - WindowSize) / Strides + 1
(floor). The optional OutputIndicesTensor has the same Sizes as OutputTensor ("Both the OutputTensor and
OutputIndicesTensor have the same tensor sizes"); both are checked against the formula, so a wrong
OutputTensor does not make a right OutputIndicesTensor look wrong. Shared rules: dmlops/ops/_windows.py.
"""
from __future__ import annotations

from ..errors import Problem
from ._windows import pooling_problems


def check(desc, level) -> list[Problem]:
    """DimensionCount, Strides and WindowSize >= 1, the window inside the padded input, OutputTensor and
    OutputIndicesTensor sizes."""
    return pooling_problems(desc, targets=("OutputTensor", "OutputIndicesTensor"))
