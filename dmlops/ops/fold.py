"""DML_OPERATOR_FOLD: shape rules the descriptor file cannot express.

InputTensor holds the sliding blocks, {BatchCount, ChannelCount * prod(WindowSizes), BlockCount}; OutputTensor
is the image {BatchCount, ChannelCount, OutputSize...} with DimensionCount (the length of WindowSizes,
Strides, Dilations, StartPadding and EndPadding, "must be <= 6") spatial dimensions; BlockCount = prod over d
of BlocksPerDimension[d] = (OutputSize[d] + StartPadding[d] + EndPadding[d] - Dilations[d] * (WindowSizes[d]
- 1) - 1) / Strides[d] + 1; WindowSizes, Strides and Dilations are at least 1.
The page's "InputTensor and OutputTensor must have the same DimensionCount" contradicts its own examples
(a {1, 9, 4} input folded into a {1, 1, 4, 4} output) and onnxruntime's DirectML EP (Col2Im passes a 3-D
input and an N-D output); the examples are followed here. Shared rules: dmlops/ops/_windows.py.
"""
from __future__ import annotations

from ..errors import Problem
from ._windows import fold_problems


def check(desc, level) -> list[Problem]:
    """DimensionCount, WindowSizes/Strides/Dilations >= 1, the window inside the padded output, InputTensor sizes."""
    return fold_problems(desc, unfold=False)
