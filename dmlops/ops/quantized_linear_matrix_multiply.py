"""DML_OPERATOR_QUANTIZED_LINEAR_MATRIX_MULTIPLY: shape rules the descriptor file cannot express.

From the docs: ATensor is {BatchCount, ChannelCount, M, K}, BTensor {BatchCount, ChannelCount, K, N},
OutputTensor {BatchCount, ChannelCount, M, N}; from DML_FEATURE_LEVEL_4_0 the leading dimensions are
optional (2 to 4 dimensions, one DimensionCount: the descriptor's 'same' rule). AScaleTensor and
AZeroPointTensor are per-tensor {1, 1, 1, 1} or per-row {1, 1, M, 1}; BScaleTensor and
BZeroPointTensor per-tensor or per-column {1, 1, 1, N}; OutputScaleTensor and OutputZeroPointTensor
per-tensor or per-row {1, 1, M, 1}. The six quantization tensors share a DimensionCount (the 'same'
rule), which may be lower than the matrices' (leading 1s dropped, see matrix_multiply_integer.py).

Math (docs): Output = round(((A - AZeroPoint) * AScale x (B - BZeroPoint) * BScale) / OutputScale)
+ OutputZeroPoint, saturated to the output type. Only check() is written so far.
"""
from __future__ import annotations

from ..errors import Problem
from ._quantized import matmul_sizes, per_axis_problems


def check(desc, level) -> list[Problem]:
    """BTensor and OutputTensor follow ATensor; A and Output quantization per-tensor or per-row, B's per-column."""
    out, m, n = matmul_sizes(desc)
    return out + per_axis_problems(desc, ["AScaleTensor", "AZeroPointTensor", "OutputScaleTensor",
                                          "OutputZeroPointTensor"], ["BScaleTensor", "BZeroPointTensor"], m, n)
