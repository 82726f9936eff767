"""DML_OPERATOR_ACTIVATION_SCALED_ELU: f(x) = Gamma * x if x > 0 else Gamma * (Alpha * exp(x) - Alpha).

This is ONNX Selu, but the defaults differ: DML documents Alpha 1.6732 and Gamma 1.0507, ONNX's are
1.67326319... and 1.05070102..., so an ONNX Selu maps to DML only with both values written out.
torch's selu has the constants fixed. As for ELU, DirectML computes exp(x) - 1 in float32 (not expm1), so every
lowering writes Gamma * (x < 0 ? Alpha * (exp(x) - 1) : x) in float32.
"""
from __future__ import annotations

import numpy as np

from ..sample import Sample, td


def reference(desc, x):
    """Gamma * (x < 0 ? Alpha * (exp(x) - 1) : x) in float32."""
    from .activation_elu import _elu

    return {"OutputTensor": _elu(x["InputTensor"].astype(np.float32), np.float32(desc.alpha)) * np.float32(desc.gamma)}


def to_onnx(desc, g, x):
    """Mul(ELU(x, Alpha), Gamma)."""
    from .activation_elu import onnx_elu

    v = x["InputTensor"]
    return {"OutputTensor": g.node("Mul", [onnx_elu(g, v, desc.alpha), g.const(np.asarray(np.float32(desc.gamma),
                                                                                         g.dtype(v)))])}


def to_torch(desc, torch, x):
    """ELU(x, Alpha) * Gamma."""
    from .activation_elu import torch_elu

    return {"OutputTensor": torch_elu(torch, x["InputTensor"], desc.alpha) * float(np.float32(desc.gamma))}


def _samples():
    from ..descs import ActivationScaledElu

    t = td("FLOAT32", [4])
    ln2, ln4 = np.log(2), np.log(4)
    return [
        # Alpha 2, Gamma 3: 1 -> 3; 0 -> 3 (2 - 2) = 0; -ln 2 -> 3 (2 / 2 - 2) = -3; -ln 4 -> 3 (2 / 4 - 2) = -4.5.
        Sample("alpha_gamma", ActivationScaledElu(input_tensor=t, output_tensor=t, alpha=2.0, gamma=3.0),
               {"InputTensor": np.array([1, 0, -ln2, -ln4], np.float32)},
               {"OutputTensor": np.array([3, 0, -3, -4.5], np.float32)},
               why="float32 rounding of ln 2 and exp", atol=1e-6, rtol=1e-6),
        Sample("defaults", ActivationScaledElu(input_tensor=td("FLOAT32", [2, 3]), output_tensor=td("FLOAT32", [2, 3])),
               {"InputTensor": np.array([[-5, -1, -0.1], [0.1, 1, 5]], np.float32)}),
    ]


SAMPLES = _samples()
