"""DML_OPERATOR_ACTIVATION_THRESHOLDED_RELU: f(x) = x if x > Alpha else 0.

ONNX ThresholdedRelu is the same (alpha, default 1.0). torch's threshold(x, Alpha, 0) differs at
NaN (it tests x <= threshold, so NaN passes through; DML's x > Alpha is false, giving 0), so the
torch lowering writes DML's select.
"""
from __future__ import annotations

import numpy as np

from ..sample import Sample, td


def reference(desc, x):
    """x > Alpha ? x : 0 (NaN > Alpha is false: 0)."""
    v = x["InputTensor"].astype(np.float64)
    return {"OutputTensor": np.where(v > np.float32(desc.alpha), v, 0.0)}


def to_onnx(desc, g, x):
    """ONNX ThresholdedRelu(alpha=Alpha)."""
    return {"OutputTensor": g.node("ThresholdedRelu", [x["InputTensor"]], alpha=float(desc.alpha))}


def to_torch(desc, torch, x):
    """torch.where(x > Alpha, x, 0)."""
    v = x["InputTensor"]
    return {"OutputTensor": torch.where(v > float(desc.alpha), v, torch.zeros_like(v))}


def _samples():
    from ..descs import ActivationThresholdedRelu

    t = td("FLOAT32", [6])
    return [
        # Default Alpha 1: the test is strict, so 1 itself gives 0; NaN gives 0.
        Sample("default_alpha", ActivationThresholdedRelu(input_tensor=t, output_tensor=t),
               {"InputTensor": np.array([0.5, 1, 1.5, -3, 7, np.nan], np.float32)},
               {"OutputTensor": np.array([0, 0, 1.5, 0, 7, 0], np.float32)},
               why="a select: exact", atol=0, rtol=0, float16_atol=0, float16_rtol=0),
        Sample("negative_alpha", ActivationThresholdedRelu(input_tensor=td("FLOAT32", [4]),
                                                           output_tensor=td("FLOAT32", [4]), alpha=-2.0),
               {"InputTensor": np.array([-3, -2, -1.5, 0], np.float32)},
               {"OutputTensor": np.array([0, 0, -1.5, 0], np.float32)},
               why="a select: exact", atol=0, rtol=0, float16_atol=0, float16_rtol=0),
    ]


SAMPLES = _samples()
