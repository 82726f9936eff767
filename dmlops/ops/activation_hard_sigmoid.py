"""DML_OPERATOR_ACTIVATION_HARD_SIGMOID: f(x) = max(0, min(Alpha * x + Beta, 1)).

ONNX HardSigmoid has the same formula and defaults (alpha 0.2, beta 0.5); torch's hardsigmoid is fixed at
x / 6 + 1/2. NaN gives 0 (DirectML's vectors: edge_specials): DirectML clamps with min/max that return the
non-NaN operand, the lower bound first (min(max(v, 0), 1)); ONNX HardSigmoid and torch.clamp keep NaN. So the
lowerings write the affine step (in float32, as DirectML computes) and ew.float_max / ew.float_min.
"""
from __future__ import annotations

import numpy as np

from ..sample import Sample, td
from . import _elementwise as ew


def reference(desc, x):
    """min(max(Alpha * x + Beta, 0), 1) in float32, NaN giving 0."""
    v = x["InputTensor"].astype(np.float32)
    y = v * np.float32(desc.alpha) + np.float32(desc.beta)
    return {"OutputTensor": ew.float_min(ew.float_max(y, np.float32(0)), np.float32(1))}


def to_onnx(desc, g, x):
    """Alpha * x + Beta, then DirectML's max with 0 and min with 1 (ONNX HardSigmoid keeps NaN)."""
    v = x["InputTensor"]
    dtype = g.dtype(v)
    y = g.node("Add", [g.node("Mul", [v, ew.onnx_const(g, desc.alpha, dtype)]), ew.onnx_const(g, desc.beta, dtype)])
    y = ew.onnx_float_max(g, y, ew.onnx_const(g, 0, dtype))
    return {"OutputTensor": ew.onnx_float_min(g, y, ew.onnx_const(g, 1, dtype))}


def to_torch(desc, torch, x):
    """Alpha * x + Beta, then DirectML's max with 0 and min with 1 (torch.clamp keeps NaN)."""
    v = x["InputTensor"]
    y = v * float(np.float32(desc.alpha)) + float(np.float32(desc.beta))
    zero, one = (torch.full((), c, dtype=v.dtype, device=v.device) for c in (0.0, 1.0))
    return {"OutputTensor": ew.torch_float_min(torch, ew.torch_float_max(torch, y, zero), one)}


def _samples():
    from ..descs import ActivationHardSigmoid

    t = td("FLOAT32", [6])
    return [
        # Defaults (0.2, 0.5): 0.2 x + 0.5 = [-0.5, 0, 0.5, 0.7, 1, 2.5], clipped to [0, 1].
        Sample("defaults", ActivationHardSigmoid(input_tensor=t, output_tensor=t),
               {"InputTensor": np.array([-5, -2.5, 0, 1, 2.5, 10], np.float32)},
               {"OutputTensor": np.array([0, 0, 0.5, 0.7, 1, 1], np.float32)},
               why="float32 rounding of 0.2 x", atol=1e-6, rtol=1e-6),
        # alpha = 0.5, beta = 0.25: [-1, 0, 0.5, 2] -> [-0.25, 0.25, 0.5, 1.25] -> [0, 0.25, 0.5, 1].
        Sample("alpha_beta", ActivationHardSigmoid(input_tensor=td("FLOAT32", [4]), output_tensor=td("FLOAT32", [4]),
                                                   alpha=0.5, beta=0.25),
               {"InputTensor": np.array([-1, 0, 0.5, 2], np.float32)},
               {"OutputTensor": np.array([0, 0.25, 0.5, 1], np.float32)},
               why="powers of two: exact", atol=0, rtol=0, float16_atol=0, float16_rtol=0),
    ]


SAMPLES = _samples()
