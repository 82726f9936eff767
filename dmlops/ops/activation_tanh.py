"""DML_OPERATOR_ACTIVATION_TANH: f(x) = (1 - exp(-2x)) / (1 + exp(-2x)).

tanh(-0.0) is +0.0 (DirectML's vectors: edge_specials), as the formula gives, where IEEE tanh, ONNX Tanh and
torch.tanh keep -0.0: the lowerings add +0.0 (ONNX: a Sum, which ONNX Runtime's NoopElimination keeps, unlike an
Add of 0). tanh(±2**-149) is +0.0 there too (a flushed subnormal), which the vectors' 3-ULP bound covers.
"""
from __future__ import annotations

import numpy as np

from ..sample import Sample, td


def reference(desc, x):
    """tanh in float64, + 0.0 (tanh(-0.0) is +0.0)."""
    return {"OutputTensor": np.tanh(x["InputTensor"].astype(np.float64)) + 0.0}


def to_onnx(desc, g, x):
    """ONNX Tanh, + 0.0 as a Sum."""
    v = x["InputTensor"]
    return {"OutputTensor": g.node("Sum", [g.node("Tanh", [v]), g.const(np.zeros((), g.dtype(v)))])}


def to_torch(desc, torch, x):
    """torch.tanh, + 0.0."""
    return {"OutputTensor": torch.tanh(x["InputTensor"]) + 0.0}


def _samples():
    from ..descs import ActivationTanh

    t = td("FLOAT32", [4])
    # tanh(ln 2) = (4 - 1) / (4 + 1) = 0.6
    return [Sample("basic", ActivationTanh(input_tensor=t, output_tensor=t),
                   {"InputTensor": np.array([0, np.log(2), -np.log(2), 30], np.float32)},
                   {"OutputTensor": np.array([0, 0.6, -0.6, 1], np.float32)},
                   why="float32 rounding of exp", atol=1e-6, rtol=1e-6)]


SAMPLES = _samples()
