"""DML_OPERATOR_RESAMPLE1: shape rules the descriptor file cannot express.

As RESAMPLE with InputPixelOffsets and OutputPixelOffsets (OutputX = (InputX + InputPixelOffset) * Scale +
OutputPixelOffset): DimensionCount (the length of Scales, InputPixelOffsets and OutputPixelOffsets) "must
match the dimension count of InputTensor and OutputTensor"; every scale is greater than 0. OutputTensor's
Sizes are not tied to floor(InputSize * Scale): the page says the scales "don't need to be exactly OutputSize
/ InputSize" (the result is cropped or its edges clamped), so no such rule is checked. Shared rules:
dmlops/ops/_windows.py.
"""
from __future__ import annotations

from ..errors import Problem
from ._windows import resample_problems


def check(desc, level) -> list[Problem]:
    """Scales > 0 and DimensionCount = the tensors' DimensionCount."""
    return resample_problems(desc)
