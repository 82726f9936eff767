"""DML_OPERATOR_ROI_ALIGN: ROI_ALIGN1 with the pixel centres fixed (InputPixelOffset 0.5, OutputPixelOffset -0.5,
AlignRegionsToCorners FALSE, as the ROI_ALIGN1 page says): crops of InputTensor resampled to {OutputHeight,
OutputWidth}, each output element the AVERAGE or MAX of its samples. Every rule, decision and lowering is
ROI_ALIGN1's (dmlops/ops/roi_align1.py, dmlops/ops/_roi.py); DirectML's vectors (float32/float16 AVERAGE+LINEAR
and MAX+NEAREST) are reproduced bit for bit.

Shape rules the descriptor file cannot express: ROITensor {NumROIs, 4}, {1, NumROIs, 4} or {1, 1, NumROIs, 4};
BatchIndicesTensor {[1], [1], [1], NumROIs}; OutputTensor {NumROIs, ChannelCount, OutputHeight, OutputWidth};
ReductionFunction AVERAGE or MAX (DirectML refuses ARGMAX: vector gap_factory_tier_3_0_dt_0_rank_default);
MinimumSamplesPerOutput at most MaximumSamplesPerOutput. Shared rules: dmlops/ops/_windows.py.
"""
from __future__ import annotations

from ..errors import Problem
from . import roi_align1 as _one
from ._windows import roi_align_problems


def check(desc, level) -> list[Problem]:
    """ReductionFunction, sample bounds, ROITensor, BatchIndicesTensor and OutputTensor sizes."""
    return roi_align_problems(desc)


def reference(desc, x):
    """As ROI_ALIGN1 with offsets 0.5 / -0.5 (dmlops/ops/_roi.py reads them as those when the fields are absent)."""
    return _one.reference(desc, x)


def to_onnx(desc, g, x):
    """As ROI_ALIGN1."""
    return _one.to_onnx(desc, g, x)


def to_torch(desc, torch, x):
    """As ROI_ALIGN1."""
    return _one.to_torch(desc, torch, x)


def _samples():
    from ..descs import RoiAlign

    return _one.common_samples(RoiAlign)


SAMPLES = _samples()
