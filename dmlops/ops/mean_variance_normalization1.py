"""DML_OPERATOR_MEAN_VARIANCE_NORMALIZATION1: shape rules the descriptor file cannot express.

From the docs: Axes are "the axes along which to calculate the Mean and Variance": each must be a
dimension of InputTensor (0 to DimensionCount - 1) and dmlops refuses a repeated axis (DirectML
refused both validator-gap vectors, Axes {1, 1} on a 1-D input and on a 4-D input whose OutputTensor
Sizes differ). An empty Axes list is not refused: DirectML runs AxisCount 0 for ACTIVATION_SOFTMAX1,
and the docs state no lower bound. OutputTensor has InputTensor's Sizes ("This tensor's dimensions are
{ BatchCount, ChannelCount, Height, Width }", the input's; DirectML refused a mismatch). ScaleTensor
and BiasTensor: from DML_FEATURE_LEVEL_4_0 "any dimension can be set to 1" and otherwise matches
InputTensor; below it their ChannelCount must match InputTensor's (checked for 4-D tensors, the
layout the docs give); below DML_FEATURE_LEVEL_5_2 each "is required if" the other "is present".
DataType and DimensionCount agreement is the descriptor's 'same' rule.

Math (docs): as MEAN_VARIANCE_NORMALIZATION over the listed Axes ({2, 3} is CrossChannel FALSE,
{1, 2, 3} CrossChannel TRUE). Only check() is written so far.
"""
from __future__ import annotations

from ..errors import Problem
from ..validation import tensor
from ._quantized import same_sizes_problem, scale_bias_problems
from ._shapes import axes_problems


def check(desc, level) -> list[Problem]:
    """Axes in range and unique; OutputTensor of InputTensor's Sizes; Scale/Bias broadcast (and pairing)."""
    return mvn_problems(desc, level, channel_before_4_0=True)


def mvn_problems(desc, level, channel_before_4_0: bool) -> list[Problem]:
    """The rules MEAN_VARIANCE_NORMALIZATION1 and MEAN_VARIANCE_NORMALIZATION2 share."""
    x = tensor(desc, "InputTensor")
    rank = x.dimension_count if x is not None and x.dimension_count else None
    out = []
    for p in axes_problems(desc.OPERATOR_TYPE, desc.axes, rank):
        if p not in out:  # an axis listed twice and out of range is reported once per rule
            out.append(p)
    p = same_sizes_problem(desc, "OutputTensor", "InputTensor")
    if p:
        out.append(p)
    return out + scale_bias_problems(desc, level, channel_before_4_0=channel_before_4_0)
