"""DML_OPERATOR_ROI_ALIGN: shape rules the descriptor file cannot express.

InputTensor {BatchCount, ChannelCount, InputHeight, InputWidth}; ROITensor {NumROIs, 4}, {1, NumROIs, 4} or
{1, 1, NumROIs, 4}; BatchIndicesTensor {NumROIs}, {1, NumROIs}, {1, 1, NumROIs} or {1, 1, 1, NumROIs};
OutputTensor {NumROIs, ChannelCount, OutputHeight, OutputWidth}. ReductionFunction is
DML_REDUCE_FUNCTION_AVERAGE or DML_REDUCE_FUNCTION_MAX (DirectML refuses ARGMAX), and the number of samples
is clamped to [MinimumSamplesPerOutput, MaximumSamplesPerOutput], so the minimum is at most the maximum.
Shared rules: dmlops/ops/_windows.py.
"""
from __future__ import annotations

from ..errors import Problem
from ._windows import roi_align_problems


def check(desc, level) -> list[Problem]:
    """ReductionFunction, sample bounds, ROITensor, BatchIndicesTensor and OutputTensor sizes."""
    return roi_align_problems(desc)
