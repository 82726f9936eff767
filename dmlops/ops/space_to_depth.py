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
from ..sample import Sample, td
from . import _elementwise as ew
from . import _layout as L
from . import _movement as M


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
EXACT = dict(atol=0, rtol=0, float16_atol=0, float16_rtol=0, why="a rearrangement of input elements: exact")
# The docs' examples (DEPTH_TO_SPACE1 and SPACE_TO_DEPTH1 pages, copied; the v0 pages show the DCR pair): a
# {1, 8, 2, 3} depth tensor whose channel k holds 9k + 0 .. 9k + 5, and its {1, 2, 4, 6} space forms, BlockSize 2.
DOCS_DEPTH = (9 * np.arange(8).reshape(8, 1) + np.arange(6)).astype(np.float32).reshape(1, 8, 2, 3)
# DEPTH_COLUMN_ROW: output (c, h * 2 + bh, w * 2 + bw) reads channel (bh * 2 + bw) * 2 + c at (h, w).
DOCS_SPACE_DCR = np.array([[[[0, 18, 1, 19, 2, 20], [36, 54, 37, 55, 38, 56], [3, 21, 4, 22, 5, 23],
                             [39, 57, 40, 58, 41, 59]],
                            [[9, 27, 10, 28, 11, 29], [45, 63, 46, 64, 47, 65], [12, 30, 13, 31, 14, 32],
                             [48, 66, 49, 67, 50, 68]]]], np.float32)
# COLUMN_ROW_DEPTH: channel c * 4 + bh * 2 + bw.
DOCS_SPACE_CRD = np.array([[[[0, 9, 1, 10, 2, 11], [18, 27, 19, 28, 20, 29], [3, 12, 4, 13, 5, 14],
                             [21, 30, 22, 31, 23, 32]],
                            [[36, 45, 37, 46, 38, 47], [54, 63, 55, 64, 56, 65], [39, 48, 40, 49, 41, 50],
                             [57, 66, 58, 67, 59, 68]]]], np.float32)


def block_desc(cls, data_type, in_sizes, block, depth_to_space, in_strides=None, **order):
    n, c, h, w = in_sizes
    b = block
    out = [n, c // (b * b), h * b, w * b] if depth_to_space else [n, c * b * b, h // b, w // b]
    return cls(input_tensor=td(data_type, in_sizes, in_strides), output_tensor=td(data_type, out), block_size=block,
               **order)


def integer_samples(cls, depth_to_space, types, **order) -> list[Sample]:
    """Every integer DataType in ``types`` with its extremes, BlockSize 2 on one pixel of 4 channels (DCR and CRD
    agree there: channel bh * 2 + bw goes to (bh, bw))."""
    out = []
    for t in types:
        lo, hi = ew.int_range(np.dtype(t.lower()))
        depth = ew.int_array([lo, hi, 0, lo + 1], t).reshape(1, 4, 1, 1)
        space = depth.reshape(1, 1, 2, 2)
        x, y = (depth, space) if depth_to_space else (space, depth)
        desc = block_desc(cls, t, list(x.shape), 2, depth_to_space, **order)
        out.append(Sample(f"int_{t.lower()}_extremes", desc, {"InputTensor": x}, {"OutputTensor": y},
                          **dict(EXACT, why="integers are copied bit for bit")))
    return out


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
