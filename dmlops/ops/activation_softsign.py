"""DML_OPERATOR_ACTIVATION_SOFTSIGN: f(x) = x / (1 + abs(x)) (ONNX Softsign, torch softsign)."""
from __future__ import annotations

import numpy as np

from ..sample import Sample, td


def reference(desc, x):
    """x / (1 + |x|) in float64."""
    v = x["InputTensor"].astype(np.float64)
    with np.errstate(invalid="ignore"):  # ±inf / inf = NaN, as DirectML gives (vector edge_specials)
        return {"OutputTensor": v / (1 + np.abs(v))}


def to_onnx(desc, g, x):
    """ONNX Softsign."""
    return {"OutputTensor": g.node("Softsign", [x["InputTensor"]])}


def to_torch(desc, torch, x):
    """torch.nn.functional.softsign."""
    return {"OutputTensor": torch.nn.functional.softsign(x["InputTensor"])}


def _samples():
    from ..descs import ActivationSoftsign

    t = td("FLOAT32", [6])
    # -3 / 4, -1 / 2, 0, 1 / 2, 4 / 5, 1e4 / (1 + 1e4)
    return [Sample("basic", ActivationSoftsign(input_tensor=t, output_tensor=t),
                   {"InputTensor": np.array([-3, -1, 0, 1, 4, 1e4], np.float32)},
                   {"OutputTensor": np.array([-0.75, -0.5, 0, 0.5, 0.8, 1e4 / (1 + 1e4)], np.float32)},
                   why="one float32 division", atol=1e-7, rtol=1e-6)]


SAMPLES = _samples()
