"""DML_OPERATOR_QUANTIZE: rules the descriptor file cannot express.

The docs page is "TBD" for QuantizationType and QuantizationTensors; the rules below follow the
struct, DML_QUANTIZATION_TYPE and ONNX Runtime's use of the operator (QuantizeLinear-21, MatMulNBits):
QuantizationType SCALE takes one quantization tensor (the scale), SCALE_ZERO_POINT two (scale, zero
point), NONE is not a quantization; the scale has InputTensor's (float) DataType and the zero point
OutputTensor's (INT8, UINT8, INT4 or UINT4: a 4-bit output takes a 4-bit zero point of the same
signedness). Each quantization tensor dimension divides InputTensor's: 1 (per-tensor on that axis),
the full size (per-element), or a block count (blocks of size / count elements; ONNX Runtime hands
DirectML only such "perfect blocks"). OutputTensor has InputTensor's Sizes; all tensors share a
DimensionCount (the descriptor's 'same' rule). With SCALE on an unsigned type the zero point is the
type's midpoint (8 or 128, per ONNX Runtime), which is math, not a shape rule. No DirectML vectors
exist (DML_FEATURE_LEVEL_6_3; the test device stops at 6_2).

Math: Output = clamp(round(Input / Scale) + ZeroPoint), Scale and ZeroPoint repeated over each block.
Only check() is written so far.
"""
from __future__ import annotations

from ..errors import Problem
from ._quantized import quantization_problems


def check(desc, level) -> list[Problem]:
    """QuantizationType and tensor count; scale/zero-point DataTypes and block Sizes; OutputTensor Sizes."""
    return quantization_problems(desc, "InputTensor", "OutputTensor")
