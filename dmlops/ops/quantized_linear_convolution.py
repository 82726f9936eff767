"""DML_OPERATOR_QUANTIZED_LINEAR_CONVOLUTION: shape rules the descriptor file cannot express.

A FORWARD cross-correlation with CONVOLUTION_INTEGER's shape rules: FilterTensor {OutputChannelCount,
InputChannelCount / GroupCount, [FilterHeight], FilterWidth}; OutputTensor {BatchCount, OutputChannelCount,
[OutputHeight], OutputWidth} (spatial sizes free, as for CONVOLUTION, whose longer outputs DirectML ran; the
dilated filter fits the padded input); GroupCount divides both channel counts; Strides and Dilations are at
least 1; DimensionCount is InputTensor's DimensionCount - 2 (the page's "Only a value of 2 is supported"
predates the 3-D tensors of its DML_FEATURE_LEVEL_4_0 table).
InputScaleTensor, InputZeroPointTensor, OutputScaleTensor and OutputZeroPointTensor are {1, 1, 1, 1};
FilterScaleTensor and FilterZeroPointTensor are {1, 1, 1, 1} (per tensor) or {1, OutputChannelCount, 1, 1}
(per channel); tensors of fewer dimensions drop leading ones. BiasTensor is {1, OutputChannelCount, 1, 1}.
Shared rules: dmlops/ops/_windows.py.
"""
from __future__ import annotations

from ..errors import Problem
from ..validation import shape_problem, tensor
from ._shapes import sizes
from ._windows import braces, convolution_problems, quantization_problems

PER_TENSOR = ("InputScaleTensor", "InputZeroPointTensor", "OutputScaleTensor", "OutputZeroPointTensor")
PER_CHANNEL = ("FilterScaleTensor", "FilterZeroPointTensor")


def check(desc, level) -> list[Problem]:
    """Convolution shape rules, scale / zero-point Sizes, BiasTensor {1, OutputChannelCount, 1, 1}."""
    out, out_channels, rank = convolution_problems(desc)
    out += quantization_problems(desc, PER_TENSOR, rank)
    out += quantization_problems(desc, PER_CHANNEL, rank, out_channels, "OutputChannelCount")
    bias = sizes(tensor(desc, "BiasTensor"), rank) if rank is not None else None
    if bias is not None and out_channels is not None:
        expected = [1, out_channels] + [1] * (rank - 2)
        if bias != expected:
            out.append(shape_problem(desc, "BiasTensor", bias,
                                     braces(["1", "OutputChannelCount"] + ["1"] * (rank - 2)), expected))
    return out
