"""DML_OPERATOR_DEPTH_TO_SPACE: shape rules the descriptor file cannot express.

From the docs page: InputTensor {BatchCount, InputChannelCount, InputHeight, InputWidth} and OutputTensor
are 4-dimensional (the support tiers); OutputTensor.Sizes = {BatchCount, InputChannelCount / (BlockSize *
BlockSize), InputHeight * BlockSize, InputWidth * BlockSize}, so InputChannelCount must be divisible by
BlockSize * BlockSize, and BlockSize must be at least 1 (it divides). DirectML agrees (vectors: an OutputTensor
of {1, 1, 1, 2} for a {1, 1, 1, 1} input with BlockSize 1 is refused; BlockSize 1 itself runs).
"""
from __future__ import annotations

from ..errors import Problem
from . import _layout as L


def check(desc, level) -> list[Problem]:
    """BlockSize >= 1; InputChannelCount divisible by b * b; OutputTensor {N, C / (b * b), H * b, W * b}."""
    return L.block_problems(desc, depth_to_space=True)
