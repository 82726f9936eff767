"""DML_OPERATOR_RESAMPLE_GRAD1: shape rules the descriptor file cannot express.

The gradient of RESAMPLE2: DimensionCount (the length of Scales, InputPixelOffsets and OutputPixelOffsets) "must
equal the DimensionCount provided in the InputGradientTensor and OutputGradientTensor"; every scale is greater
than 0. InputGradientTensor "typically" has the forward output's Sizes and OutputGradientTensor the forward
input's, but as in the forward operator the scales need not be exactly OutputSize / InputSize, so no Sizes
relation is checked. RoundingDirection has no shape effect. Shared rules: dmlops/ops/_windows.py.
"""
from __future__ import annotations

from ..errors import Problem
from ._windows import resample_problems


def check(desc, level) -> list[Problem]:
    """Scales > 0 and DimensionCount = the tensors' DimensionCount."""
    return resample_problems(desc, sources=("InputGradientTensor", "OutputGradientTensor"))
