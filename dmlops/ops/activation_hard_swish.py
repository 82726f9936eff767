"""DML_OPERATOR_ACTIVATION_HARD_SWISH: f(x) = x * max(0, min(Alpha * x + Beta, 1)).

DML's default Alpha is 0.166667, ONNX HardSwish and torch's hardswish fix alpha = 1/6 and
beta = 0.5 (so they differ from DML's defaults by 3e-7 in alpha); both lowerings write the formula
with the desc's values, in float32 (FLOAT16 too, rounded once at the end: dmlops.lower), clamping with
DirectML's min/max (ew.float_max / ew.float_min), as HARD_SIGMOID does.
"""
from __future__ import annotations

import numpy as np

from ..sample import Sample, td
from . import _elementwise as ew


def reference(desc, x):
    """x * min(max(x * Alpha + Beta, 0), 1) in float32."""
    v = x["InputTensor"].astype(np.float32)
    h = v * np.float32(desc.alpha) + np.float32(desc.beta)
    with np.errstate(invalid="ignore"):
        return {"OutputTensor": v * ew.float_min(ew.float_max(h, np.float32(0)), np.float32(1))}


def to_onnx(desc, g, x):
    """x * min(max(x * Alpha + Beta, 0), 1)."""
    v = x["InputTensor"]
    dtype = g.dtype(v)
    h = g.node("Add", [g.node("Mul", [v, ew.onnx_const(g, desc.alpha, dtype)]), ew.onnx_const(g, desc.beta, dtype)])
    h = ew.onnx_float_min(g, ew.onnx_float_max(g, h, ew.onnx_const(g, 0, dtype)), ew.onnx_const(g, 1, dtype))
    return {"OutputTensor": g.node("Mul", [v, h])}


def to_torch(desc, torch, x):
    """x * min(max(x * Alpha + Beta, 0), 1)."""
    v = x["InputTensor"]
    h = v * float(np.float32(desc.alpha)) + float(np.float32(desc.beta))
    zero, one = (torch.full((), c, dtype=v.dtype, device=v.device) for c in (0.0, 1.0))
    return {"OutputTensor": v * ew.torch_float_min(torch, ew.torch_float_max(torch, h, zero), one)}


def _samples():
    from ..descs import ActivationHardSwish

    t = td("FLOAT32", [6])
    return [
        # Alpha 0.25, Beta 0.5: 0.25 x + 0.5 = [-0.5, 0, 0.5, 0.75, 1, 1.5] -> [0, 0, 0.5, 0.75, 1, 1], times x.
        Sample("alpha_beta", ActivationHardSwish(input_tensor=t, output_tensor=t, alpha=0.25, beta=0.5),
               {"InputTensor": np.array([-4, -2, 0, 1, 2, 4], np.float32)},
               {"OutputTensor": np.array([0, 0, 0, 0.75, 2, 4], np.float32)},
               why="powers of two: exact", atol=0, rtol=0, float16_atol=0, float16_rtol=0),
        # Defaults (0.166667, 0.5): x = 3 -> 3 * min(1.000001, 1) = 3; x = -3 -> -3 * max(0, -0.000001) = 0;
        # x = 1.5 -> 1.5 * 0.7500005 = 1.12500075.
        Sample("defaults", ActivationHardSwish(input_tensor=td("FLOAT32", [3]), output_tensor=td("FLOAT32", [3])),
               {"InputTensor": np.array([3, -3, 1.5], np.float32)},
               {"OutputTensor": np.array([3, 0, 1.12500075], np.float32)},
               why="float32 rounding of 0.166667 x", atol=1e-6, rtol=1e-6),
    ]


SAMPLES = _samples()
