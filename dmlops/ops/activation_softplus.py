"""DML_OPERATOR_ACTIVATION_SOFTPLUS: f(x) = ln(1 + exp(Steepness * x)) / Steepness.

The Steepness rule the descriptor file cannot express. The docs (in the text misplaced under
OutputTensor): "The Steepness coefficient. A typical default for this value is 1.0. This value
cannot be less than 1."

DirectML evaluates the formula as written, in float32 (DirectML's vectors: default_4d gives softplus(-30) = 0, since
1 + exp(-30) rounds to 1, and softplus(30) = 29.999998), and returns x where exp(Steepness * x) overflows
(steepness_two: softplus(100) = 100; edge_specials: softplus(1e30) = 1e30, softplus(inf) = inf). ONNX Softplus and
torch's softplus (log1p forms, and x above a threshold of 20) differ from that by up to exp(s x) for s x < -17
(absolute, under 4e-8) and a float32 step for s x in (20, 88), so every lowering writes the formula.
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
    """ln(1 + exp(s x)) / s in float32; x where exp(s x) overflows."""
    v = x["InputTensor"].astype(np.float32)
    s = np.float32(desc.steepness)
    with np.errstate(over="ignore", invalid="ignore"):
        e = np.exp(v * s)
        return {"OutputTensor": np.where(np.isinf(e) & (e > 0), v, np.log(np.float32(1) + e) / s)}


def to_onnx(desc, g, x):
    """Where(IsInf(e), x, Log(1 + e) / s) with e = Exp(x * s)."""
    v = x["InputTensor"]
    dtype = g.dtype(v)
    s, one = g.scalar(np.float32(desc.steepness), v), g.scalar(1, v)
    e = g.node("Exp", [g.node("Mul", [v, s])])
    y = g.node("Div", [g.node("Log", [g.node("Add", [one, e])]), s])
    return {"OutputTensor": g.node("Where", [g.node("IsInf", [e], dtype=np.bool_), v, y], dtype=dtype)}


def to_torch(desc, torch, x):
    """torch.where(isinf(e), x, log(1 + e) / s) with e = exp(x * s)."""
    v = x["InputTensor"]
    s = float(np.float32(desc.steepness))
    e = torch.exp(v * s)
    return {"OutputTensor": torch.where(torch.isinf(e), v, torch.log(1 + e) / s)}


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
