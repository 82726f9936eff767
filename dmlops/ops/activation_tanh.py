"""DML_OPERATOR_ACTIVATION_TANH: f(x) = (1 - exp(-2x)) / (1 + exp(-2x))."""
from __future__ import annotations

import numpy as np

from ..sample import Sample, td


def reference(desc, x):
    """tanh in float64."""
    return {"OutputTensor": np.tanh(x["InputTensor"].astype(np.float64))}


def to_onnx(desc, g, x):
    """ONNX Tanh."""
    return {"OutputTensor": g.node("Tanh", [x["InputTensor"]])}


def to_torch(desc, torch, x):
    """torch.tanh."""
    return {"OutputTensor": torch.tanh(x["InputTensor"])}


def _samples():
    from ..descs import ActivationTanh

    t = td("FLOAT32", [4])
    # tanh(ln 2) = (4 - 1) / (4 + 1) = 0.6
    return [Sample("basic", ActivationTanh(input_tensor=t, output_tensor=t),
                   {"InputTensor": np.array([0, np.log(2), -np.log(2), 30], np.float32)},
                   {"OutputTensor": np.array([0, 0.6, -0.6, 1], np.float32)},
                   why="float32 rounding of exp", atol=1e-6, rtol=1e-6)]


SAMPLES = _samples()
