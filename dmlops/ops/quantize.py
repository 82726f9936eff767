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

Math: Output = clamp(round(Input / Scale) + ZeroPoint), Scale and ZeroPoint repeated over each block, computed as
ELEMENT_WISE_QUANTIZE_LINEAR's vectors show DirectML quantizing (dmlops.ops._quantize: float32 division, round half
to even, saturation to the output type's range -- [-8, 7] for INT4, [0, 15] for UINT4 --, NaN -> 0). That this
operator rounds and saturates as ELEMENT_WISE_QUANTIZE_LINEAR does is inferred (ONNX Runtime's DirectML provider
maps QuantizeLinear-21 onto it, whose rule is half to even with saturation); no DirectML vector shows it. SCALE on
INT8 / INT4 uses zero point 0. INT4 / UINT4 values travel one per int8 / uint8 element (dmlops.types). FLOAT16 is
computed in float32. ONNX: Gather (blocks), Div, Round, Add, IsNaN/Where, Clip, Cast; torch: index_select, div,
round, add, isnan/where, clamp, to.
"""
from __future__ import annotations

import numpy as np

from ..errors import Problem
from ..sample import Sample, td
from . import _quantize as Q
from ._quantized import quantization_problems


def check(desc, level) -> list[Problem]:
    """QuantizationType and tensor count; scale/zero-point DataTypes and block Sizes; OutputTensor Sizes."""
    return quantization_problems(desc, "InputTensor", "OutputTensor")


def _zero_point(desc, quantized_type):
    """The zero point: QuantizationTensors[1] (SCALE_ZERO_POINT), else the unsigned types' midpoint or 0."""
    if desc.quantization_type.name == "SCALE_ZERO_POINT":
        return None
    return Q.midpoint(quantized_type)


def _shape(desc):
    return tuple(desc.input_tensor.sizes)


def reference(desc, x):
    """clamp(round(Input / Scale) + ZeroPoint) with Scale and ZeroPoint repeated over their blocks."""
    t = desc.output_tensor.data_type
    q = [Q.reference_blocks(v, _shape(desc)) for v in x["QuantizationTensors"]]
    zp = _zero_point(desc, t)
    zp = q[1] if zp is None else np.asarray(zp)
    return {"OutputTensor": Q.reference_quantize(x["InputTensor"], q[0], zp, Q.numpy_dtype_of(t), Q.bounds_of(t))}


def to_onnx(desc, g, x):
    """Gather per blocked axis, then the float32 quantize of dmlops.ops._quantize."""
    t = desc.output_tensor.data_type
    q = [Q.onnx_blocks(g, v, td_.sizes, _shape(desc)) for v, td_ in zip(x["QuantizationTensors"],
                                                                         desc.quantization_tensors)]
    zp = _zero_point(desc, t)
    zp = q[1] if zp is None else g.const(np.float32(zp))
    return {"OutputTensor": Q.onnx_quantize(g, x["InputTensor"], q[0], zp, Q.numpy_dtype_of(t), Q.bounds_of(t))}


def to_torch(desc, torch, x):
    """index_select per blocked axis, then the float32 quantize of dmlops.ops._quantize."""
    t = desc.output_tensor.data_type
    v = x["InputTensor"]
    q = [Q.torch_blocks(torch, a, _shape(desc)) for a in x["QuantizationTensors"]]
    zp = _zero_point(desc, t)
    zp = q[1] if zp is None else torch.full((), float(zp), dtype=torch.float32, device=v.device)
    dtype = getattr(torch, Q.numpy_dtype_of(t).name)
    return {"OutputTensor": Q.torch_quantize(torch, v, q[0], zp, dtype, Q.bounds_of(t))}


def _samples():
    from ..descs import Quantize as cls
    from ..enums import QuantizationType

    exact = dict(atol=0, rtol=0, why="integer outputs: exact", float16_atol=0, float16_rtol=0)

    def make(out_type, sizes, q_sizes, zero_point=True, in_type="FLOAT32"):
        tensors = (td(in_type, q_sizes),) + ((td(out_type, q_sizes),) if zero_point else ())
        kind = QuantizationType.SCALE_ZERO_POINT if zero_point else QuantizationType.SCALE
        return cls(input_tensor=td(in_type, sizes), quantization_type=kind, quantization_tensors=tensors,
                   output_tensor=td(out_type, sizes))

    def inputs(x, *q):
        return {"InputTensor": np.asarray(x, np.float32), **{f"QuantizationTensors[{i}]": a for i, a in enumerate(q)}}

    return [
        # Blocks of 2 along axis 1 (scale and zero point {2, 2} for a {2, 4} input):
        # row 0: [0.5, 1.5] / 0.5 = [1, 3] + 10 = [11, 13]; [-2, 3] / 1 + 0 = [-2, 3] -> [0, 3];
        # row 1: [10, 11] / 2 = [5, 5.5] -> [5, 6] + 100 = [105, 106]; [12, -100] / 4 = [3, -25] + 250 = [253, 225].
        Sample("uint8_blocks", make("UINT8", [2, 4], [2, 2]),
               inputs([[0.5, 1.5, -2, 3], [10, 11, 12, -100]], np.array([[0.5, 1], [2, 4]], np.float32),
                      np.array([[10, 0], [100, 250]], np.uint8)),
               {"OutputTensor": np.array([[11, 13, 0, 3], [105, 106, 253, 225]], np.uint8)}, **exact),
        # SCALE on UINT8: zero point 128 (the midpoint). [0, 1, -1, 200] / 0.5 = [0, 2, -2, 400] + 128 -> [128, 130,
        # 126, 255].
        Sample("uint8_scale_midpoint", make("UINT8", [1, 4], [1, 1], zero_point=False),
               inputs([[0, 1, -1, 200]], np.full((1, 1), 0.5, np.float32)),
               {"OutputTensor": np.array([[128, 130, 126, 255]], np.uint8)}, **exact),
        # SCALE on INT8: zero point 0. [-1.5, 2.5, 300, -300] / 1 -> half to even [-2, 2, 127, -128].
        Sample("int8_scale", make("INT8", [4], [1], zero_point=False),
               inputs([-1.5, 2.5, 300, -300], np.ones(1, np.float32)),
               {"OutputTensor": np.array([-2, 2, 127, -128], np.int8)}, **exact),
        # INT4 per row (scale and zero point {2, 1}): row 0 scale 1, zero point -3: [1, 5, 20] -> [-2, 2, 17 -> 7];
        # row 1 scale 0.5, zero point 2: [-1, -10, 2.25] / 0.5 = [-2, -20, 4.5] -> [-2, -20, 4] + 2 = [0, -18 -> -8, 6].
        Sample("int4_per_row", make("INT4", [2, 3], [2, 1]),
               inputs([[1, 5, 20], [-1, -10, 2.25]], np.array([[1], [0.5]], np.float32),
                      np.array([[-3], [2]], np.int8)),
               {"OutputTensor": np.array([[-2, 2, 7], [0, -8, 6]], np.int8)}, **exact),
        # SCALE on UINT4: zero point 8. [-1, 0, 3.5, 100, -100, 0.5] -> [-1, 0, 4, 100, -100, 0] + 8 -> [7, 8, 12, 15,
        # 0, 8].
        Sample("uint4_scale_midpoint", make("UINT4", [6], [1], zero_point=False),
               inputs([-1, 0, 3.5, 100, -100, 0.5], np.ones(1, np.float32)),
               {"OutputTensor": np.array([7, 8, 12, 15, 0, 8], np.uint8)}, **exact),
    ]


SAMPLES = _samples()
