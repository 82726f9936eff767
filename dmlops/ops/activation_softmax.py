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
"""
from __future__ import annotations

import numpy as np

from ..errors import Problem
from ..sample import Sample, td
from ._shapes import effective_rank_problems


def check(desc, level) -> list[Problem]:
    """InputTensor's effective rank (leading 1s dropped) is at most 2."""
    return effective_rank_problems(desc)


def softmax(v: np.ndarray, axes: tuple[int, ...], log: bool = False) -> np.ndarray:
    """(Log-)softmax of ``v`` in float64 over the set ``axes`` taken together (no axes: each element alone)."""
    v = v.astype(np.float64)
    with np.errstate(invalid="ignore"):  # a group of +inf or all -inf gives NaN, as the formula does
        shifted = v - np.max(v, axis=axes, keepdims=True)
        total = np.sum(np.exp(shifted), axis=axes, keepdims=True)
        return shifted - np.log(total) if log else np.exp(shifted) / total


def reference(desc, x):
    """Softmax over the last axis, in float64."""
    return {"OutputTensor": softmax(x["InputTensor"], (-1,))}


def to_onnx(desc, g, x):
    """ONNX Softmax(axis=-1)."""
    return {"OutputTensor": g.node("Softmax", [x["InputTensor"]], axis=-1)}


def to_torch(desc, torch, x):
    """torch.softmax(dim=-1)."""
    return {"OutputTensor": torch.softmax(x["InputTensor"], dim=-1)}


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
