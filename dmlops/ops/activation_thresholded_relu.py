"""DML_OPERATOR_ACTIVATION_THRESHOLDED_RELU: f(x) = x if x > Alpha else 0.

DirectML tests x <= Alpha (DirectML's vectors: default_alpha, edge_specials_threshold_1): NaN passes through,
as in torch's threshold(x, Alpha, 0), where ONNX ThresholdedRelu (x > alpha) gives 0; -0.0 gives +0.0. Both
lowerings write that select.
"""
from __future__ import annotations

import numpy as np

from ..sample import Sample, td


def reference(desc, x):
    """x <= Alpha ? 0 : x (NaN <= Alpha is false: NaN)."""
    v = x["InputTensor"]
    return {"OutputTensor": np.where(v <= np.float32(desc.alpha), np.zeros_like(v), v)}


def to_onnx(desc, g, x):
    """Where(x <= Alpha, 0, x) (ONNX ThresholdedRelu would give 0 for NaN)."""
    v = x["InputTensor"]
    dtype = g.dtype(v)
    below = g.node("LessOrEqual", [v, g.const(np.asarray(np.float32(desc.alpha), dtype))], dtype=np.bool_)
    return {"OutputTensor": g.node("Where", [below, g.const(np.zeros((), dtype)), v], dtype=dtype)}


def to_torch(desc, torch, x):
    """torch.where(x <= Alpha, 0, x)."""
    v = x["InputTensor"]
    return {"OutputTensor": torch.where(v <= float(np.float32(desc.alpha)), torch.zeros_like(v), v)}


def _samples():
    from ..descs import ActivationThresholdedRelu

    t = td("FLOAT32", [6])
    return [
        # Default Alpha 1: the test is strict, so 1 itself gives 0; NaN stays NaN (DirectML tests x <= Alpha).
        Sample("default_alpha", ActivationThresholdedRelu(input_tensor=t, output_tensor=t),
               {"InputTensor": np.array([0.5, 1, 1.5, -3, 7, np.nan], np.float32)},
               {"OutputTensor": np.array([0, 0, 1.5, 0, 7, np.nan], np.float32)},
               why="a select: exact", atol=0, rtol=0, float16_atol=0, float16_rtol=0),
        Sample("negative_alpha", ActivationThresholdedRelu(input_tensor=td("FLOAT32", [4]),
                                                           output_tensor=td("FLOAT32", [4]), alpha=-2.0),
               {"InputTensor": np.array([-3, -2, -1.5, 0], np.float32)},
               {"OutputTensor": np.array([0, 0, -1.5, 0], np.float32)},
               why="a select: exact", atol=0, rtol=0, float16_atol=0, float16_rtol=0),
    ]


SAMPLES = _samples()
