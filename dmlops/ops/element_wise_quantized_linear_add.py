"""DML_OPERATOR_ELEMENT_WISE_QUANTIZED_LINEAR_ADD: shape rules the descriptor file cannot express.

From the docs: "The expected number of elements in" AScaleTensor, AZeroPointTensor, BScaleTensor,
BZeroPointTensor, OutputScaleTensor and OutputZeroPointTensor "is 1" (per-tensor quantization only;
the zero points are optional and default to 0). Like every element-wise operator, ATensor, BTensor
and OutputTensor have the same Sizes (broadcasting is expressed with zero Strides); the page states
only the shared DimensionCount (the descriptor's 'same' rule), so dmlops names the tensor whose Sizes
differ from ATensor's.

Math (docs): AValue = (A - AZeroPoint) * AScale, BValue = (B - BZeroPoint) * BScale, Output = clamp(round((AValue +
BValue) / OutputScale) + OutputZeroPoint), each step in float32, with dmlops.ops._quantize's dequantize and quantize:
round() half to even, saturation, NaN -> 0, as DirectML's ELEMENT_WISE_QUANTIZE_LINEAR vectors show them. No DirectML
vectors exist for this operator: the docs' formula and the quantize vectors decide, and tests/test_oracle_quantize.py
checks the lowerings against hand arithmetic (ONNX Runtime's CPU QLinearAdd, a contrib operator, uses its own
fixed-point path and is no oracle for ties). Absent zero points are 0 (the docs). ONNX: Cast, Sub, Mul, Add, Div,
Round, Clip, Cast; torch: the same in float32.
"""
from __future__ import annotations

import numpy as np

from ..errors import Problem
from ..sample import Sample, td
from . import _quantize as Q
from ._quantized import element_count_problems, same_sizes_problem

QUANTIZATION = ["AScaleTensor", "AZeroPointTensor", "BScaleTensor", "BZeroPointTensor", "OutputScaleTensor",
                "OutputZeroPointTensor"]


def check(desc, level) -> list[Problem]:
    """BTensor and OutputTensor have ATensor's Sizes; every scale and zero point holds one element."""
    out = [p for p in (same_sizes_problem(desc, name, "ATensor") for name in ("BTensor", "OutputTensor")) if p]
    return out + element_count_problems(desc, QUANTIZATION)


def _dtype(desc):
    return Q.numpy_dtype_of(desc.output_tensor.data_type)


def reference(desc, x):
    """quantize(dequantize(A) + dequantize(B)) in float32."""
    total = (Q.reference_dequantize(x["ATensor"], x["AScaleTensor"], x["AZeroPointTensor"])
             + Q.reference_dequantize(x["BTensor"], x["BScaleTensor"], x["BZeroPointTensor"]))
    return {"OutputTensor": Q.reference_quantize(total, x["OutputScaleTensor"], x["OutputZeroPointTensor"],
                                                 _dtype(desc))}


def to_onnx(desc, g, x):
    """The same float32 steps in ONNX ops."""
    total = g.node("Add", [Q.onnx_dequantize(g, x["ATensor"], x["AScaleTensor"], x["AZeroPointTensor"]),
                           Q.onnx_dequantize(g, x["BTensor"], x["BScaleTensor"], x["BZeroPointTensor"])])
    return {"OutputTensor": Q.onnx_quantize(g, total, x["OutputScaleTensor"], x["OutputZeroPointTensor"],
                                            _dtype(desc))}


def to_torch(desc, torch, x):
    """The same float32 steps in torch ops."""
    total = (Q.torch_dequantize(torch, x["ATensor"], x["AScaleTensor"], x["AZeroPointTensor"])
             + Q.torch_dequantize(torch, x["BTensor"], x["BScaleTensor"], x["BZeroPointTensor"]))
    return {"OutputTensor": Q.torch_quantize(torch, total, x["OutputScaleTensor"], x["OutputZeroPointTensor"],
                                             getattr(torch, _dtype(desc).name))}


def _samples():
    from ..descs import ElementWiseQuantizedLinearAdd as cls

    exact = dict(atol=0, rtol=0, why="integer outputs: exact")

    def make(a, b, out, sizes, zero_points=True):
        one = [1] * len(sizes)
        zp = (lambda t: td(t, one)) if zero_points else (lambda t: None)  # noqa: E731
        return cls(a_tensor=td(a, sizes), a_scale_tensor=td("FLOAT32", one), a_zero_point_tensor=zp(a),
                   b_tensor=td(b, sizes), b_scale_tensor=td("FLOAT32", one), b_zero_point_tensor=zp(b),
                   output_scale_tensor=td("FLOAT32", one), output_zero_point_tensor=zp(out),
                   output_tensor=td(out, sizes))

    one = np.ones((1, 1), np.float32)
    return [
        # A (UINT8, scale 0.5, zero point 128): [130, 100, 255, 0, 128, 140] -> [1, -14, 63.5, -64, 0, 6];
        # B (INT8, scale 0.25, zero point 0): [4, -4, 127, -128, 1, 3] -> [1, -1, 31.75, -32, 0.25, 0.75];
        # sum [2, -15, 95.25, -96, 0.25, 6.75] / 0.5 = [4, -30, 190.5, -192, 0.5, 13.5] -> half to even
        # [4, -30, 190, -192, 0, 14] + 128 = [132, 98, 318, -64, 128, 142] -> UINT8 [132, 98, 255, 0, 128, 142].
        Sample("uint8_int8_ties", make("UINT8", "INT8", "UINT8", [2, 3]),
               {"ATensor": np.array([[130, 100, 255], [0, 128, 140]], np.uint8), "AScaleTensor": one * 0.5,
                "AZeroPointTensor": np.full((1, 1), 128, np.uint8),
                "BTensor": np.array([[4, -4, 127], [-128, 1, 3]], np.int8), "BScaleTensor": one * 0.25,
                "BZeroPointTensor": np.zeros((1, 1), np.int8),
                "OutputScaleTensor": one * 0.5, "OutputZeroPointTensor": np.full((1, 1), 128, np.uint8)},
               {"OutputTensor": np.array([[132, 98, 255], [0, 128, 142]], np.uint8)}, **exact),
        # No zero points (0): ([10, -10, 3, 127] + [5, -6, -3, 127]) / 2 = [7.5, -8, 0, 127] -> [8, -8, 0, 127].
        Sample("int8_no_zero_points", make("INT8", "INT8", "INT8", [4], zero_points=False),
               {"ATensor": np.array([10, -10, 3, 127], np.int8), "AScaleTensor": np.ones(1, np.float32),
                "BTensor": np.array([5, -6, -3, 127], np.int8), "BScaleTensor": np.ones(1, np.float32),
                "OutputScaleTensor": np.full(1, 2, np.float32)},
               {"OutputTensor": np.array([8, -8, 0, 127], np.int8)}, **exact),
    ]


SAMPLES = _samples()
