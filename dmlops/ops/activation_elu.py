"""DML_OPERATOR_ACTIVATION_ELU: f(x) = x if x >= 0 else Alpha * (exp(x) - 1).

ONNX Elu and torch's elu compute the same function. Alpha defaults to 1.0 in DML, ONNX and torch. DirectML
computes exp(x) - 1 in float32, not expm1 (DirectML's vectors: edge_specials, where ELU(-2**-149) = -2**-24
from its exp's last bit), and -0.0 stays -0.0; every lowering writes that select (torch-directml has no elu:
it would fall back to the CPU).
"""
from __future__ import annotations

import numpy as np

from ..sample import Sample, td
from . import _elementwise as ew


def reference(desc, x):
    """x < 0 ? Alpha * (exp(x) - 1) : x, in float32."""
    v = x["InputTensor"].astype(np.float32)
    return {"OutputTensor": _elu(v, np.float32(desc.alpha))}


def _elu(v, alpha):
    """x < 0 ? alpha * (exp(x) - 1) : x for a float32 array (exp of the non-positive part: no overflow)."""
    return np.where(v < 0, alpha * (np.exp(np.minimum(v, np.float32(0))) - np.float32(1)), v)


def to_onnx(desc, g, x):
    """Where(x < 0, Alpha * (Exp(x) - 1), x)."""
    return {"OutputTensor": onnx_elu(g, x["InputTensor"], desc.alpha)}


def onnx_elu(g, v, alpha):
    """Where(x < 0, alpha * (Exp(min(x, 0)) - 1), x)."""
    dtype = g.dtype(v)
    c = lambda value: g.const(np.asarray(value, dtype))  # noqa: E731
    e = g.node("Sub", [g.node("Exp", [g.node("Min", [v, c(0)])]), c(1)])
    # ew.onnx_where: alpha * (e - 1) is -0.0 for alpha = 0 (or < 0 where Exp rounds to 1)
    return ew.onnx_where(g, g.node("Less", [v, c(0)], dtype=np.bool_), g.node("Mul", [e, c(np.float32(alpha))]), v)


def to_torch(desc, torch, x):
    """torch.where(x < 0, Alpha * (exp(x) - 1), x)."""
    return {"OutputTensor": torch_elu(torch, x["InputTensor"], desc.alpha)}


def torch_elu(torch, v, alpha):
    """torch.where(x < 0, alpha * (exp(min(x, 0)) - 1), x)."""
    e = torch.exp(torch.clamp(v, max=0)) - 1
    return torch.where(v < 0, e * float(np.float32(alpha)), v)


def _samples():
    from ..descs import ActivationElu

    t = td("FLOAT32", [5])
    ln2, ln4 = np.log(2), np.log(4)
    return [
        # alpha = 2: exp(-ln 2) - 1 = -1/2 -> -1; exp(-ln 4) - 1 = -3/4 -> -1.5; exp(-50) - 1 ~ -1 -> -2.
        Sample("alpha_two", ActivationElu(input_tensor=t, output_tensor=t, alpha=2.0),
               {"InputTensor": np.array([1.5, 0, -ln2, -ln4, -50], np.float32)},
               {"OutputTensor": np.array([1.5, 0, -1, -1.5, -2], np.float32)},
               why="float32 rounding of ln 2 and exp", atol=1e-6, rtol=1e-6),
        Sample("default_alpha_4d", ActivationElu(input_tensor=td("FLOAT32", [1, 1, 2, 3]),
                                                 output_tensor=td("FLOAT32", [1, 1, 2, 3])),
               {"InputTensor": np.array([[[[-3, -1, -0.25], [0.25, 1, 3]]]], np.float32)}),
    ]


SAMPLES = _samples()
