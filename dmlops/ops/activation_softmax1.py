"""DML_OPERATOR_ACTIVATION_SOFTMAX1: softmax over the set of Axes taken together.

The Axes rule the descriptor file cannot express. The docs: Axes "must be in the range
[0, InputTensor.DimensionCount - 1]". dmlops also rejects a repeated axis (the reduction over a set
of axes names each once). An empty Axes list is not rejected: the docs do not forbid it.

Math: "The axes along which to reduce the sum": every group of elements that differ only in the
Axes coordinates is normalized as one 1-D softmax (the LOG_SOFTMAX1 page's Example 3, Axes {0, 2},
reduces over both axes at once). With Axes {DimensionCount - 1} it is ACTIVATION_SOFTMAX. The docs
do not define an empty Axes list; dmlops reads it as groups of one element (output 1; NaN stays
NaN; DirectML's vector edge_axis_count_0 agrees). Every lowering writes DirectML's steps
(exp(x - max) / sum(exp(x - max)) with its NaN rules: ACTIVATION_SOFTMAX's docstring), for one axis too.
"""
from __future__ import annotations

import numpy as np

from ..errors import Problem
from ..sample import Sample, td
from ..validation import tensor
from ._shapes import axes_problems
from .activation_softmax import softmax, softmax_onnx, softmax_torch


def check(desc, level) -> list[Problem]:
    """Each axis below InputTensor's DimensionCount; no axis repeated."""
    x = tensor(desc, "InputTensor")
    rank = x.dimension_count if x is not None and x.dimension_count else None
    return axes_problems(desc.OPERATOR_TYPE, desc.axes, rank)


def reference(desc, x):
    """Softmax over Axes together, in float32, as DirectML computes it."""
    return {"OutputTensor": softmax(x["InputTensor"], tuple(desc.axes))}


def to_onnx(desc, g, x):
    """DirectML's steps over Axes (softmax_onnx)."""
    return {"OutputTensor": softmax_onnx(g, x["InputTensor"], desc.axes, log=False)}


def to_torch(desc, torch, x):
    """DirectML's steps over Axes (softmax_torch)."""
    return {"OutputTensor": softmax_torch(torch, x["InputTensor"], desc.axes, log=False)}


# Shared with ACTIVATION_LOG_SOFTMAX1: inputs whose softmax groups are hand-computable.
LN2, LN3 = np.log(2), np.log(3)
# Axes {0, 2} of a {2, 2, 2} tensor: group j = 0 is [0, ln 2, ln 3, ln 2] (exp: 1, 2, 3, 2; sum 8),
# group j = 1 is four 5s (1/4 each).
X_AXES_0_2 = np.array([[[0, LN2], [5, 5]], [[LN3, LN2], [5, 5]]], np.float32)
# Axes {0} of a {2, 3} tensor: columns (0, ln 3) -> (1/4, 3/4), (ln 3, 0) -> (3/4, 1/4), (7, 7) -> (1/2, 1/2).
X_AXIS_0 = np.array([[0, LN3, 7], [LN3, 0, 7]], np.float32)


def samples(cls, log: bool) -> list[Sample]:
    """The samples of ACTIVATION_SOFTMAX1 (log=False) or ACTIVATION_LOG_SOFTMAX1 (log=True)."""
    f = np.log if log else (lambda p: p)
    t222, t23 = td("FLOAT32", [2, 2, 2]), td("FLOAT32", [2, 3])
    why = "float32 rounding of ln 2, ln 3 and exp"
    return [
        Sample("axes_0_2", cls(input_tensor=t222, output_tensor=t222, axes=(0, 2)), {"InputTensor": X_AXES_0_2},
               {"OutputTensor": f(np.array([[[1 / 8, 2 / 8], [1 / 4, 1 / 4]], [[3 / 8, 2 / 8], [1 / 4, 1 / 4]]]))
                .astype(np.float32)}, why=why, atol=1e-6, rtol=1e-5),
        # The same set of axes listed in another order.
        Sample("axes_2_0", cls(input_tensor=t222, output_tensor=t222, axes=(2, 0)), {"InputTensor": X_AXES_0_2},
               {"OutputTensor": f(np.array([[[1 / 8, 2 / 8], [1 / 4, 1 / 4]], [[3 / 8, 2 / 8], [1 / 4, 1 / 4]]]))
                .astype(np.float32)}, why=why, atol=1e-6, rtol=1e-5),
        Sample("axis_0", cls(input_tensor=t23, output_tensor=t23, axes=(0,)), {"InputTensor": X_AXIS_0},
               {"OutputTensor": f(np.array([[1 / 4, 3 / 4, 1 / 2], [3 / 4, 1 / 4, 1 / 2]])).astype(np.float32)},
               why=why, atol=1e-6, rtol=1e-5),
        # No axes: each element is its own group, softmax 1 (log-softmax 0).
        Sample("no_axes", cls(input_tensor=t23, output_tensor=t23, axes=()), {"InputTensor": X_AXIS_0},
               {"OutputTensor": f(np.ones((2, 3))).astype(np.float32)}, why="exp(0) / exp(0): exact", atol=0, rtol=0,
               float16_atol=0, float16_rtol=0),
        # Every axis: the whole tensor is one group.
        Sample("all_axes", cls(input_tensor=t23, output_tensor=t23, axes=(0, 1)),
               {"InputTensor": np.array([[-1, 0, 1], [2, 3, 4]], np.float32)}),
        # NCHW normalized over C, H and W, with a zero-stride (broadcast) batch dimension.
        Sample("chw_broadcast_batch", cls(input_tensor=td("FLOAT32", [2, 2, 2, 3], [0, 6, 3, 1]),
                                          output_tensor=td("FLOAT32", [2, 2, 2, 3]), axes=(1, 2, 3)),
               {"InputTensor": np.linspace(-4, 4, 12, dtype=np.float32)}),
        Sample("last_axis_5d", cls(input_tensor=td("FLOAT32", [2, 1, 3, 1, 4]),
                                   output_tensor=td("FLOAT32", [2, 1, 3, 1, 4]), axes=(4,)),
               {"InputTensor": np.linspace(-6, 6, 24, dtype=np.float32).reshape(2, 1, 3, 1, 4)}),
    ]


def _samples():
    from ..descs import ActivationSoftmax1

    return samples(ActivationSoftmax1, log=False)


SAMPLES = _samples()
