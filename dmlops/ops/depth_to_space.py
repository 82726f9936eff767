"""DML_OPERATOR_DEPTH_TO_SPACE: blocks of channels moved into BlockSize x BlockSize pixels.

OutputTensor[n, c, h * b + bh, w * b + bw] = InputTensor[n, (bh * b + bw) * C' + c, h, w] with C' = C / (b * b):
DEPTH_TO_SPACE1's DEPTH_COLUMN_ROW order, ONNX DepthToSpace mode DCR (not torch's pixel_shuffle, which is
CRD). The docs' example and DirectML's vectors (float32, float16, int32) agree. The lowerings are in
dmlops.ops._movement.

Rules the descriptor file cannot express, from the docs page: InputTensor {BatchCount, InputChannelCount,
InputHeight, InputWidth} and OutputTensor are 4-dimensional (the support tiers); OutputTensor.Sizes = {BatchCount,
InputChannelCount / (BlockSize * BlockSize), InputHeight * BlockSize, InputWidth * BlockSize}, so InputChannelCount
must be divisible by BlockSize * BlockSize, and BlockSize must be at least 1 (it divides). DirectML agrees
(vectors: an OutputTensor of {1, 1, 1, 2} for a {1, 1, 1, 1} input with BlockSize 1 is refused; BlockSize 1 itself
runs).
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
    """BlockSize >= 1; InputChannelCount divisible by b * b; OutputTensor {N, C / (b * b), H * b, W * b}."""
    return L.block_problems(desc, depth_to_space=True)


def reference(desc, x):
    """One reshape to 5 dimensions, a transpose and a reshape (dmlops.ops._movement.block_plan)."""
    return {"OutputTensor": M.block_reference(desc, x["InputTensor"], depth_to_space=True)}


def to_onnx(desc, g, x):
    """Reshape, Transpose, Reshape (ONNX Runtime's CPU DepthToSpace takes float/double/uint8 only)."""
    return {"OutputTensor": M.block_onnx(g, desc, x["InputTensor"], depth_to_space=True)}


def to_torch(desc, torch, x):
    """reshape, permute, reshape (no pixel_shuffle on torch-directml; at most 5 dimensions)."""
    return {"OutputTensor": M.block_torch(torch, desc, x["InputTensor"], depth_to_space=True)}


# ----------------------------------------------------------------------------------------------- samples
def _samples():
    from ..descs import DepthToSpace

    x5 = np.arange(2 * 9 * 2 * 1, dtype=np.float32).reshape(2, 9, 2, 1)
    return [
        Sample("docs_example", block_desc(DepthToSpace, "FLOAT32", [1, 8, 2, 3], 2, True),
               {"InputTensor": DOCS_DEPTH}, {"OutputTensor": DOCS_SPACE_DCR}, **EXACT),
        # BlockSize 1 is a copy (DirectML runs it: vector twin of gap_..._output_sizes).
        Sample("block_1_copy", block_desc(DepthToSpace, "FLOAT32", [1, 2, 1, 2], 1, True),
               {"InputTensor": np.array([[[[np.nan, -0.0]], [[np.inf, 1]]]], np.float32)},
               {"OutputTensor": np.array([[[[np.nan, -0.0]], [[np.inf, 1]]]], np.float32)}, **EXACT),
        # BlockSize 3, two batches, a strided (broadcast) input: NumPy's reshape/transpose of the DCR layout
        # [N, b, b, C', H, W] -> [N, C', H, b, W, b] as the expected value (six dimensions; the lowerings use five).
        Sample("block_3_two_batches", block_desc(DepthToSpace, "FLOAT32", [2, 9, 2, 1], 3, True),
               {"InputTensor": x5},
               {"OutputTensor": x5.reshape(2, 3, 3, 1, 2, 1).transpose(0, 3, 4, 1, 5, 2).reshape(2, 1, 6, 3)},
               **EXACT),
    ] + integer_samples(DepthToSpace, True, ew.INTEGERS)


SAMPLES = _samples()
