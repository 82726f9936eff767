"""DML_OPERATOR_ACTIVATION_IDENTITY: f(x) = x, a copy (ONNX Identity)."""
from __future__ import annotations

import numpy as np

from ..sample import Sample, td


def reference(desc, x):
    """A copy of InputTensor."""
    return {"OutputTensor": x["InputTensor"].copy()}


def to_onnx(desc, g, x):
    """ONNX Identity."""
    return {"OutputTensor": g.node("Identity", [x["InputTensor"]])}


def to_torch(desc, torch, x):
    """A clone, so the output never aliases the caller's input tensor."""
    return {"OutputTensor": x["InputTensor"].clone()}


def _samples():
    from ..descs import ActivationIdentity

    t = td("FLOAT32", [2, 2])
    return [
        Sample("basic", ActivationIdentity(input_tensor=t, output_tensor=t),
               {"InputTensor": np.array([[1, -2.5], [np.nan, np.inf]], np.float32)},
               {"OutputTensor": np.array([[1, -2.5], [np.nan, np.inf]], np.float32)},
               why="a copy: exact", atol=0, rtol=0, float16_atol=0, float16_rtol=0),
        # A transposed read (strides [1, 2]) comes out packed.
        Sample("transposed_read", ActivationIdentity(input_tensor=td("FLOAT32", [2, 2], [1, 2]), output_tensor=t),
               {"InputTensor": np.array([1, 2, 3, 4], np.float32)},
               {"OutputTensor": np.array([[1, 3], [2, 4]], np.float32)},
               why="a copy: exact", atol=0, rtol=0, float16_atol=0, float16_rtol=0),
    ]


SAMPLES = _samples()
