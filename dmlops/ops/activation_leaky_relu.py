"""DML_OPERATOR_ACTIVATION_LEAKY_RELU: f(x) = x if x >= 0 else Alpha * x.

ONNX LeakyRelu and torch's leaky_relu agree (x = -0.0 gives -0.0 either way; NaN stays NaN).
DML's Alpha is ONNX's alpha and torch's negative_slope; all three default to 0.01.
"""
from __future__ import annotations

import numpy as np

from ..sample import Sample, td


def reference(desc, x):
    """x >= 0 ? x : Alpha * x, in float64 (Alpha is a FLOAT, so rounded to float32 first)."""
    v = x["InputTensor"].astype(np.float64)
    return {"OutputTensor": np.where(v >= 0, v, np.float32(desc.alpha) * v)}


def to_onnx(desc, g, x):
    """ONNX LeakyRelu(alpha=Alpha)."""
    return {"OutputTensor": g.node("LeakyRelu", [x["InputTensor"]], alpha=float(desc.alpha))}


def to_torch(desc, torch, x):
    """torch.nn.functional.leaky_relu(negative_slope=Alpha)."""
    return {"OutputTensor": torch.nn.functional.leaky_relu(x["InputTensor"], float(desc.alpha))}


def _samples():
    from ..descs import ActivationLeakyRelu

    t = td("FLOAT32", [2, 3])
    t4 = td("FLOAT32", [1, 2, 2, 2])
    return [
        # alpha = 0.25: negatives are quartered, -0.0 >= 0 passes through, NaN * 0.25 = NaN.
        Sample("alpha_quarter", ActivationLeakyRelu(input_tensor=t, output_tensor=t, alpha=0.25),
               {"InputTensor": np.array([[-4, -0.5, 0], [2.5, -0.0, np.nan]], np.float32)},
               {"OutputTensor": np.array([[-1, -0.125, 0], [2.5, 0, np.nan]], np.float32)},
               why="one multiply by a power of two: exact", atol=0, rtol=0, float16_atol=0, float16_rtol=0),
        # The default Alpha (0.01) on a 4-D tensor, the only rank DML_FEATURE_LEVEL_1_0 allows.
        Sample("default_alpha_4d", ActivationLeakyRelu(input_tensor=t4, output_tensor=t4),
               {"InputTensor": np.array([-100, -1, 0, 1, 3, -3, 7, -7], np.float32).reshape(1, 2, 2, 2)},
               {"OutputTensor": np.array([-1, -0.01, 0, 1, 3, -0.03, 7, -0.07], np.float32).reshape(1, 2, 2, 2)},
               why="one float32 multiply", atol=1e-7, rtol=1e-6),
        # Zero strides: one row of 3 values read for both rows.
        Sample("broadcast_input", ActivationLeakyRelu(input_tensor=td("FLOAT32", [2, 3], [0, 1]), output_tensor=t,
                                                      alpha=2.0),
               {"InputTensor": np.array([-1, 0.5, -3], np.float32)},
               {"OutputTensor": np.array([[-2, 0.5, -6], [-2, 0.5, -6]], np.float32)},
               why="a multiply by 2: exact", atol=0, rtol=0, float16_atol=0, float16_rtol=0),
    ]


SAMPLES = _samples()
