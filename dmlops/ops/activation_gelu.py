"""DML_OPERATOR_ACTIVATION_GELU: f(x) = 0.5 * x * (1 + erf(x / sqrt(2))), the exact (erf) GELU.

torch's gelu (approximate="none") is the same function, but gives NaN for +inf where DirectML and the formula give
+inf (DirectML's vectors: edge_specials), so the torch lowering writes the formula with erf. ONNX Gelu exists only
from opset 20 (the builder pins 18), so the ONNX lowering writes it with Erf too. DML has no tanh approximation.
"""
from __future__ import annotations

import math

import numpy as np

from ..sample import Sample, td

# NumPy has no erf; math.erf is correctly rounded to double, which is what a reference needs.
_erf = np.vectorize(math.erf, otypes=[np.float64])


def reference(desc, x):
    """0.5 x (1 + erf(x / sqrt 2)) in float64."""
    v = x["InputTensor"].astype(np.float64)
    with np.errstate(invalid="ignore"):  # -inf * 0 = NaN, as DirectML gives (vector edge_specials)
        return {"OutputTensor": 0.5 * v * (1 + _erf(v / math.sqrt(2)))}


def to_onnx(desc, g, x):
    """Mul(Mul(x, 0.5), Add(Erf(Div(x, sqrt 2)), 1))."""
    v = x["InputTensor"]
    erf = g.node("Erf", [g.node("Div", [v, g.scalar(math.sqrt(2), v)])])
    return {"OutputTensor": g.node("Mul", [g.node("Mul", [v, g.scalar(0.5, v)]),
                                           g.node("Add", [erf, g.scalar(1, v)])])}


def to_torch(desc, torch, x):
    """0.5 x (1 + erf(x / sqrt 2)) (F.gelu gives NaN at +inf)."""
    v = x["InputTensor"]
    return {"OutputTensor": v * 0.5 * (1 + torch.erf(v / math.sqrt(2)))}


def _samples():
    from ..descs import ActivationGelu

    t = td("FLOAT32", [6])
    # 0.5 (1 + erf(x / sqrt 2)) is the standard normal CDF Phi(x); from a normal table,
    # Phi(1) = 0.8413447, Phi(-1) = 0.1586553, Phi(2) = 0.9772499, and Phi(-10) ~ 7.6e-24.
    return [Sample("normal_table", ActivationGelu(input_tensor=t, output_tensor=t),
                   {"InputTensor": np.array([0, 1, -1, 2, 10, -10], np.float32)},
                   {"OutputTensor": np.array([0, 0.8413447, -0.1586553, 1.9544998, 10, 0], np.float32)},
                   why="7-digit table values and float32 rounding of erf", atol=2e-7, rtol=1e-6)]


SAMPLES = _samples()
