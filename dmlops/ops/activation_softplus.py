"""DML_OPERATOR_ACTIVATION_SOFTPLUS: f(x) = ln(1 + exp(Steepness * x)) / Steepness.

The Steepness rule the descriptor file cannot express. The docs (in the text misplaced under
OutputTensor): "The Steepness coefficient. A typical default for this value is 1.0. This value
cannot be less than 1."

ONNX Softplus has no steepness (it is Steepness = 1), so the ONNX lowering scales around it; torch's
softplus(beta) is this function with beta = Steepness, except that it returns x where
beta * x > threshold (20 by default), which differs from the formula by under 1e-8.
"""
from __future__ import annotations

import numpy as np

from ..errors import Problem
from ..sample import Sample, td


def check(desc, level) -> list[Problem]:
    """Steepness >= 1 (NaN is rejected too)."""
    s = desc.steepness
    if s >= 1:
        return []
    return [Problem(desc.OPERATOR_TYPE, "Steepness", "range", f"{s!r} is less than 1 (allowed: 1 or more).")]


def reference(desc, x):
    """ln(1 + exp(s x)) / s in float64; logaddexp(0, y) = ln(1 + exp(y)) without overflow for large y."""
    s = np.float64(np.float32(desc.steepness))
    return {"OutputTensor": np.logaddexp(0, s * x["InputTensor"].astype(np.float64)) / s}


def to_onnx(desc, g, x):
    """Softplus(x * s) / s."""
    v = x["InputTensor"]
    s = g.scalar(desc.steepness, v)
    return {"OutputTensor": g.node("Div", [g.node("Softplus", [g.node("Mul", [v, s])]), s])}


def to_torch(desc, torch, x):
    """torch.nn.functional.softplus(beta=Steepness)."""
    return {"OutputTensor": torch.nn.functional.softplus(x["InputTensor"], beta=float(desc.steepness))}


def _samples():
    from ..descs import ActivationSoftplus

    t = td("FLOAT32", [4])
    ln2, ln3 = np.log(2), np.log(3)
    return [
        # Steepness 2: x = 0 -> ln 2 / 2; x = ln 3 / 2 -> ln(1 + 3) / 2 = ln 2; x = -ln 2 -> ln(1 + 1/4) / 2;
        # x = 100 -> (200 + ln(1 + e^-200)) / 2 = 100 (exp(200) overflows float32: the formula must not).
        Sample("steepness_two", ActivationSoftplus(input_tensor=t, output_tensor=t, steepness=2.0),
               {"InputTensor": np.array([0, ln3 / 2, -ln2, 100], np.float32)},
               {"OutputTensor": np.array([ln2 / 2, ln2, np.log(1.25) / 2, 100], np.float32)},
               why="float32 rounding of ln 3 and exp", atol=1e-6, rtol=1e-6),
        Sample("default_4d", ActivationSoftplus(input_tensor=td("FLOAT32", [1, 2, 1, 3]),
                                                output_tensor=td("FLOAT32", [1, 2, 1, 3])),
               {"InputTensor": np.array([-30, -2, -0.5, 0.5, 2, 30], np.float32).reshape(1, 2, 1, 3)},
               why="float32 rounding of exp and log", atol=1e-6, rtol=1e-6),
    ]


SAMPLES = _samples()
