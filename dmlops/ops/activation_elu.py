"""DML_OPERATOR_ACTIVATION_ELU: f(x) = x if x >= 0 else Alpha * (exp(x) - 1).

ONNX Elu and torch's elu compute the same function (ONNX tests x < 0, DML x >= 0: they differ only
for NaN, which stays NaN on both branches). Alpha defaults to 1.0 in DML, ONNX and torch.
"""
from __future__ import annotations

import numpy as np

from ..sample import Sample, td


def reference(desc, x):
    """x >= 0 ? x : Alpha * (exp(x) - 1), in float64 (expm1 is exp(x) - 1 without cancellation)."""
    v = x["InputTensor"].astype(np.float64)
    return {"OutputTensor": np.where(v >= 0, v, np.float32(desc.alpha) * np.expm1(np.minimum(v, 0)))}


def to_onnx(desc, g, x):
    """ONNX Elu(alpha=Alpha)."""
    return {"OutputTensor": g.node("Elu", [x["InputTensor"]], alpha=float(desc.alpha))}


def to_torch(desc, torch, x):
    """torch.nn.functional.elu(alpha=Alpha)."""
    return {"OutputTensor": torch.nn.functional.elu(x["InputTensor"], float(desc.alpha))}


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
