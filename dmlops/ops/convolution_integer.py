"""DML_OPERATOR_CONVOLUTION_INTEGER: shape rules the descriptor file cannot express.

A FORWARD cross-correlation: InputTensor {BatchCount, InputChannelCount, [InputHeight], InputWidth};
FilterTensor {OutputChannelCount, InputChannelCount / GroupCount, [FilterHeight], FilterWidth}; OutputTensor
{BatchCount, OutputChannelCount, [OutputHeight], OutputWidth}; GroupCount (at least 1) divides both channel
counts; Strides and Dilations are at least 1; the dilated filter 1 + (FilterSize - 1) * Dilations fits the
padded input. The spatial output sizes are not tied to (InputSize + StartPadding + EndPadding - DilatedFilter)
/ Strides + 1: the page gives no formula and, for CONVOLUTION, DirectML computed a longer output (see
dmlops/ops/convolution.py); the same policy is kept here.
DimensionCount (the length of Strides, Dilations, StartPadding and EndPadding) is InputTensor's
DimensionCount - 2. The page says "Only a value of 2 is supported", written for the 4-D-only
DML_FEATURE_LEVEL_2_1; its DML_FEATURE_LEVEL_4_0 table adds 3-D tensors {BatchCount, InputChannelCount,
InputWidth}, which need 1 (DirectML runs CONVOLUTION with 3-D tensors and DimensionCount 1).
InputZeroPointTensor is {1, 1, 1, 1}; FilterZeroPointTensor is {1, 1, 1, 1} (per tensor) or
{1, OutputChannelCount, 1, 1} (per channel); fewer dimensions drop leading ones (the 4_0 table:
{[1], [1], [1], 1} and {[1], FilterZeroPointChannelCount, [1], [1]}). Shared rules: dmlops/ops/_windows.py.
"""
from __future__ import annotations

from ..errors import Problem
from ._windows import convolution_problems, quantization_problems


def check(desc, level) -> list[Problem]:
    """DimensionCount, Strides/Dilations/GroupCount, FilterTensor and OutputTensor sizes, zero-point Sizes."""
    out, out_channels, rank = convolution_problems(desc)
    out += quantization_problems(desc, ["InputZeroPointTensor"], rank)
    out += quantization_problems(desc, ["FilterZeroPointTensor"], rank, out_channels, "OutputChannelCount")
    return out
