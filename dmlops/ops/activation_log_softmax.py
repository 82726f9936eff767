"""DML_OPERATOR_ACTIVATION_LOG_SOFTMAX: log-softmax over the last dimension.

The same effective-rank rule as ACTIVATION_SOFTMAX (its docs state it identically), and the same
axis: the docs' f(x_i) = ln(exp(x_i) / sum_j exp(x_j)) runs along the last dimension, and
ACTIVATION_LOG_SOFTMAX1 with Axes {DimensionCount - 1} is documented as equivalent. Computed as
x - max - ln(max(sum(exp(x - max)), 1e-20)), which is ln(softmax) without its underflow to ln 0, with DirectML's
NaN rules (ACTIVATION_SOFTMAX's docstring): ONNX LogSoftmax(axis=-1) and torch.log_softmax(dim=-1) but for NaN.
"""
from __future__ import annotations

import numpy as np

from ..sample import Sample, td
from .activation_softmax import check, softmax, softmax_onnx, softmax_torch

__all__ = ["check", "reference", "to_onnx", "to_torch", "SAMPLES"]


def reference(desc, x):
    """Log-softmax over the last axis, in float32, as DirectML computes it."""
    return {"OutputTensor": softmax(x["InputTensor"], (-1,), log=True)}


def to_onnx(desc, g, x):
    """DirectML's steps over the last axis (softmax_onnx)."""
    return {"OutputTensor": softmax_onnx(g, x["InputTensor"], (-1,), log=True)}


def to_torch(desc, torch, x):
    """DirectML's steps over the last axis (softmax_torch)."""
    return {"OutputTensor": softmax_torch(torch, x["InputTensor"], (-1,), log=True)}


def _samples():
    from ..descs import ActivationLogSoftmax

    t = td("FLOAT32", [1, 1, 2, 3])
    ln2 = np.log(2)
    return [
        # Row 1: softmax [1/4, 1/2, 1/4] -> [-2 ln 2, -ln 2, -2 ln 2]. Row 2: x - 100 = [0, 0, 1], so
        # [0, 0, 1] - ln(2 + e) = [-1.5514447, -1.5514447, -0.5514447] (exp(100) overflows float32).
        Sample("rows", ActivationLogSoftmax(input_tensor=t, output_tensor=t),
               {"InputTensor": np.array([[[[0, ln2, 0], [100, 100, 101]]]], np.float32)},
               {"OutputTensor": np.array([[[[-2 * ln2, -ln2, -2 * ln2], [-1.5514447, -1.5514447, -0.5514447]]]],
                                         np.float32)},
               why="float32 rounding of ln 2 and exp; 7-digit hand values", atol=1e-6, rtol=1e-6),
        Sample("one_dimension", ActivationLogSoftmax(input_tensor=td("FLOAT32", [2]), output_tensor=td("FLOAT32", [2])),
               {"InputTensor": np.array([-1000, 0], np.float32)},
               {"OutputTensor": np.array([-1000, 0], np.float32)},
               why="exp(-1000) vanishes next to 1: exact", atol=0, rtol=0, float16_atol=0, float16_rtol=0),
        Sample("broadcast_rows", ActivationLogSoftmax(input_tensor=td("FLOAT32", [3, 5], [0, 1]),
                                                      output_tensor=td("FLOAT32", [3, 5])),
               {"InputTensor": np.array([-2, -1, 0, 1, 2], np.float32)}),
    ]


SAMPLES = _samples()
