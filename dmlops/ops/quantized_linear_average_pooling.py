"""DML_OPERATOR_QUANTIZED_LINEAR_AVERAGE_POOLING: shape rules the descriptor file cannot express.

The window rules of AVERAGE_POOLING1: DimensionCount (the length of Strides, WindowSize, StartPadding,
EndPadding and Dilations) is InputTensor's DimensionCount - 2; Strides, WindowSize and Dilations are at
least 1; OutputTensor is {BatchCount, ChannelCount, Output...} with Output = (InputSize + StartPadding +
EndPadding - DilatedWindow) / Strides + 1 (floor), DilatedWindow = 1 + (WindowSize - 1) * Dilations (the
page prints the formula without Dilations; DirectML's AVERAGE_POOLING1 / MAX_POOLING2 answers use the dilated
window).
InputScaleTensor, InputZeroPointTensor, OutputScaleTensor and OutputZeroPointTensor are {1, 1, 1, 1} (per
tensor) or {1, ChannelCount, 1, 1} (per channel), ChannelCount = InputTensor.Sizes[1]; for a 5-D input the
per-channel form is {1, ChannelCount, 1, 1, 1}, and tensors of fewer dimensions drop leading ones (onnxruntime's
DirectML EP places a per-channel vector on the C axis the same way). Shared rules: dmlops/ops/_windows.py.
"""
from __future__ import annotations

from ..errors import Problem
from ..validation import tensor
from ._shapes import sizes
from ._windows import pooling_problems, quantization_problems

QUANTIZATION = ("InputScaleTensor", "InputZeroPointTensor", "OutputScaleTensor", "OutputZeroPointTensor")


def check(desc, level) -> list[Problem]:
    """The AVERAGE_POOLING1 window rules and the Sizes of the scale and zero-point tensors."""
    out = pooling_problems(desc)
    x = sizes(tensor(desc, "InputTensor"))
    if x is not None and len(x) in (4, 5):
        out += quantization_problems(desc, QUANTIZATION, len(x), x[1], "ChannelCount")
    return out
