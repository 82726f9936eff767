"""DML_OPERATOR_ACTIVATION_RELU_GRAD: OutputGradient = InputTensor > 0 ? InputGradient : 0.

DirectML defines it as a select, not a multiply: X = NaN (and X = -0.0) gives 0 whatever dY is, and
X <= 0 with dY = NaN or inf gives 0. PyTorch's threshold_backward passes dY through at X = NaN and
TensorFlow's ReluGrad (dY * (X > 0)) gives NaN for dY = NaN or inf at X <= 0; neither is used here.
The only shape rules are the same-constraints, which the descriptor file states.
"""
from __future__ import annotations

import numpy as np

from ..sample import Sample, td
from . import _elementwise as ew


def reference(desc, x):
    """dX = X > 0 ? dY : 0 (NaN > 0 is false)."""
    dy = x["InputGradientTensor"]
    return {"OutputGradientTensor": np.where(x["InputTensor"] > 0, dy, np.zeros_like(dy))}


def to_onnx(desc, g, x):
    """Where(Greater(X, 0), dY, 0)."""
    v, dy = x["InputTensor"], x["InputGradientTensor"]
    mask = g.node("Greater", [v, g.scalar(0, v)], dtype=np.bool_)
    return {"OutputGradientTensor": ew.onnx_where(g, mask, dy, g.scalar(0, dy))}  # keeps a dY of -0.0


def to_torch(desc, torch, x):
    """torch.where(X > 0, dY, 0)."""
    dy = x["InputGradientTensor"]
    return {"OutputGradientTensor": torch.where(x["InputTensor"] > 0, dy, torch.zeros_like(dy))}


def _desc(sizes, strides_x=None):
    return dict(input_tensor=td("FLOAT32", sizes, strides_x), input_gradient_tensor=td("FLOAT32", sizes),
                output_gradient_tensor=td("FLOAT32", sizes))


def _samples():
    from ..descs import ActivationReluGrad

    nan, inf = np.nan, np.inf
    return [
        Sample("select_semantics", ActivationReluGrad(**_desc([8])),
               {"InputTensor": np.array([-2, -0.0, 0, 1e-45, 3, nan, inf, -1], np.float32),
                "InputGradientTensor": np.array([10, 20, 30, 40, 50, 60, 70, nan], np.float32)},
               {"OutputGradientTensor": np.array([0, 0, 0, 40, 50, 0, 70, 0], np.float32)},
               why="a select: exact", atol=0, rtol=0, float16=False),
        Sample("matrix", ActivationReluGrad(**_desc([2, 3])),
               {"InputTensor": np.array([[1, -1, 2], [-3, 0.5, 0]], np.float32),
                "InputGradientTensor": np.array([[0.1, 0.2, 0.3], [0.4, 0.5, 0.6]], np.float32)},
               {"OutputGradientTensor": np.array([[0.1, 0, 0.3], [0, 0.5, 0]], np.float32)},
               why="a select: exact", atol=0, rtol=0, float16_atol=0, float16_rtol=0),
        # X is read through zero strides: one row of 3 values broadcast over 2 rows.
        Sample("broadcast_x", ActivationReluGrad(**_desc([2, 3], strides_x=[0, 1])),
               {"InputTensor": np.array([1, -1, 2], np.float32),
                "InputGradientTensor": np.array([[1, 2, 3], [4, 5, 6]], np.float32)},
               {"OutputGradientTensor": np.array([[1, 0, 3], [4, 0, 6]], np.float32)},
               why="a select: exact", atol=0, rtol=0, float16_atol=0, float16_rtol=0),
    ]


SAMPLES = _samples()
