"""DML_OPERATOR_UNFOLD: shape rules the descriptor file cannot express.

InputTensor is the image {BatchCount, ChannelCount, SpatialSize...} with DimensionCount (the length of
WindowSizes, Strides, Dilations, StartPadding and EndPadding, "in the range [1, 6]") spatial dimensions;
OutputTensor is {BatchCount, ChannelCount * prod(WindowSizes), BlockCount} with BlockCount = prod over d of
BlocksPerDimension[d] = (SpatialSize[d] + StartPadding[d] + EndPadding[d] - Dilations[d] * (WindowSizes[d]
- 1) - 1) / Strides[d] + 1; WindowSizes, Strides and Dilations are at least 1.
The page's "InputTensor and OutputTensor must have the same DimensionCount" contradicts its own examples
(a {1, 1, 5, 5} input unfolded into a {1, 9, 9} output); the examples are followed here. Shared rules:
dmlops/ops/_windows.py.
"""
from __future__ import annotations

from ..errors import Problem
from ._windows import fold_problems


def check(desc, level) -> list[Problem]:
    """DimensionCount, WindowSizes/Strides/Dilations >= 1, the window inside the padded input, OutputTensor sizes."""
    return fold_problems(desc, unfold=True)
