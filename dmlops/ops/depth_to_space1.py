"""DML_OPERATOR_DEPTH_TO_SPACE1: DEPTH_TO_SPACE with a DML_DEPTH_SPACE_ORDER.

DEPTH_COLUMN_ROW: OutputTensor[n, c, h * b + bh, w * b + bw] = InputTensor[n, (bh * b + bw) * C' + c, h, w]
(ONNX DepthToSpace mode DCR, DEPTH_TO_SPACE's order); COLUMN_ROW_DEPTH: InputTensor[n, (c * b + bh) * b + bw, h,
w] (mode CRD, torch.nn.functional.pixel_shuffle). DirectML's vectors (float32 and uint8, both orders) agree. The
lowerings are in dmlops.ops._movement.

Rules the descriptor file cannot express, from the docs page: InputTensor {BatchCount, InputChannelCount,
InputHeight, InputWidth} and OutputTensor are 4-dimensional (the support tiers); OutputTensor.Sizes = {BatchCount,
InputChannelCount / (BlockSize * BlockSize), InputHeight * BlockSize, InputWidth * BlockSize}, so InputChannelCount
must be divisible by BlockSize * BlockSize, and BlockSize must be at least 1 (it divides). DirectML agrees
(vectors: an OutputTensor of {1, 1, 1, 2} for a {1, 1, 1, 1} input with BlockSize 1 is refused; BlockSize 1 itself
runs). Order changes the order of the moved elements, not the Sizes.
"""
from __future__ import annotations

import numpy as np

from ..errors import Problem
from ..sample import Sample, td
from . import _elementwise as ew
from . import _layout as L
from . import _movement as M


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
    from ..descs import DepthToSpace1

    dcr, crd = dict(order="DEPTH_COLUMN_ROW"), dict(order="COLUMN_ROW_DEPTH")
    x = np.arange(2 * 8 * 1 * 2, dtype=np.float32).reshape(2, 8, 1, 2)
    return [
        Sample("docs_example_depth_column_row", block_desc(DepthToSpace1, "FLOAT32", [1, 8, 2, 3], 2, True, **dcr),
               {"InputTensor": DOCS_DEPTH}, {"OutputTensor": DOCS_SPACE_DCR}, **EXACT),
        Sample("docs_input_column_row_depth", block_desc(DepthToSpace1, "FLOAT32", [1, 8, 2, 3], 2, True, **crd),
               {"InputTensor": DOCS_DEPTH}, {"OutputTensor": DOCS_SPACE_CRD}, **EXACT),
        # Two batches, each order against NumPy's six-dimensional reshape/transpose of its channel layout.
        Sample("two_batches_depth_column_row", block_desc(DepthToSpace1, "FLOAT32", [2, 8, 1, 2], 2, True, **dcr),
               {"InputTensor": x},
               {"OutputTensor": x.reshape(2, 2, 2, 2, 1, 2).transpose(0, 3, 4, 1, 5, 2).reshape(2, 2, 2, 4)}, **EXACT),
        Sample("two_batches_column_row_depth", block_desc(DepthToSpace1, "FLOAT32", [2, 8, 1, 2], 2, True, **crd),
               {"InputTensor": x},
               {"OutputTensor": x.reshape(2, 2, 2, 2, 1, 2).transpose(0, 1, 4, 2, 5, 3).reshape(2, 2, 2, 4)}, **EXACT),
        # FLOAT64 (DML_FEATURE_LEVEL_5_0).
        Sample("float64", block_desc(DepthToSpace1, "FLOAT64", [1, 4, 1, 1], 2, True, **crd),
               {"InputTensor": np.array([1 / 3, 1e300, -0.0, 5e-324]).reshape(1, 4, 1, 1)},
               {"OutputTensor": np.array([[1 / 3, 1e300], [-0.0, 5e-324]]).reshape(1, 1, 2, 2)}, **EXACT),
    ] + integer_samples(DepthToSpace1, True, ew.INTEGERS, **dcr) + [
        s for s in integer_samples(DepthToSpace1, True, ("INT64", "UINT64"), **crd)]


SAMPLES = _samples()
