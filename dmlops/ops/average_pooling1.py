"""DML_OPERATOR_AVERAGE_POOLING1: shape rules the descriptor file cannot express.

As AVERAGE_POOLING with Dilations: DimensionCount (the length of Strides, WindowSize, StartPadding,
EndPadding and Dilations) is InputTensor's DimensionCount - 2; Strides, WindowSize and Dilations are at
least 1; OutputTensor is {BatchCount, ChannelCount, Output...} with Output = (InputSize + StartPadding +
EndPadding - DilatedWindow) / Strides + 1 (floor), DilatedWindow = 1 + (WindowSize - 1) * Dilations.
The page prints the formula without Dilations; DirectML's answers use the dilated window (window 2,
dilation 2, 5 x 6 input: 3 x 4 output), and DirectML wins. Shared rules: dmlops/ops/_windows.py.
"""
from __future__ import annotations

from ..errors import Problem
from ._windows import pooling_problems


def check(desc, level) -> list[Problem]:
    """DimensionCount, Strides/WindowSize/Dilations >= 1, the dilated window inside the padded input,
    OutputTensor sizes."""
    return pooling_problems(desc)
