"""DML_OPERATOR_ACTIVATION_HARDMAX1: the Axes rule the descriptor file cannot express.

The docs: Axes "must be in the range [0, InputTensor.DimensionCount - 1]". dmlops also rejects a
repeated axis (the reduction over a set of axes names each once), as for ACTIVATION_SOFTMAX1.
DirectML agrees: it refuses Axes {1, 1} on a 1-dimensional tensor (vector
gap_factory_tier_5_1_dt_0_rank_min; out of range and repeated at once, so the vectors do not tell
which of the two it objects to). An empty Axes list is not rejected: the docs do not forbid it, and
DirectML accepts AxisCount 0 for ACTIVATION_SOFTMAX1 and ACTIVATION_LOG_SOFTMAX1, which came with
HARDMAX1 in DML_FEATURE_LEVEL_5_1 (for HARDMAX1 itself unverified).

Math (the docs): 1 at the position of the largest element of each group of elements that differ only in the Axes
coordinates, 0 elsewhere; with Axes {DimensionCount - 1} it is ACTIVATION_HARDMAX. Ties: the first maximum in
row-major order over the Axes taken in dimension order (Axes {1, 3} and {3, 1} are one set), as REDUCE's ARGMAX
counts them (DirectML's vectors float32_axes_1_3, whose first group starts with its maximum four times and gets its
1 at the first, float16_axes_1_3, float32_axes_2, and ACTIVATION_HARDMAX float32_1x1x4x5_ties_nan). NaN, as
DirectML's arg operators treat it (dmlops/ops/_selection.py): a scan from the group's element 0 that takes a later
element only when it is larger, so a group that starts with NaN puts its 1 on the NaN (ACTIVATION_HARDMAX
float32_1x1x4x5_ties_nan: [NaN, inf, -inf, ...] gives [1, 0, 0, ...]) and a NaN anywhere else is passed over
(ACTIVATION_HARDMAX sample_later_nan_5d: [0, NaN, 5] gives [0, 0, 1]), where NumPy and torch.argmax pick the first
NaN (ONNX Runtime's CPU ArgMax happens to agree; the lowering does not rely on it). An empty Axes list makes every
element its own group (all 1s; unverified).
"""
from __future__ import annotations

import numpy as np

from ..errors import Problem
from ..sample import Sample, td
from ..validation import tensor
from . import _selection as sel
from ._shapes import axes_problems


def check(desc, level) -> list[Problem]:
    """Each axis below InputTensor's DimensionCount; no axis repeated."""
    x = tensor(desc, "InputTensor")
    rank = x.dimension_count if x is not None and x.dimension_count else None
    return axes_problems(desc.OPERATOR_TYPE, desc.axes, rank)


# ----------------------------------------------------------------------------------------------- lowering
def _plan(rank: int, axes) -> tuple[list[int], list[int], bool]:
    """(perm moving the reduced axes last in dimension order, its inverse, whether perm is the identity)."""
    reduced = sorted(set(axes))
    perm = [d for d in range(rank) if d not in reduced] + reduced
    inverse = [perm.index(d) for d in range(rank)]
    return perm, inverse, perm == list(range(rank))


def hardmax(v: np.ndarray, axes) -> np.ndarray:
    """1 at DirectML's extreme of each group of ``axes`` (row-major over the axes in dimension order; the first
    maximum, element 0 when it is NaN, a later NaN passed over: sel.extreme_index), 0 elsewhere, in float32."""
    perm, inverse, _ = _plan(v.ndim, axes)
    t = np.transpose(v, perm)
    k = int(np.prod([v.shape[a] for a in set(axes)], dtype=np.int64))
    index = sel.extreme_index(t.reshape(-1, k), is_max=True, last=False)
    y = (np.arange(k)[None, :] == index[:, None]).astype(np.float32)
    return np.transpose(y.reshape(t.shape), inverse)


def hardmax_onnx(g, v: str, sizes, axes) -> str:
    """Transpose (reduced axes last), Reshape [N, K], sel.onnx_extreme_index, Equal with 0..K-1, Cast, Reshape,
    Transpose back (ONNX Hardmax has no NaN rule and is float-only on the CPU provider)."""
    perm, inverse, identity = _plan(len(sizes), axes)
    moved = [sizes[d] for d in perm]
    k = int(np.prod([sizes[a] for a in set(axes)], dtype=np.int64))
    t = v if identity else g.node("Transpose", [v], perm=perm)
    flat = g.node("Reshape", [t, g.ints([-1, k])])
    index = g.node("Unsqueeze", [sel.onnx_extreme_index(g, flat, is_max=True, last=False), g.ints([1])])
    hit = g.node("Equal", [g.const(np.arange(k, dtype=np.int64)[None, :]), index], dtype=np.bool_)
    y = g.node("Reshape", [g.cast(hit, g.dtype(v)), g.ints(moved)])
    return y if identity else g.node("Transpose", [y], perm=inverse)


def hardmax_torch(torch, v, axes):
    """The same steps with permute, reshape, sel.torch_extreme_index and a comparison with arange."""
    perm, inverse, identity = _plan(v.dim(), axes)
    t = v if identity else v.permute(perm)
    k = int(np.prod([v.shape[a] for a in set(axes)], dtype=np.int64))
    index = sel.torch_extreme_index(torch, t.reshape(-1, k), is_max=True, last=False)[:, None]
    y = (torch.arange(k, device=v.device)[None, :] == index).to(v.dtype).reshape(t.shape)
    return y if identity else y.permute(inverse)


def reference(desc, x):
    """hardmax over Axes taken together."""
    return {"OutputTensor": hardmax(x["InputTensor"].astype(np.float32), desc.axes)}


def to_onnx(desc, g, x):
    """hardmax_onnx over Axes."""
    return {"OutputTensor": hardmax_onnx(g, x["InputTensor"], desc.input_tensor.sizes, desc.axes)}


def to_torch(desc, torch, x):
    """hardmax_torch over Axes."""
    return {"OutputTensor": hardmax_torch(torch, x["InputTensor"], desc.axes)}


def _samples():
    from ..descs import ActivationHardmax1 as cls

    def d(sizes, axes, strides=None):
        return cls(input_tensor=td("FLOAT32", sizes, strides), output_tensor=td("FLOAT32", sizes), axes=axes)

    # Axes {0, 2} of {2, 2, 3}: group j = 0 is x[:, 0, :] = [1, 5, 2, 0, 5, 3] (row-major over axes 0 and 2): the
    # first 5, at (0, 0, 1); group j = 1 is x[:, 1, :] = [-1, -1, -2, -3, -4, -1]: the first -1, at (0, 1, 0).
    x = np.array([[[1, 5, 2], [-1, -1, -2]], [[0, 5, 3], [-3, -4, -1]]], np.float32)
    y = np.zeros((2, 2, 3), np.float32)
    y[0, 0, 1] = y[0, 1, 0] = 1
    # Axis {0} of {3, 2}: columns [1, 7, 7] -> the first 7 (row 1); [NaN, 9, NaN] -> the NaN at element 0 wins.
    x2 = np.array([[1, np.nan], [7, 9], [7, np.nan]], np.float32)
    y2 = np.array([[0, 1], [1, 0], [0, 0]], np.float32)
    # Axes {0, 1} of {2, 2, 2}: group j = 0 is [-1, NaN, NaN, -2]: the NaNs after element 0 are passed over, the -1
    # wins; group j = 1 is [NaN, 3, 8, 8]: element 0 is NaN and wins.
    x3 = np.array([[[-1, np.nan], [np.nan, 3]], [[np.nan, 8], [-2, 8]]], np.float32)
    y3 = np.array([[[1, 1], [0, 0]], [[0, 0], [0, 0]]], np.float32)
    return [
        Sample("axes_0_2_ties", d([2, 2, 3], (0, 2)), {"InputTensor": x}, {"OutputTensor": y}, atol=0, rtol=0,
               why="exact: a 0/1 selection", float16_atol=0, float16_rtol=0),
        Sample("axes_2_0_same_set", d([2, 2, 3], (2, 0)), {"InputTensor": x}, {"OutputTensor": y}, atol=0, rtol=0,
               why="exact: a 0/1 selection", float16_atol=0, float16_rtol=0),
        Sample("axis_0_nan", d([3, 2], (0,)), {"InputTensor": x2}, {"OutputTensor": y2}, atol=0, rtol=0,
               why="exact: a 0/1 selection", float16_atol=0, float16_rtol=0),
        Sample("axes_0_1_later_nan", d([2, 2, 2], (0, 1)), {"InputTensor": x3}, {"OutputTensor": y3}, atol=0,
               rtol=0, why="exact: a 0/1 selection", float16_atol=0, float16_rtol=0),
        # No axes: every element is its own group (1 everywhere).
        Sample("no_axes", d([2, 3], ()), {"InputTensor": x2.reshape(2, 3)},
               {"OutputTensor": np.ones((2, 3), np.float32)}, atol=0, rtol=0, why="exact: a 0/1 selection",
               float16_atol=0, float16_rtol=0),
        Sample("chw_broadcast_batch", d([2, 2, 2, 3], (1, 2, 3), [0, 6, 3, 1]),
               {"InputTensor": np.array([3, 1, 4, 1, 5, 9, 2, 6, 5, 3, 5, 9], np.float32)}, atol=0, rtol=0,
               why="exact: a 0/1 selection (the first 9 wins)", float16_atol=0, float16_rtol=0),
    ]


SAMPLES = _samples()
