"""DML_OPERATOR_ROI_ALIGN1: shape rules the descriptor file cannot express.

As ROI_ALIGN: ROITensor {[1], [1], NumROIs, 4}; BatchIndicesTensor {[1], [1], [1], NumROIs}; OutputTensor
{NumROIs, ChannelCount, OutputHeight, OutputWidth}; ReductionFunction AVERAGE or MAX; MinimumSamplesPerOutput
at most MaximumSamplesPerOutput. Regions may be empty or inverted (x2 < x1): values, not shapes. Shared rules:
dmlops/ops/_windows.py.
"""
from __future__ import annotations

from ..errors import Problem
from ._windows import roi_align_problems


def check(desc, level) -> list[Problem]:
    """ReductionFunction, sample bounds, ROITensor, BatchIndicesTensor and OutputTensor sizes."""
    return roi_align_problems(desc)
