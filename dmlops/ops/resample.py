"""DML_OPERATOR_RESAMPLE: shape rules the descriptor file cannot express.

ScaleCount (the length of Scales) "must match the dimension count of InputTensor and OutputTensor" (DirectML
refuses two scales for 4-D tensors); every scale is greater than 0 (> 1 scales up, < 1 down). OutputTensor's
Sizes are not tied to floor(InputSize * Scale): the page says the scales "don't need to be exactly
OutputSize / InputSize" (the result is cropped or its edges clamped), so no such rule is checked.
Shared rules: dmlops/ops/_windows.py.
"""
from __future__ import annotations

from ..errors import Problem
from ._windows import resample_problems


def check(desc, level) -> list[Problem]:
    """Scales > 0 and ScaleCount = the tensors' DimensionCount."""
    return resample_problems(desc, field="ScaleCount")
