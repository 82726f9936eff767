"""DML_OPERATOR_ACTIVATION_SOFTMAX: softmax over the last dimension.

The effective-rank rule the descriptor file cannot express. The docs: InputTensor "must have an
effective rank no greater than 2. The effective rank of a tensor is the DimensionCount of the
tensor, excluding leftmost dimensions of size 1." OutputTensor has the same Sizes (checked by the
generic validator), so only InputTensor is checked.

Math: the docs give f(x[i]) = exp(x[i]) / sum_j exp(x[j]) over a 1-D tensor; a {.., BatchCount,
Width} tensor is BatchCount independent rows, and ACTIVATION_SOFTMAX1 "is equivalent to
DML_ACTIVATION_SOFTMAX_OPERATOR_DESC when AxisCount == 1, and Axes == {DimensionCount - 1}". So
this is softmax over the last axis: ONNX Softmax(axis=-1) from opset 13 and torch.softmax(dim=-1).
(ONNX Softmax before opset 13 flattened the dimensions from ``axis`` on; with effective rank <= 2
that is the same.) The max is subtracted first, which changes nothing mathematically and keeps
exp from overflowing.

How DirectML computes the softmax family (its vectors: SOFTMAX1 / LOG_SOFTMAX1 edge_inf_nan), shared by
ACTIVATION_SOFTMAX, SOFTMAX1, LOG_SOFTMAX and LOG_SOFTMAX1 in float32 (FLOAT16 too, rounded once at the end):
m = max(x) with DirectML's max (NaN skipped), s = sum(exp(x - m)); softmax = exp(x - m) / s; log-softmax =
(x - m) - ln(max(s, 1e-20)), where that max, too, turns a NaN sum into 1e-20. So a NaN in a group makes its
softmax all NaN, but its log-softmax NaN only where x is NaN: [NaN, 0, -1] -> [NaN, 46.05, 45.05], and
[inf, 0, 1] -> [NaN, -inf, -inf], where ONNX LogSoftmax and torch.log_softmax give NaN everywhere. Every lowering
writes these steps (ew.float_max semantics) instead of the native Softmax / LogSoftmax.
"""
from __future__ import annotations

import numpy as np

from ..errors import Problem
from ..sample import Sample, td
from . import _elementwise as ew
from ._shapes import effective_rank_problems

LOG_FLOOR = 1e-20  # log-softmax takes ln(max(sum, 1e-20)) (LOG_SOFTMAX1 edge_inf_nan: 0 - ln(1e-20) = 46.0517)


def check(desc, level) -> list[Problem]:
    """InputTensor's effective rank (leading 1s dropped) is at most 2."""
    return effective_rank_problems(desc)


def softmax(v: np.ndarray, axes: tuple[int, ...], log: bool = False) -> np.ndarray:
    """(Log-)softmax of ``v`` in float32 over the set ``axes`` taken together (no axes: each element alone), as
    DirectML computes it (see the module docstring)."""
    v = v.astype(np.float32)
    with np.errstate(invalid="ignore", over="ignore"):  # a group with +inf or all -inf gives NaN
        m = np.max(np.where(np.isnan(v), np.float32(-np.inf), v), axis=axes, keepdims=True) if axes else v
        shifted = v - m
        e = np.exp(shifted)
        total = np.sum(e, axis=axes, keepdims=True) if axes else e
        if log:
            return shifted - np.log(ew.float_max(total, np.float32(LOG_FLOOR)))
        return e / total


def softmax_onnx(g, v: str, axes, log: bool) -> str:
    """:func:`softmax` in ONNX ops (ONNX Softmax/LogSoftmax and ReduceMax treat NaN otherwise)."""
    axes = [int(a) for a in axes]
    dtype = g.dtype(v)
    c = lambda value: g.const(np.asarray(value, dtype))  # noqa: E731
    if axes:
        skip = g.node("Where", [g.node("IsNaN", [v], dtype=np.bool_), c(-np.inf), v], dtype=dtype)
        m = g.node("ReduceMax", [skip, g.ints(axes)], keepdims=1)
    else:
        m = v  # groups of one element
    shifted = g.node("Sub", [v, m])
    e = g.node("Exp", [shifted])
    total = g.node("ReduceSum", [e, g.ints(axes)], keepdims=1) if axes else e
    if log:
        return g.node("Sub", [shifted, g.node("Log", [ew.onnx_float_max(g, total, c(LOG_FLOOR))])])
    return g.node("Div", [e, total])


def softmax_torch(torch, v, axes, log: bool):
    """:func:`softmax` in torch ops (torch.softmax/log_softmax and amax treat NaN otherwise)."""
    axes = tuple(int(a) for a in axes)
    if axes:  # torch reduces over every dimension when dim=() is given, so no axes is written out explicitly
        m = torch.amax(torch.where(torch.isnan(v), torch.full_like(v, -np.inf), v), dim=axes, keepdim=True)
    else:
        m = v
    shifted = v - m
    e = torch.exp(shifted)
    total = e.sum(dim=axes, keepdim=True) if axes else e
    if log:
        return shifted - torch.log(ew.torch_float_max(torch, total, torch.full((), LOG_FLOOR, dtype=total.dtype,
                                                                               device=total.device)))
    return e / total


def reference(desc, x):
    """Softmax over the last axis, in float32, as DirectML computes it."""
    return {"OutputTensor": softmax(x["InputTensor"], (-1,))}


def to_onnx(desc, g, x):
    """DirectML's steps over the last axis (softmax_onnx)."""
    return {"OutputTensor": softmax_onnx(g, x["InputTensor"], (-1,), log=False)}


def to_torch(desc, torch, x):
    """DirectML's steps over the last axis (softmax_torch)."""
    return {"OutputTensor": softmax_torch(torch, x["InputTensor"], (-1,), log=False)}


def _samples():
    from ..descs import ActivationSoftmax

    t = td("FLOAT32", [1, 1, 2, 3])
    ln2 = np.log(2)
    return [
        # Row 1: exp = [1, 2, 1] / 4. Row 2: exp(x - 100) = [1, 1, e] / (2 + e) = [0.2119416, 0.2119416,
        # 0.5761169] (exp(100) would overflow float32: the max must be subtracted first).
        Sample("rows", ActivationSoftmax(input_tensor=t, output_tensor=t),
               {"InputTensor": np.array([[[[0, ln2, 0], [100, 100, 101]]]], np.float32)},
               {"OutputTensor": np.array([[[[0.25, 0.5, 0.25], [0.2119416, 0.2119416, 0.5761169]]]], np.float32)},
               why="float32 rounding of ln 2 and exp; 7-digit hand values", atol=1e-6, rtol=1e-6),
        # 1-D (DML_FEATURE_LEVEL_3_0): four equal values -> 1/4 each.
        Sample("one_dimension", ActivationSoftmax(input_tensor=td("FLOAT32", [4]), output_tensor=td("FLOAT32", [4])),
               {"InputTensor": np.array([-7, -7, -7, -7], np.float32)},
               {"OutputTensor": np.array([0.25, 0.25, 0.25, 0.25], np.float32)},
               why="exp(0) / 4: exact", atol=0, rtol=0, float16_atol=0, float16_rtol=0),
        # Zero strides: one row of 5 read for all 3 rows.
        Sample("broadcast_rows", ActivationSoftmax(input_tensor=td("FLOAT32", [3, 5], [0, 1]),
                                                   output_tensor=td("FLOAT32", [3, 5])),
               {"InputTensor": np.array([-2, -1, 0, 1, 2], np.float32)}),
        Sample("batch_5d", ActivationSoftmax(input_tensor=td("FLOAT32", [1, 1, 1, 4, 6]),
                                             output_tensor=td("FLOAT32", [1, 1, 1, 4, 6])),
               {"InputTensor": np.linspace(-3, 3, 24, dtype=np.float32).reshape(1, 1, 1, 4, 6)}),
    ]


SAMPLES = _samples()
