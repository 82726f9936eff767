"""DML_OPERATOR_SPACE_TO_DEPTH: BlockSize x BlockSize pixels moved into blocks of channels.

The inverse of DEPTH_TO_SPACE: OutputTensor[n, (bh * b + bw) * C + c, h, w] = InputTensor[n, c, h * b + bh,
w * b + bw] (ONNX SpaceToDepth, DCR; not torch's pixel_unshuffle, which is CRD). The docs' example and DirectML's
vectors (float32, float16, int32) agree. The lowerings are in dmlops.ops._movement.

Rules the descriptor file cannot express, from the docs page and DirectML: InputTensor {Batch, Channels, Height,
Width} and OutputTensor are 4-dimensional (the support tiers); BlockSize must be at least 1 (it divides), Height
and Width must be divisible by BlockSize, and OutputTensor.Sizes = {Batch, Channels * BlockSize * BlockSize, Height
/ BlockSize, Width / BlockSize}. The page's OutputTensor text gives DEPTH_TO_SPACE's sizes ({Channels / (BlockSize
* BlockSize), Height * BlockSize, Width * BlockSize}); its example ({1, 2, 4, 6} -> {1, 8, 2, 3}) and DirectML
(vectors) follow the rule above, so dmlops does: DirectML wins over the page text.
"""
from __future__ import annotations

import numpy as np

from ..errors import Problem
from ..sample import Sample
from . import _elementwise as ew
from . import _layout as L
from . import _movement as M
from ._movement import DOCS_DEPTH, DOCS_SPACE_DCR, EXACT, block_desc, integer_samples


def check(desc, level) -> list[Problem]:
    """BlockSize >= 1; Height and Width divisible by BlockSize; OutputTensor {N, C * b * b, H / b, W / b}."""
    return L.block_problems(desc, depth_to_space=False)


def reference(desc, x):
    """One reshape to 5 dimensions, a transpose and a reshape (dmlops.ops._movement.block_plan)."""
    return {"OutputTensor": M.block_reference(desc, x["InputTensor"], depth_to_space=False)}


def to_onnx(desc, g, x):
    """Reshape, Transpose, Reshape (ONNX Runtime's CPU SpaceToDepth takes float/double only)."""
    return {"OutputTensor": M.block_onnx(g, desc, x["InputTensor"], depth_to_space=False)}


def to_torch(desc, torch, x):
    """reshape, permute, reshape (no pixel_unshuffle on torch-directml; at most 5 dimensions)."""
    return {"OutputTensor": M.block_torch(torch, desc, x["InputTensor"], depth_to_space=False)}


# ----------------------------------------------------------------------------------------------- samples
def _samples():
    from ..descs import SpaceToDepth

    x = np.arange(2 * 1 * 3 * 6, dtype=np.float32).reshape(2, 1, 3, 6)
    return [
        # The docs' example: {1, 2, 4, 6} -> {1, 8, 2, 3}, the inverse of DEPTH_TO_SPACE's.
        Sample("docs_example", block_desc(SpaceToDepth, "FLOAT32", [1, 2, 4, 6], 2, False),
               {"InputTensor": DOCS_SPACE_DCR}, {"OutputTensor": DOCS_DEPTH}, **EXACT),
        # BlockSize 3, two batches: NumPy's six-dimensional reshape/transpose [N, C, H', b, W', b] ->
        # [N, b, b, C, H', W'].
        Sample("block_3_two_batches", block_desc(SpaceToDepth, "FLOAT32", [2, 1, 3, 6], 3, False),
               {"InputTensor": x},
               {"OutputTensor": x.reshape(2, 1, 1, 3, 2, 3).transpose(0, 3, 5, 1, 2, 4).reshape(2, 9, 1, 2)},
               **EXACT),
        # A column-major input (Strides {4, 4, 1, 2}): the {2, 2} plane [[0, 2], [1, 3]].
        Sample("strided_input", block_desc(SpaceToDepth, "FLOAT32", [1, 1, 2, 2], 2, False, [4, 4, 1, 2]),
               {"InputTensor": np.array([0, 1, 2, 3], np.float32)},
               {"OutputTensor": np.array([0, 2, 1, 3], np.float32).reshape(1, 4, 1, 1)}, **EXACT),
    ] + integer_samples(SpaceToDepth, False, ew.INTEGERS)


SAMPLES = _samples()
