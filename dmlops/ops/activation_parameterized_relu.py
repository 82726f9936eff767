"""DML_OPERATOR_ACTIVATION_PARAMETERIZED_RELU: f(x, slope) = x if x >= 0 else slope * x.

SlopeTensor has InputTensor's Sizes (a per-channel slope is broadcast with zero Strides, already
applied here). ONNX PRelu is the same for float types; torch's prelu wants a per-channel weight, so
the torch lowering writes the select. From DML_FEATURE_LEVEL_5_1 the tensors may be INT8, INT16
or INT32; onnxruntime's CPU PRelu has integer kernels for 32-bit types only, so smaller integers
are widened to int32 (losslessly) for it.
"""
from __future__ import annotations

import numpy as np

from ..sample import Sample, td


def reference(desc, x):
    """x >= 0 ? x : slope * x; floats in float64, integers in their own type."""
    v, s = x["InputTensor"], x["SlopeTensor"]
    if v.dtype.kind == "f":
        v, s = v.astype(np.float64), s.astype(np.float64)
    return {"OutputTensor": np.where(v >= 0, v, s * v)}


def to_onnx(desc, g, x):
    """ONNX PRelu (int32 for integer types)."""
    v, s = x["InputTensor"], x["SlopeTensor"]
    if g.dtype(v).kind in "iu":
        v, s = g.cast(v, np.int32), g.cast(s, np.int32)
    return {"OutputTensor": g.node("PRelu", [v, s])}


def to_torch(desc, torch, x):
    """torch.where(x >= 0, x, slope * x)."""
    v = x["InputTensor"]
    return {"OutputTensor": torch.where(v >= 0, v, x["SlopeTensor"] * v)}


def _samples():
    from ..descs import ActivationParameterizedRelu

    t = td("FLOAT32", [2, 2])
    t23 = td("FLOAT32", [2, 3])
    return [
        # Each element has its own slope: -2 * 0.5 = -1, -1 * -1 = 1; x >= 0 passes through.
        Sample("per_element_slope", ActivationParameterizedRelu(input_tensor=t, slope_tensor=t, output_tensor=t),
               {"InputTensor": np.array([[-2, 3], [-1, 0]], np.float32),
                "SlopeTensor": np.array([[0.5, 0.5], [-1, 2]], np.float32)},
               {"OutputTensor": np.array([[-1, 3], [1, 0]], np.float32)},
               why="halves: exact", atol=0, rtol=0, float16_atol=0, float16_rtol=0),
        # One slope per column, read through zero strides for both rows.
        Sample("broadcast_slope", ActivationParameterizedRelu(input_tensor=t23, output_tensor=t23,
                                                              slope_tensor=td("FLOAT32", [2, 3], [0, 1])),
               {"InputTensor": np.array([[-4, -4, -4], [1, -2, 0]], np.float32),
                "SlopeTensor": np.array([0.25, 0, 2], np.float32)},
               {"OutputTensor": np.array([[-1, 0, -8], [1, 0, 0]], np.float32)},
               why="powers of two: exact", atol=0, rtol=0, float16_atol=0, float16_rtol=0),
        # INT8 (DML_FEATURE_LEVEL_5_1): -4 * 2 = -8, -3 * -1 = 3.
        Sample("int8", ActivationParameterizedRelu(input_tensor=td("INT8", [4]), slope_tensor=td("INT8", [4]),
                                                   output_tensor=td("INT8", [4])),
               {"InputTensor": np.array([-4, 5, -3, 0], np.int8), "SlopeTensor": np.array([2, 3, -1, 7], np.int8)},
               {"OutputTensor": np.array([-8, 5, 3, 0], np.int8)},
               why="integers: exact", atol=0, rtol=0),
        Sample("int16", ActivationParameterizedRelu(input_tensor=td("INT16", [3]), slope_tensor=td("INT16", [3]),
                                                    output_tensor=td("INT16", [3])),
               {"InputTensor": np.array([-300, 300, -1], np.int16), "SlopeTensor": np.array([3, 3, -5], np.int16)},
               {"OutputTensor": np.array([-900, 300, 5], np.int16)},
               why="integers: exact", atol=0, rtol=0),
    ]


SAMPLES = _samples()
