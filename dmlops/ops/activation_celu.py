"""DML_OPERATOR_ACTIVATION_CELU: f(x) = max(0, x) + min(0, Alpha * (exp(x / Alpha) - 1)).

ONNX Celu and torch's celu compute the same function with the same alpha (default 1.0). As for ELU, DirectML
computes exp(x / Alpha) - 1 in float32 (not expm1); the lowerings write x < 0 ? Alpha * (exp(x / Alpha) - 1) : x
(the two branches of the max/min form; NaN stays NaN: no vector shows otherwise), so torch-directml, which has
no celu (it is elu underneath), runs them on DirectML.
"""
from __future__ import annotations

import numpy as np

from ..sample import Sample, td
from . import _elementwise as ew


def reference(desc, x):
    """x < 0 ? Alpha * (exp(x / Alpha) - 1) : x in float32."""
    v = x["InputTensor"].astype(np.float32)
    a = np.float32(desc.alpha)
    with np.errstate(all="ignore"):  # Alpha 0: x / 0 is -inf for x < 0, and 0 * (exp(-inf) - 1) is -0.0
        e = np.exp(np.minimum(v, np.float32(0)) / a) - np.float32(1)
        return {"OutputTensor": np.where(v < 0, a * e, v)}


def to_onnx(desc, g, x):
    """Where(x < 0, Alpha * (Exp(x / Alpha) - 1), x)."""
    v = x["InputTensor"]
    dtype = g.dtype(v)
    c = lambda value: g.const(np.asarray(value, dtype))  # noqa: E731
    a = c(np.float32(desc.alpha))
    e = g.node("Sub", [g.node("Exp", [g.node("Div", [g.node("Min", [v, c(0)]), a])]), c(1)])
    # ew.onnx_where: ONNX Runtime's CPU Where would turn the -0.0 of Alpha 0 (0 * -1) into +0.0
    return {"OutputTensor": ew.onnx_where(g, g.node("Less", [v, c(0)], dtype=np.bool_), g.node("Mul", [a, e]), v)}


def to_torch(desc, torch, x):
    """torch.where(x < 0, Alpha * (exp(x / Alpha) - 1), x)."""
    v = x["InputTensor"]
    a = float(np.float32(desc.alpha))
    return {"OutputTensor": torch.where(v < 0, a * (torch.exp(torch.clamp(v, max=0) / a) - 1), v)}


def _samples():
    from ..descs import ActivationCelu

    t = td("FLOAT32", [5])
    ln2, ln4 = np.log(2), np.log(4)
    return [
        # Alpha 2: x / 2 = -ln 2 -> 2 (1/2 - 1) = -1; x / 2 = -ln 4 -> 2 (1/4 - 1) = -1.5; x = -100 -> -2.
        Sample("alpha_two", ActivationCelu(input_tensor=t, output_tensor=t, alpha=2.0),
               {"InputTensor": np.array([3, 0, -2 * ln2, -2 * ln4, -100], np.float32)},
               {"OutputTensor": np.array([3, 0, -1, -1.5, -2], np.float32)},
               why="float32 rounding of ln 2 and exp", atol=1e-6, rtol=1e-6),
        Sample("default_alpha", ActivationCelu(input_tensor=td("FLOAT32", [2, 3]), output_tensor=td("FLOAT32", [2, 3])),
               {"InputTensor": np.array([[-4, -1, -0.2], [0.2, 1, 90]], np.float32)}),
        # Alpha 0 (issue 13: it must not crash any backend): x < 0 gives 0 * (exp(x / 0) - 1) = 0 * -1 = -0.0;
        # -0.0 and 0 are not below 0 and stay; 2 stays; NaN stays NaN.
        Sample("alpha_zero", ActivationCelu(input_tensor=t, output_tensor=t, alpha=0.0),
               {"InputTensor": np.array([-1, -0.0, 0, 2, np.nan], np.float32)},
               {"OutputTensor": np.array([-0.0, -0.0, 0, 2, np.nan], np.float32)}, atol=0, rtol=0,
               why="selections and a product by zero: exact, signed zeros included"),
    ]


SAMPLES = _samples()
