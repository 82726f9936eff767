"""DML_OPERATOR_ELEMENT_WISE_QUANTIZED_LINEAR_ADD: shape rules the descriptor file cannot express.

From the docs: "The expected number of elements in" AScaleTensor, AZeroPointTensor, BScaleTensor,
BZeroPointTensor, OutputScaleTensor and OutputZeroPointTensor "is 1" (per-tensor quantization only;
the zero points are optional and default to 0). Like every element-wise operator, ATensor, BTensor
and OutputTensor have the same Sizes (broadcasting is expressed with zero Strides); the page states
only the shared DimensionCount (the descriptor's 'same' rule), so dmlops names the tensor whose Sizes
differ from ATensor's.

Math (docs): Output = quantize(dequantize(A) + dequantize(B), OutputScale, OutputZeroPoint).
Only check() is written so far.
"""
from __future__ import annotations

from ..errors import Problem
from ._quantized import element_count_problems, same_sizes_problem

QUANTIZATION = ["AScaleTensor", "AZeroPointTensor", "BScaleTensor", "BZeroPointTensor", "OutputScaleTensor",
                "OutputZeroPointTensor"]


def check(desc, level) -> list[Problem]:
    """BTensor and OutputTensor have ATensor's Sizes; every scale and zero point holds one element."""
    out = [p for p in (same_sizes_problem(desc, name, "ATensor") for name in ("BTensor", "OutputTensor")) if p]
    return out + element_count_problems(desc, QUANTIZATION)
