"""DML_OPERATOR_ACTIVATION_CELU: f(x) = max(0, x) + min(0, Alpha * (exp(x / Alpha) - 1)).

ONNX Celu and torch's celu compute the same function with the same alpha (default 1.0).
"""
from __future__ import annotations

import numpy as np

from ..sample import Sample, td


def reference(desc, x):
    """max(0, x) + min(0, Alpha * expm1(x / Alpha)) in float64."""
    v = x["InputTensor"].astype(np.float64)
    a = np.float64(np.float32(desc.alpha))
    with np.errstate(over="ignore"):  # exp of a large positive x / Alpha is inf; min(0, inf) discards it
        return {"OutputTensor": np.maximum(0, v) + np.minimum(0, a * np.expm1(v / a))}


def to_onnx(desc, g, x):
    """ONNX Celu(alpha=Alpha)."""
    return {"OutputTensor": g.node("Celu", [x["InputTensor"]], alpha=float(desc.alpha))}


def to_torch(desc, torch, x):
    """torch.nn.functional.celu(alpha=Alpha)."""
    return {"OutputTensor": torch.nn.functional.celu(x["InputTensor"], float(desc.alpha))}


def _samples():
    from ..descs import ActivationCelu

    t = td("FLOAT32", [5])
    ln2, ln4 = np.log(2), np.log(4)
    return [
        # Alpha 2: x / 2 = -ln 2 -> 2 (1/2 - 1) = -1; x / 2 = -ln 4 -> 2 (1/4 - 1) = -1.5; x = -100 -> -2.
        Sample("alpha_two", ActivationCelu(input_tensor=t, output_tensor=t, alpha=2.0),
               {"InputTensor": np.array([3, 0, -2 * ln2, -2 * ln4, -100], np.float32)},
               {"OutputTensor": np.array([3, 0, -1, -1.5, -2], np.float32)},
               why="float32 rounding of ln 2 and exp", atol=1e-6, rtol=1e-6),
        Sample("default_alpha", ActivationCelu(input_tensor=td("FLOAT32", [2, 3]), output_tensor=td("FLOAT32", [2, 3])),
               {"InputTensor": np.array([[-4, -1, -0.2], [0.2, 1, 90]], np.float32)}),
    ]


SAMPLES = _samples()
