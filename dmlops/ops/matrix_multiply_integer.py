"""DML_OPERATOR_MATRIX_MULTIPLY_INTEGER: shape rules the descriptor file cannot express.

From the docs: ATensor is {BatchCount, ChannelCount, M, K}, BTensor {BatchCount, ChannelCount, K, N}
and OutputTensor {BatchCount, ChannelCount, M, N}; from DML_FEATURE_LEVEL_4_0 the leading dimensions
are optional (2 to 4 dimensions; the three share a DimensionCount, the descriptor's 'same' rule).
ATensor defines the leading dimensions, M and K; BTensor defines N. AZeroPointTensor is per-tensor
{1, 1, 1, 1} or per-row {1, 1, M, 1}; BZeroPointTensor per-tensor {1, 1, 1, 1} or per-column
{1, 1, 1, N}. The zero points may have fewer dimensions (1 to 4 from 4_0/5_2): leading 1s are dropped
({M, 1}, {1, N}, {N}), and a 1-D per-row AZeroPointTensor is {M} (the tier table writes it as
{ [1], [1], AZeroPointCount, [1] }). Each zero point has its matrix's DataType (the 'same' rule).

Math (docs): Output = (A - AZeroPoint) x (B - BZeroPoint), accumulated in INT32, one product per
leading index. Only check() is written so far.
"""
from __future__ import annotations

from ..errors import Problem
from ._quantized import matmul_sizes, per_axis_problems


def check(desc, level) -> list[Problem]:
    """BTensor {.., K, N} and OutputTensor {.., M, N} follow ATensor; zero points per-tensor/row/column."""
    out, m, n = matmul_sizes(desc)
    return out + per_axis_problems(desc, ["AZeroPointTensor"], ["BZeroPointTensor"], m, n)
