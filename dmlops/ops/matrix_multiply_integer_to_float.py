"""DML_OPERATOR_MATRIX_MULTIPLY_INTEGER_TO_FLOAT: shape rules the descriptor file cannot express.

From the docs: ATensor is {[BatchCount], [ChannelCount], M, K}, BTensor {.., K, N}, OutputTensor
{.., M, N} (2 to 4 dimensions, one DimensionCount: the descriptor's 'same' rule); ATensor defines the
leading dimensions, M and K, BTensor defines N. AScaleTensor and AZeroPointTensor are per-tensor
{1, 1, 1, 1} or per-row {1, 1, M, 1}; BScaleTensor and BZeroPointTensor per-tensor or per-column
{1, 1, 1, N}; lower ranks drop leading 1s (see matrix_multiply_integer.py). BiasTensor has
OutputTensor's Sizes (the 'same' rule). The page also describes an OutputScaleTensor and an
OutputZeroPointTensor that the struct does not have (a docs defect; the struct decides).

Math (docs): Output = (A - AZeroPoint) * AScale x (B - BZeroPoint) * BScale + Bias.
Only check() is written so far.
"""
from __future__ import annotations

from ..errors import Problem
from ._quantized import matmul_sizes, per_axis_problems


def check(desc, level) -> list[Problem]:
    """BTensor and OutputTensor follow ATensor; A scale/zero point per-tensor or per-row, B's per-column."""
    out, m, n = matmul_sizes(desc)
    return out + per_axis_problems(desc, ["AScaleTensor", "AZeroPointTensor"],
                                   ["BScaleTensor", "BZeroPointTensor"], m, n)
