"""DML_OPERATOR_ACTIVATION_PARAMETRIC_SOFTPLUS: f(x) = Alpha * ln(1 + exp(Beta * x)).

DirectML evaluates the formula as written, in float32 (DirectML's vectors: float32 with Alpha 0.5, Beta 2 is within
32 ULP of Alpha * ln(1 + exp(Beta x)) in float32 and 240 ULP from the log1p form, at x = -2.82, where 1 + exp(-5.6)
rounds; f(±0) = 0.5 ln 2 = 0.34657359, f(-inf) = 0, f(inf) = inf, f(NaN) = NaN), so every lowering writes the
formula (ONNX Softplus and torch's softplus use log1p forms and linearize above a threshold).

Where exp(Beta * x) overflows, dmlops gives the asymptote Alpha * (Beta * x) instead of inf, as DirectML's
ACTIVATION_SOFTPLUS does (its vector steepness_two gives softplus(100) = 100); no PARAMETRIC_SOFTPLUS vector goes
there (float32 holds only x in [-3, 3] and ±inf), so this is inferred from the sibling operator. Alpha and Beta may
be any value (the docs set no range): Beta = 0 gives Alpha ln 2 everywhere.
"""
from __future__ import annotations

import numpy as np

from ..sample import Sample, td
from . import _elementwise as ew


def reference(desc, x):
    """Alpha * ln(1 + exp(Beta x)) in float32; Alpha * (Beta x) where exp(Beta x) overflows."""
    v = x["InputTensor"].astype(np.float32)
    a, b = np.float32(desc.alpha), np.float32(desc.beta)
    with np.errstate(over="ignore", invalid="ignore"):
        z = v * b
        e = np.exp(z)
        return {"OutputTensor": np.where(np.isinf(e) & (e > 0), a * z, a * np.log(np.float32(1) + e))}


def to_onnx(desc, g, x):
    """Where(IsInf(e), Alpha * z, Alpha * Log(1 + e)) with z = x * Beta, e = Exp(z)."""
    v = x["InputTensor"]
    dtype = g.dtype(v)
    a, b, one = g.scalar(np.float32(desc.alpha), v), g.scalar(np.float32(desc.beta), v), g.scalar(1, v)
    z = g.node("Mul", [v, b])
    e = g.node("Exp", [z])
    y = g.node("Mul", [a, g.node("Log", [g.node("Add", [one, e])])])
    over = g.node("IsInf", [e], dtype=np.bool_, detect_negative=0)
    # ew.onnx_where: Alpha * z is -0.0 for Alpha = -0.0
    return {"OutputTensor": ew.onnx_where(g, over, g.node("Mul", [a, z]), y)}


def to_torch(desc, torch, x):
    """torch.where(e == inf, Alpha * z, Alpha * log(1 + e)) with z = x * Beta, e = exp(z)."""
    v = x["InputTensor"]
    a, b = float(np.float32(desc.alpha)), float(np.float32(desc.beta))
    z = v * b
    e = torch.exp(z)
    return {"OutputTensor": torch.where(torch.isinf(e), a * z, a * torch.log(1 + e))}


def _samples():
    from ..descs import ActivationParametricSoftplus as cls

    t = td("FLOAT32", [5])
    ln2, ln3 = np.log(2), np.log(3)
    return [
        # Alpha 0.5, Beta 2: x = 0 -> ln 2 / 2; x = ln 3 / 2 -> ln(1 + 3) / 2 = ln 2; x = -ln 2 -> ln(1 + 1/4) / 2;
        # x = 100 -> the asymptote 0.5 * 200 = 100 (exp(200) overflows float32); x = -inf -> ln 1 = 0.
        Sample("alpha_half_beta_two", cls(input_tensor=t, output_tensor=t, alpha=0.5, beta=2.0),
               {"InputTensor": np.array([0, ln3 / 2, -ln2, 100, -np.inf], np.float32)},
               {"OutputTensor": np.array([ln2 / 2, ln2, np.log(1.25) / 2, 100, 0], np.float32)},
               why="float32 rounding of ln 3 and exp", atol=1e-6, rtol=1e-6),
        # Alpha 3, Beta -1: x = ln 2 -> 3 ln(3/2); x = -ln 2 -> 3 ln 3; Beta 0 would give Alpha ln 2.
        Sample("negative_beta", cls(input_tensor=td("FLOAT32", [1, 2, 1, 2]), output_tensor=td("FLOAT32", [1, 2, 1, 2]),
                                    alpha=3.0, beta=-1.0),
               {"InputTensor": np.array([ln2, -ln2, 0, np.inf], np.float32).reshape(1, 2, 1, 2)},
               {"OutputTensor": np.array([3 * np.log(1.5), 3 * ln3, 3 * ln2, 0], np.float32).reshape(1, 2, 1, 2)},
               why="float32 rounding of ln 2 and exp", atol=2e-6, rtol=1e-6),
        Sample("broadcast_rows", cls(input_tensor=td("FLOAT32", [3, 4], [0, 1]), output_tensor=td("FLOAT32", [3, 4]),
                                     alpha=1.5, beta=0.75),
               {"InputTensor": np.array([-4, -1, 1, 4], np.float32)},
               why="float32 rounding of exp and log", atol=1e-6, rtol=1e-6),
    ]


SAMPLES = _samples()
