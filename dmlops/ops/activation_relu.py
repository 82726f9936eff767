"""DML_OPERATOR_ACTIVATION_RELU: f(x) = max(0, x); NaN stays NaN (ONNX Relu and torch.relu agree)."""
from __future__ import annotations

import numpy as np

from ..sample import Sample, td


def reference(desc, x):
    """max(0, x), with NaN propagated."""
    v = x["InputTensor"]
    return {"OutputTensor": np.where(v > 0, v, np.where(np.isnan(v), v, np.zeros_like(v)))}


def to_onnx(desc, g, x):
    """ONNX Relu."""
    return {"OutputTensor": g.node("Relu", [x["InputTensor"]])}


def to_torch(desc, torch, x):
    """torch.relu."""
    return {"OutputTensor": torch.relu(x["InputTensor"])}


def _samples():
    from ..descs import ActivationRelu

    t = td("FLOAT32", [2, 3])
    return [Sample("basic", ActivationRelu(input_tensor=t, output_tensor=t),
                   {"InputTensor": np.array([[-1.5, 0, 2], [3.25, -0.0, np.nan]], np.float32)},
                   {"OutputTensor": np.array([[0, 0, 2], [3.25, 0, np.nan]], np.float32)},
                   why="exact", atol=0, rtol=0, float16_atol=0, float16_rtol=0)]


SAMPLES = _samples()
