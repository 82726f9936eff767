"""DML_OPERATOR_ACTIVATION_HARD_SIGMOID: f(x) = max(0, min(Alpha * x + Beta, 1)).

ONNX HardSigmoid has the same formula and defaults (alpha 0.2, beta 0.5). torch's hardsigmoid is
fixed at x / 6 + 1/2, so the torch lowering writes the formula with clamp.
"""
from __future__ import annotations

import numpy as np

from ..sample import Sample, td


def reference(desc, x):
    """clip(Alpha * x + Beta, 0, 1) in float64."""
    v = x["InputTensor"].astype(np.float64)
    return {"OutputTensor": np.clip(np.float32(desc.alpha) * v + np.float32(desc.beta), 0, 1)}


def to_onnx(desc, g, x):
    """ONNX HardSigmoid(alpha=Alpha, beta=Beta)."""
    return {"OutputTensor": g.node("HardSigmoid", [x["InputTensor"]], alpha=float(desc.alpha), beta=float(desc.beta))}


def to_torch(desc, torch, x):
    """clamp(Alpha * x + Beta, 0, 1)."""
    return {"OutputTensor": torch.clamp(x["InputTensor"] * float(desc.alpha) + float(desc.beta), 0, 1)}


def _samples():
    from ..descs import ActivationHardSigmoid

    t = td("FLOAT32", [6])
    return [
        # Defaults (0.2, 0.5): 0.2 x + 0.5 = [-0.5, 0, 0.5, 0.7, 1, 2.5], clipped to [0, 1].
        Sample("defaults", ActivationHardSigmoid(input_tensor=t, output_tensor=t),
               {"InputTensor": np.array([-5, -2.5, 0, 1, 2.5, 10], np.float32)},
               {"OutputTensor": np.array([0, 0, 0.5, 0.7, 1, 1], np.float32)},
               why="float32 rounding of 0.2 x", atol=1e-6, rtol=1e-6),
        # alpha = 0.5, beta = 0.25: [-1, 0, 0.5, 2] -> [-0.25, 0.25, 0.5, 1.25] -> [0, 0.25, 0.5, 1].
        Sample("alpha_beta", ActivationHardSigmoid(input_tensor=td("FLOAT32", [4]), output_tensor=td("FLOAT32", [4]),
                                                   alpha=0.5, beta=0.25),
               {"InputTensor": np.array([-1, 0, 0.5, 2], np.float32)},
               {"OutputTensor": np.array([0, 0.25, 0.5, 1], np.float32)},
               why="powers of two: exact", atol=0, rtol=0, float16_atol=0, float16_rtol=0),
    ]


SAMPLES = _samples()
