"""DML_OPERATOR_MEAN_VARIANCE_NORMALIZATION: shape rules the descriptor file cannot express.

From the docs: InputTensor and OutputTensor are {BatchCount, ChannelCount, Height, Width} (the
descriptor's 'same Sizes' rule and 4-D support tier); ScaleTensor and BiasTensor are the same
layout, where "any dimension can be replaced with 1 to broadcast in that dimension"; below
DML_FEATURE_LEVEL_5_2 each of ScaleTensor and BiasTensor "is required if" the other "is present".
CrossChannel picks the normalized axes ({ChannelCount, Height, Width} or {Height, Width}), which
every 4-D input has, so it constrains no shape.

Math (docs): Output = FusedActivation(Scale * (Input - Mean) / sqrt(Variance + Epsilon) + Bias), or
without the division when NormalizeVariance is FALSE. Only check() is written so far; the operator
has no lowering yet.
"""
from __future__ import annotations

from ..errors import Problem
from ._quantized import scale_bias_problems


def check(desc, level) -> list[Problem]:
    """ScaleTensor and BiasTensor broadcast to InputTensor; before 5.2, both or neither."""
    return scale_bias_problems(desc, level)
