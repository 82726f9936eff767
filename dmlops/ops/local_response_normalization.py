"""DML_OPERATOR_LOCAL_RESPONSE_NORMALIZATION: rules the descriptor file cannot express.

From the docs: LocalSize is "the number of elements to sum over per dimension: Width, Height, and
optionally Channel (if CrossChannel is set). This value must be at least 1." An even LocalSize is
allowed: DirectML ran LocalSize 2 (vectors float32_cross_1_size_2, float16_cross_1_size_2), so dmlops
does not ask for an odd window (where such a window is centred is a lowering question, see
research/lowering_map.md). The docs give no upper bound (a window larger than the tensor is clipped).
InputTensor and OutputTensor share DataType and Sizes (the descriptor's 'same' rule) and are 4-D (its
support tier).

Math (docs): Output = Input / (Bias + (Alpha / LocalSize) * sum(Input^2 over the window))^Beta.
Only check() is written so far.
"""
from __future__ import annotations

from ..errors import Problem


def check(desc, level) -> list[Problem]:
    """LocalSize is at least 1."""
    return local_size_problems(desc)


def local_size_problems(desc) -> list[Problem]:
    """LocalSize >= 1 (shared with LOCAL_RESPONSE_NORMALIZATION_GRAD)."""
    if desc.local_size >= 1:
        return []
    return [Problem(desc.OPERATOR_TYPE, "LocalSize", "range",
                    f"{desc.local_size} is not allowed (allowed: 1 or more).")]
