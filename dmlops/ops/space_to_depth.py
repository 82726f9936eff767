"""DML_OPERATOR_SPACE_TO_DEPTH: shape rules the descriptor file cannot express.

From the docs page and DirectML: InputTensor {Batch, Channels, Height, Width} and OutputTensor are
4-dimensional (the support tiers); BlockSize must be at least 1 (it divides), Height and Width must be divisible
by BlockSize, and OutputTensor.Sizes = {Batch, Channels * BlockSize * BlockSize, Height / BlockSize,
Width / BlockSize}. The page's OutputTensor text gives DEPTH_TO_SPACE's sizes ({Channels / (BlockSize *
BlockSize), Height * BlockSize, Width * BlockSize}); its example ({1, 2, 4, 6} -> {1, 8, 2, 3}) and DirectML
(vectors) follow the rule above, so dmlops does: DirectML wins over the page text.
"""
from __future__ import annotations

from ..errors import Problem
from . import _layout as L


def check(desc, level) -> list[Problem]:
    """BlockSize >= 1; Height and Width divisible by BlockSize; OutputTensor {N, C * b * b, H / b, W / b}."""
    return L.block_problems(desc, depth_to_space=False)
