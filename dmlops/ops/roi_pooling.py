"""DML_OPERATOR_ROI_POOLING: the max of InputTensor over each bin of each region (ROITensor rows
[BatchID, x1, y1, x2, y2], inclusive corners), PooledSize bins per region.

The docs' integer formulas: x1 = round(RoiX1 * SpatialScale) (x2, y1, y2 alike), RegionWidth = x2 - x1 + 1,
StartX = (X * RegionWidth) / PooledSize.Width + x1 (floor), EndX = ((X + 1) * RegionWidth + PooledSize.Width - 1)
/ PooledSize.Width + x1 (ceiling, exclusive), clamped to [0, InputWidth]; y alike.

* round() is half to even: DirectML's vectors (ROI_POOLING float32_pooled_2x2 and its float16 twin, ROI
  [0, 0.5, 1.5, 2.5, 3.2]) need x1 = round(0.5) = 0 and x2 = round(2.5) = 2; half away from zero (C's round,
  Caffe's and onnxruntime's MaxRoiPool) misses 7 of 36 values. So ONNX MaxRoiPool is no lowering here (and
  onnxruntime's CPU kernel is float32 only).
* NaN is skipped, and a bin holding only NaN gives NaN: DirectML's REDUCE MAX does so (its vectors
  edge_*_ties_nan_inf), as its max returns the non-NaN operand; no ROI_POOLING vector has a NaN, so this is
  inferred. (ONNX Runtime's CPU ReduceMax skipped NaN while NumPy and torch propagated it, so the backends
  disagreed until the rule was written into every lowering.)
* An empty bin (a region outside the input) gives 0, as Caffe and ONNX MaxRoiPool write; the docs do not say and
  no vector has one. Regions with x2 < x1 break the docs' contract (x2 >= x1); dmlops applies the same formulas
  (floor and ceiling of the exact quotients) to them.
* BatchID is read from the float column, truncated to an integer. A BatchID outside [0, BatchCount) (or NaN),
  which the docs leave undefined and no vector has, gives 0 in every bin of its region (as an empty bin) on
  every backend; a backend's own gather would raise or, for -1, read the last batch.

Every backend computes the bins in its graph from the runtime ROIs (dmlops/ops/_roi.py) and takes a masked max over
the width, then over the height (a separable max over the bin): exact.

Shape rules the descriptor file cannot express:

InputTensor {BatchCount, ChannelCount, InputHeight, InputWidth}; ROITensor {1, 1, NumROIs, 5} (each row
[BatchID, x1, y1, x2, y2]); OutputTensor {NumROIs, InputChannelCount, PooledSize.Height, PooledSize.Width}
("PooledSize ... must match the last 2 dimensions of OutputTensor").
"""
from __future__ import annotations

import numpy as np

from ..errors import Problem
from ..sample import Sample, td
from ..validation import shape_problem, tensor
from . import _roi
from ._shapes import sizes
from ._windows import roi_count


def check(desc, level) -> list[Problem]:
    """ROITensor {1, 1, NumROIs, 5}; OutputTensor {NumROIs, InputChannelCount, PooledSize.Height, PooledSize.Width}."""
    num_rois, out = roi_count(desc, 5, ranks=(4,))
    y = sizes(tensor(desc, "OutputTensor"), 4)
    if y is None:
        return out
    x = sizes(tensor(desc, "InputTensor"), 4)
    expected = [num_rois if num_rois is not None else y[0], x[1] if x is not None else y[1],
                desc.pooled_size.height, desc.pooled_size.width]
    if y != expected:
        out.append(shape_problem(desc, "OutputTensor", y,
                                 "{NumROIs, InputChannelCount, PooledSize.Height, PooledSize.Width}", expected))
    return out


def _run(kind, desc, x, *args):
    A, rois, _ = _roi.inputs(kind, x, None, *args)
    y = _roi.pool_forward(A, desc, x["InputTensor"], rois, list(desc.input_tensor.sizes), _roi.num_rois(desc))
    return {"OutputTensor": y}


def reference(desc, x):
    """The bins of dmlops/ops/_roi.py in NumPy float32."""
    return _run("reference", desc, dict(x, InputTensor=np.asarray(x["InputTensor"], np.float32)))


def to_onnx(desc, g, x):
    """Bins from Round/Floor/Ceil of the ROI values, Gather of each region's image, masked ReduceMax twice."""
    return _run("onnx", desc, dict(x, InputTensor=g.cast(x["InputTensor"], np.float32)), g)


def to_torch(desc, torch, x):
    """The same with torch ops (round, index_select, where, amax)."""
    v = x["InputTensor"].to(torch.float32)
    return _run("torch", desc, dict(x, InputTensor=v), torch, v.device)


# ----------------------------------------------------------------------------------------------- samples
def _desc(in_sizes, num, pooled, scale=1.0, data_type="FLOAT32"):
    from ..descs import RoiPooling
    from ..types import Size2D

    return RoiPooling(input_tensor=td(data_type, in_sizes), roi_tensor=td(data_type, [1, 1, num, 5]),
                      output_tensor=td(data_type, [num, in_sizes[1]] + list(pooled)), spatial_scale=scale,
                      pooled_size=Size2D(width=pooled[1], height=pooled[0]))


def _samples():
    f32 = np.float32
    grid = np.arange(16, dtype=f32).reshape(1, 1, 4, 4)  # value = 4 * row + column
    two = np.concatenate([grid, -grid])
    exact = dict(atol=0, rtol=0, why="exact: maxima")
    return [
        # ROI [0; 0, 0, 3, 3], 2 x 2 bins: RegionHeight = 4, bins rows [0, 2) and [2, 4), columns alike: the max of
        # each 2 x 2 block is its bottom-right element: [[5, 7], [13, 15]].
        # ROI [0; 0.5, 0.5, 2.5, 2.5] rounds half to even to [0, 0, 2, 2]: Region 3, bin 0 = [0 * 3 / 2, ceil(3 /
        # 2)) = [0, 2), bin 1 = [floor(3 / 2), ceil(6 / 2)) = [1, 3): overlapping bins, maxima [[5, 6], [9, 10]].
        # ROI [1; 5, 5, 8, 8] (batch 1, outside): every bin clamps to [4, 4): empty, 0.
        # ROI [1; 0, 0, 0, 0] (batch 1 = -grid): Region 1, bin 0 = [0, 1), bin 1 = [floor(1 / 2), ceil(2 / 2)) =
        # [0, 1): the single element -0 in every bin (its sign kept).
        Sample("by_hand", _desc([2, 1, 4, 4], 4, [2, 2]),
               {"InputTensor": two, "ROITensor": np.array([[0, 0, 0, 3, 3], [0, 0.5, 0.5, 2.5, 2.5], [1, 5, 5, 8, 8],
                                                           [1, 0, 0, 0, 0]], f32).reshape(1, 1, 4, 5)},
               {"OutputTensor": np.array([[5, 7, 13, 15], [5, 6, 9, 10], [0, 0, 0, 0], [-0.0] * 4],
                                         f32).reshape(4, 1, 2, 2)}, **exact),
        # SpatialScale 0.5: ROI [0; 1, 2, 6.9, 6] scales to [0.5, 1, 3.45, 3] and rounds to [0, 1, 3, 3]:
        # RegionWidth 4, RegionHeight 3; 1 x 3 bins: rows [1, 4); columns [0, 2), [1, 3), [2, 4) (floor(4/3) = 1,
        # ceil(8/3) = 3, floor(8/3) = 2): maxima 13, 14, 15.
        Sample("spatial_scale", _desc([1, 1, 4, 4], 1, [1, 3], scale=0.5),
               {"InputTensor": grid, "ROITensor": np.array([0, 1, 2, 6.9, 6], f32).reshape(1, 1, 1, 5)},
               {"OutputTensor": np.array([13, 14, 15], f32).reshape(1, 1, 1, 3)}, **exact),
        Sample("random", _desc([2, 3, 6, 5], 3, [2, 3], scale=0.8),
               {"InputTensor": np.random.default_rng(59).standard_normal((2, 3, 6, 5)).astype(f32),
                "ROITensor": np.array([[0, 0, 0, 3, 4], [1, 1.2, 1, 6, 7], [0, 0.5, 1.5, 2.5, 3.2]],
                                      f32).reshape(1, 1, 3, 5)}, **exact),
    ]


SAMPLES = _samples()
