"""DML_OPERATOR_DYNAMIC_QUANTIZE_LINEAR: shape rules the descriptor file cannot express.

From the docs: "The expected number of elements in OutputScaleTensor is 1" and in
OutputZeroPointTensor "is 1" (one scale and zero point for the whole tensor); OutputTensor, the
quantized InputTensor, has InputTensor's Sizes (element-wise). The four tensors share a
DimensionCount and OutputTensor and OutputZeroPointTensor a DataType (the descriptor's 'same' rules).

Math (docs, with ONNX DynamicQuantizeLinear's range that includes 0 inferred): Scale = (max - min) /
(qmax - qmin), ZeroPoint = qmin - round(min / Scale), Output = quantize(Input, Scale, ZeroPoint).
Only check() is written so far.
"""
from __future__ import annotations

from ..errors import Problem
from ._quantized import element_count_problems, same_sizes_problem


def check(desc, level) -> list[Problem]:
    """OutputTensor has InputTensor's Sizes; OutputScaleTensor and OutputZeroPointTensor hold one element."""
    out = [p for p in [same_sizes_problem(desc, "OutputTensor", "InputTensor")] if p]
    return out + element_count_problems(desc, ["OutputScaleTensor", "OutputZeroPointTensor"])
