"""DML_OPERATOR_ACTIVATION_SWISH: f(x) = x * sigmoid(SigmoidInputScale * x).

ONNX Swish (opset 24, after the pinned 18) has alpha in place of SigmoidInputScale; torch's silu is
SigmoidInputScale = 1. Both lowerings write the formula (the ONNX one with ACTIVATION_SIGMOID's
1 / (1 + Exp(-x)): ONNX Runtime's Sigmoid kernel is off by up to 6e-6 relative, DirectML's vector default_scale).
"""
from __future__ import annotations

import numpy as np

from ..sample import Sample, td


def reference(desc, x):
    """x / (1 + exp(-s x)) in float64."""
    v = x["InputTensor"].astype(np.float64)
    with np.errstate(over="ignore"):  # exp(-s x) = inf for very negative s x gives x / inf = -0
        return {"OutputTensor": v / (1 + np.exp(-np.float32(desc.sigmoid_input_scale) * v))}


def to_onnx(desc, g, x):
    """Mul(x, 1 / (1 + Exp(-(x * s))))."""
    from .activation_sigmoid import onnx_sigmoid

    v = x["InputTensor"]
    s = g.scalar(np.float32(desc.sigmoid_input_scale), v)
    return {"OutputTensor": g.node("Mul", [v, onnx_sigmoid(g, g.node("Mul", [v, s]))])}


def to_torch(desc, torch, x):
    """x * sigmoid(s x)."""
    v = x["InputTensor"]
    return {"OutputTensor": v * torch.sigmoid(v * float(desc.sigmoid_input_scale))}


def _samples():
    from ..descs import ActivationSwish

    t = td("FLOAT32", [4])
    ln3 = np.log(3)
    return [
        # Scale 2: sigmoid(ln 3) = 3 / 4 and sigmoid(-ln 3) = 1 / 4, so x = ln 3 / 2 -> 3 ln 3 / 8 and
        # x = -ln 3 / 2 -> -ln 3 / 8; x = -100 -> -100 e^-200 = -0.
        Sample("scale_two", ActivationSwish(input_tensor=t, output_tensor=t, sigmoid_input_scale=2.0),
               {"InputTensor": np.array([0, ln3 / 2, -ln3 / 2, -100], np.float32)},
               {"OutputTensor": np.array([0, 3 * ln3 / 8, -ln3 / 8, 0], np.float32)},
               why="float32 rounding of ln 3 and exp", atol=1e-6, rtol=1e-6),
        Sample("default_scale", ActivationSwish(input_tensor=td("FLOAT32", [2, 3]),
                                                output_tensor=td("FLOAT32", [2, 3])),
               {"InputTensor": np.array([[-6, -1, -0.25], [0.25, 1, 6]], np.float32)}),
    ]


SAMPLES = _samples()
