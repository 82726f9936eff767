"""DML_OPERATOR_ROI_POOLING: shape rules the descriptor file cannot express.

InputTensor {BatchCount, ChannelCount, InputHeight, InputWidth}; ROITensor {1, 1, NumROIs, 5} (each row
[BatchID, x1, y1, x2, y2]); OutputTensor {NumROIs, InputChannelCount, PooledSize.Height, PooledSize.Width}
("PooledSize ... must match the last 2 dimensions of OutputTensor").
"""
from __future__ import annotations

from ..errors import Problem
from ..validation import shape_problem, tensor
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
