"""DML_OPERATOR_DEQUANTIZE: rules the descriptor file cannot express.

The docs page is "TBD" for QuantizationType and QuantizationTensors; as for QUANTIZE (see quantize.py):
SCALE takes one quantization tensor (the scale), SCALE_ZERO_POINT two (scale, zero point), NONE is
refused; the scale has OutputTensor's (float) DataType and the zero point InputTensor's (INT8, UINT8,
INT4 or UINT4); each quantization tensor dimension divides InputTensor's (per-tensor, per-axis or
equal blocks, the layout ONNX Runtime's MatMulNBits lowering uses: scale {.., N, K / BlockSize} for a
{.., N, K} weight); OutputTensor has InputTensor's Sizes; all tensors share a DimensionCount (the
descriptor's 'same' rule). No DirectML vectors exist (DML_FEATURE_LEVEL_6_3).

Math: Output = (Input - ZeroPoint) * Scale, Scale and ZeroPoint repeated over each block.
Only check() is written so far.
"""
from __future__ import annotations

from ..errors import Problem
from ._quantized import quantization_problems


def check(desc, level) -> list[Problem]:
    """QuantizationType and tensor count; scale/zero-point DataTypes and block Sizes; OutputTensor Sizes."""
    return quantization_problems(desc, "OutputTensor", "InputTensor")
