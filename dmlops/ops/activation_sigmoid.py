"""DML_OPERATOR_ACTIVATION_SIGMOID: f(x) = 1 / (1 + exp(-x)).

The ONNX lowering writes the formula: ONNX Runtime's Sigmoid kernel is an approximation off by up to 6e-6
relative (DirectML's vectors: ACTIVATION_SWISH default_scale). Results below the float32 normal range come back
from DirectML as 0 (sigmoid(-100) = 0, vector basic): dmlops/vector_tolerances.py allows that.
"""
from __future__ import annotations

import numpy as np

from ..sample import Sample, td


def reference(desc, x):
    """1 / (1 + exp(-x)) in float64."""
    v = x["InputTensor"].astype(np.float64)
    with np.errstate(over="ignore"):
        return {"OutputTensor": 1.0 / (1.0 + np.exp(-v))}


def to_onnx(desc, g, x):
    """Reciprocal(1 + Exp(-x)) (ONNX Runtime's Sigmoid kernel approximates)."""
    return {"OutputTensor": onnx_sigmoid(g, x["InputTensor"])}


def onnx_sigmoid(g, v):
    """1 / (1 + Exp(-x)) in ONNX ops."""
    one = g.scalar(1, v)
    return g.node("Div", [one, g.node("Add", [one, g.node("Exp", [g.node("Neg", [v])])])])


def to_torch(desc, torch, x):
    """torch.sigmoid."""
    return {"OutputTensor": torch.sigmoid(x["InputTensor"])}


def _samples():
    from ..descs import ActivationSigmoid

    t = td("FLOAT32", [4])
    return [Sample("basic", ActivationSigmoid(input_tensor=t, output_tensor=t),
                   {"InputTensor": np.array([0, np.log(3), -np.log(3), -100], np.float32)},
                   {"OutputTensor": np.array([0.5, 0.75, 0.25, 0], np.float32)},
                   why="float32 rounding of exp", atol=1e-6, rtol=1e-6)]


SAMPLES = _samples()
