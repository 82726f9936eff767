"""DML_OPERATOR_MAX_POOLING_GRAD: shape rules the descriptor file cannot express.

InputTensor (the forward MAX_POOLING2 input) and OutputGradientTensor are {BatchCount, ChannelCount,
[InputDepth], InputHeight, InputWidth} (their equal Sizes are a generic rule); InputGradientTensor is
{BatchCount, ChannelCount, [OutputDepth], OutputHeight, OutputWidth}, the forward output: Output =
(InputSize + StartPadding + EndPadding - DilatedWindow) / Strides + 1 (floor), DilatedWindow = 1 +
(WindowSize - 1) * Dilations. DimensionCount (the length of Strides, WindowSize, StartPadding, EndPadding and
Dilations) is InputTensor's DimensionCount - 2 (the page says "the only valid value is 2" for the 4-D-only
DML_FEATURE_LEVEL_3_0; the 4_0 table adds 5-D tensors, for which it is 3). Strides, WindowSize and Dilations
are at least 1. Shared rules: dmlops/ops/_windows.py.
"""
from __future__ import annotations

from ..errors import Problem
from ._windows import pooling_problems


def check(desc, level) -> list[Problem]:
    """DimensionCount, Strides/WindowSize/Dilations >= 1, the dilated window inside the padded input,
    InputGradientTensor sizes from the forward output formula."""
    return pooling_problems(desc, sources=("InputTensor", "OutputGradientTensor"), targets=("InputGradientTensor",))
