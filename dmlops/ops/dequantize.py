"""DML_OPERATOR_DEQUANTIZE: rules the descriptor file cannot express.

The docs page is "TBD" for QuantizationType and QuantizationTensors; as for QUANTIZE (see quantize.py):
SCALE takes one quantization tensor (the scale), SCALE_ZERO_POINT two (scale, zero point), NONE is
refused; the scale has OutputTensor's (float) DataType and the zero point InputTensor's (INT8, UINT8,
INT4 or UINT4); each quantization tensor dimension divides InputTensor's (per-tensor, per-axis or
equal blocks, the layout ONNX Runtime's MatMulNBits lowering uses: scale {.., N, K / BlockSize} for a
{.., N, K} weight); OutputTensor has InputTensor's Sizes; all tensors share a DimensionCount (the
descriptor's 'same' rule). No DirectML vectors exist (DML_FEATURE_LEVEL_6_3).

Math: Output = (Input - ZeroPoint) * Scale, Scale and ZeroPoint repeated over each block, in float32 as
ELEMENT_WISE_DEQUANTIZE_LINEAR computes it (dmlops.ops._quantize; exact for these small integers except for the one
rounding of the product). SCALE on UINT8 / UINT4 uses the midpoint zero point (128 / 8, from ONNX Runtime's
DirectML provider, which passes an explicit zero point of 0 to get ONNX's semantics), on INT8 / INT4 zero point 0.
INT4 / UINT4 values travel one per int8 / uint8 element (dmlops.types). FLOAT16 outputs are computed in float32 and
stored by dmlops.lower. ONNX: Gather (blocks), Cast, Sub, Mul; torch: index_select, to, sub, mul.
"""
from __future__ import annotations

import numpy as np

from ..errors import Problem
from ..sample import Sample, td
from . import _quantize as Q
from ._quantized import quantization_problems


def check(desc, level) -> list[Problem]:
    """QuantizationType and tensor count; scale/zero-point DataTypes and block Sizes; OutputTensor Sizes."""
    return quantization_problems(desc, "OutputTensor", "InputTensor")


def _zero_point(desc, quantized_type):
    """The zero point: QuantizationTensors[1] (SCALE_ZERO_POINT), else the unsigned types' midpoint or 0."""
    if desc.quantization_type.name == "SCALE_ZERO_POINT":
        return None
    return Q.midpoint(quantized_type)


def _shape(desc):
    return tuple(desc.input_tensor.sizes)


def reference(desc, x):
    """(Input - ZeroPoint) * Scale with Scale and ZeroPoint repeated over their blocks."""
    q = [Q.reference_blocks(v, _shape(desc)) for v in x["QuantizationTensors"]]
    zp = _zero_point(desc, desc.input_tensor.data_type)
    zp = q[1] if zp is None else np.asarray(zp)
    return {"OutputTensor": Q.reference_dequantize(x["InputTensor"], q[0], zp)}


def to_onnx(desc, g, x):
    """Gather per blocked axis, then Cast, Sub, Mul in float32."""
    q = [Q.onnx_blocks(g, v, td_.sizes, _shape(desc)) for v, td_ in zip(x["QuantizationTensors"],
                                                                         desc.quantization_tensors)]
    zp = _zero_point(desc, desc.input_tensor.data_type)
    zp = q[1] if zp is None else g.const(np.float32(zp))
    return {"OutputTensor": Q.onnx_dequantize(g, x["InputTensor"], q[0], zp)}


def to_torch(desc, torch, x):
    """index_select per blocked axis, then to, sub, mul in float32."""
    v = x["InputTensor"]
    q = [Q.torch_blocks(torch, a, _shape(desc)) for a in x["QuantizationTensors"]]
    zp = _zero_point(desc, desc.input_tensor.data_type)
    zp = q[1] if zp is None else torch.full((), float(zp), dtype=torch.float32, device=v.device)
    return {"OutputTensor": Q.torch_dequantize(torch, v, q[0], zp)}


def _samples():
    from ..descs import Dequantize as cls
    from ..enums import QuantizationType

    exact = dict(atol=0, rtol=0, why="small integers times exact scales: exact in float32")

    def make(in_type, sizes, q_sizes, zero_point=True, out_type="FLOAT32"):
        tensors = (td(out_type, q_sizes),) + ((td(in_type, q_sizes),) if zero_point else ())
        kind = QuantizationType.SCALE_ZERO_POINT if zero_point else QuantizationType.SCALE
        return cls(input_tensor=td(in_type, sizes), quantization_type=kind, quantization_tensors=tensors,
                   output_tensor=td(out_type, sizes))

    def inputs(x, *q):
        return {"InputTensor": x, **{f"QuantizationTensors[{i}]": a for i, a in enumerate(q)}}

    f32 = np.float32
    return [
        # Blocks of 2 along axis 1 (QUANTIZE's uint8_blocks, back): row 0: ([11, 13] - 10) * 0.5 = [0.5, 1.5],
        # ([0, 3] - 0) * 1 = [0, 3]; row 1: ([105, 106] - 100) * 2 = [10, 12], ([253, 225] - 250) * 4 = [12, -100].
        Sample("uint8_blocks", make("UINT8", [2, 4], [2, 2]),
               inputs(np.array([[11, 13, 0, 3], [105, 106, 253, 225]], np.uint8), np.array([[0.5, 1], [2, 4]], f32),
                      np.array([[10, 0], [100, 250]], np.uint8)),
               {"OutputTensor": np.array([[0.5, 1.5, 0, 3], [10, 12, 12, -100]], f32)}, **exact),
        # SCALE on UINT8: zero point 128. ([0, 128, 255, 130] - 128) * 0.5 = [-64, 0, 63.5, 1].
        Sample("uint8_scale_midpoint", make("UINT8", [1, 4], [1, 1], zero_point=False),
               inputs(np.array([[0, 128, 255, 130]], np.uint8), np.full((1, 1), 0.5, f32)),
               {"OutputTensor": np.array([[-64, 0, 63.5, 1]], f32)}, **exact),
        # SCALE on INT8: zero point 0. [-128, 127, -1] * 0.5.
        Sample("int8_scale", make("INT8", [3], [1], zero_point=False),
               inputs(np.array([-128, 127, -1], np.int8), np.full(1, 0.5, f32)),
               {"OutputTensor": np.array([-64, 63.5, -0.5], f32)}, **exact),
        # INT4, per-tensor scale 0.25 and zero point -1: ([-8, 7, 0, 1] + 1) * 0.25 = [-1.75, 2, 0.25, 0.5].
        Sample("int4_scale_zero_point", make("INT4", [4], [1]),
               inputs(np.array([-8, 7, 0, 1], np.int8), np.full(1, 0.25, f32), np.array([-1], np.int8)),
               {"OutputTensor": np.array([-1.75, 2, 0.25, 0.5], f32)}, **exact),
        # UINT4 per column (scale {1, 2}), SCALE: zero point 8. Column 0 scale 2, column 1 scale -1:
        # [[0, 8], [15, 9]] - 8 = [[-8, 0], [7, 1]] -> [[-16, -0], [14, -1]].
        Sample("uint4_scale_midpoint_per_column", make("UINT4", [2, 2], [1, 2], zero_point=False),
               inputs(np.array([[0, 8], [15, 9]], np.uint8), np.array([[2, -1]], f32)),
               {"OutputTensor": np.array([[-16, -0.0], [14, -1]], f32)}, **exact),
    ]


SAMPLES = _samples()
