"""DML_OPERATOR_ACTIVATION_LINEAR: f(x) = Alpha * x + Beta (Alpha and Beta have no default).

ONNX and torch have no such activation (ONNX's old experimental Affine was the same), so both
lowerings write the formula, in float32 (FLOAT16 too, rounded once at the end: dmlops.lower).
"""
from __future__ import annotations

import numpy as np

from ..sample import Sample, td


def reference(desc, x):
    """x * Alpha + Beta in float32, two roundings, as DirectML and the other lowerings compute it."""
    v = x["InputTensor"].astype(np.float32)
    return {"OutputTensor": v * np.float32(desc.alpha) + np.float32(desc.beta)}


def to_onnx(desc, g, x):
    """Add(Mul(x, Alpha), Beta)."""
    v = x["InputTensor"]
    return {"OutputTensor": g.node("Add", [g.node("Mul", [v, g.scalar(desc.alpha, v)]), g.scalar(desc.beta, v)])}


def to_torch(desc, torch, x):
    """Alpha * x + Beta."""
    return {"OutputTensor": x["InputTensor"] * float(desc.alpha) + float(desc.beta)}


def _samples():
    from ..descs import ActivationLinear

    t = td("FLOAT32", [4])
    return [
        # 2 x - 1 on [0, 1, -1.5, 0.25].
        Sample("basic", ActivationLinear(input_tensor=t, output_tensor=t, alpha=2.0, beta=-1.0),
               {"InputTensor": np.array([0, 1, -1.5, 0.25], np.float32)},
               {"OutputTensor": np.array([-1, 1, -4, -0.5], np.float32)},
               why="small integers and halves: exact", atol=0, rtol=0, float16_atol=0, float16_rtol=0),
        Sample("broadcast_4d", ActivationLinear(input_tensor=td("FLOAT32", [1, 2, 1, 3], [0, 0, 0, 1]),
                                                output_tensor=td("FLOAT32", [1, 2, 1, 3]), alpha=-0.3, beta=0.7),
               {"InputTensor": np.array([1, -2, 3.5], np.float32)}),
    ]


SAMPLES = _samples()
