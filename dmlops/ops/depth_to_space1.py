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
from ..sample import Sample
from . import _elementwise as ew
from . import _layout as L
from . import _movement as M
from ._movement import DOCS_DEPTH, DOCS_SPACE_CRD, DOCS_SPACE_DCR, EXACT, block_desc, integer_samples


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
