"""DML_OPERATOR_SPACE_TO_DEPTH1: SPACE_TO_DEPTH with a DML_DEPTH_SPACE_ORDER.

DEPTH_COLUMN_ROW: OutputTensor[n, (bh * b + bw) * C + c, h, w] = InputTensor[n, c, h * b + bh, w * b + bw]
(ONNX SpaceToDepth, SPACE_TO_DEPTH's order); COLUMN_ROW_DEPTH: OutputTensor[n, (c * b + bh) * b + bw, h, w]
(torch.nn.functional.pixel_unshuffle; ONNX SpaceToDepth has no such mode). DirectML's vectors (float32 and uint8,
both orders) agree. The lowerings are in dmlops.ops._movement.

Rules the descriptor file cannot express, from the docs page and DirectML: InputTensor {Batch, Channels, Height,
Width} and OutputTensor are 4-dimensional (the support tiers); BlockSize must be at least 1 (it divides), Height
and Width must be divisible by BlockSize, and OutputTensor.Sizes = {Batch, Channels * BlockSize * BlockSize, Height
/ BlockSize, Width / BlockSize}. The page's OutputTensor text gives DEPTH_TO_SPACE's sizes ({Channels / (BlockSize
* BlockSize), Height * BlockSize, Width * BlockSize}); its example ({1, 2, 4, 6} -> {1, 8, 2, 3}) and DirectML
(vectors) follow the rule above, so dmlops does: DirectML wins over the page text. Order changes the order of the
moved elements, not the Sizes.
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
    from ..descs import SpaceToDepth1

    dcr, crd = dict(order="DEPTH_COLUMN_ROW"), dict(order="COLUMN_ROW_DEPTH")
    return [
        Sample("docs_example_depth_column_row", block_desc(SpaceToDepth1, "FLOAT32", [1, 2, 4, 6], 2, False, **dcr),
               {"InputTensor": DOCS_SPACE_DCR}, {"OutputTensor": DOCS_DEPTH}, **EXACT),
        Sample("column_row_depth", block_desc(SpaceToDepth1, "FLOAT32", [1, 2, 4, 6], 2, False, **crd),
               {"InputTensor": DOCS_SPACE_CRD}, {"OutputTensor": DOCS_DEPTH}, **EXACT),
        Sample("float64", block_desc(SpaceToDepth1, "FLOAT64", [1, 1, 2, 2], 2, False, **crd),
               {"InputTensor": np.array([[1 / 3, 1e300], [-0.0, 5e-324]]).reshape(1, 1, 2, 2)},
               {"OutputTensor": np.array([1 / 3, 1e300, -0.0, 5e-324]).reshape(1, 4, 1, 1)}, **EXACT),
    ] + integer_samples(SpaceToDepth1, False, ew.INTEGERS, **dcr) + [
        s for s in integer_samples(SpaceToDepth1, False, ("INT64", "UINT64"), **crd)]


SAMPLES = _samples()
