"""DML_OPERATOR_ACTIVATION_SCALED_TANH: f(x) = Alpha * tanh(Beta * x).

ONNX dropped its experimental ScaledTanh and torch has none, so both lowerings write the formula.
"""
from __future__ import annotations

import numpy as np

from ..sample import Sample, td


def reference(desc, x):
    """Alpha * tanh(Beta * x) in float64."""
    v = x["InputTensor"].astype(np.float64)
    return {"OutputTensor": np.float32(desc.alpha) * np.tanh(np.float32(desc.beta) * v)}


def to_onnx(desc, g, x):
    """Mul(Tanh(Mul(x, Beta)), Alpha)."""
    v = x["InputTensor"]
    t = g.node("Tanh", [g.node("Mul", [v, g.scalar(desc.beta, v)])])
    return {"OutputTensor": g.node("Mul", [t, g.scalar(desc.alpha, v)])}


def to_torch(desc, torch, x):
    """Alpha * tanh(Beta * x)."""
    return {"OutputTensor": torch.tanh(x["InputTensor"] * float(desc.beta)) * float(desc.alpha)}


def _samples():
    from ..descs import ActivationScaledTanh

    t = td("FLOAT32", [4])
    ln2 = np.log(2)
    return [
        # Alpha 2, Beta 0.5: tanh(ln 2) = (4 - 1) / (4 + 1) = 0.6, so x = 2 ln 2 -> 1.2; tanh(50) = 1 -> 2.
        Sample("alpha_beta", ActivationScaledTanh(input_tensor=t, output_tensor=t, alpha=2.0, beta=0.5),
               {"InputTensor": np.array([0, 2 * ln2, -2 * ln2, 100], np.float32)},
               {"OutputTensor": np.array([0, 1.2, -1.2, 2], np.float32)},
               why="float32 rounding of ln 2 and tanh", atol=1e-6, rtol=1e-6),
        Sample("defaults", ActivationScaledTanh(input_tensor=td("FLOAT32", [1, 1, 1, 5]),
                                                output_tensor=td("FLOAT32", [1, 1, 1, 5])),
               {"InputTensor": np.array([[[[-4, -1, 0, 1, 4]]]], np.float32)}),
    ]


SAMPLES = _samples()
