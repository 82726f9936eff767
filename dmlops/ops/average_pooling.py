"""DML_OPERATOR_AVERAGE_POOLING: the mean of every sliding window of InputTensor.

Per output position, the window's elements (StartPadding / EndPadding may be asymmetric; padding reads 0) are
summed in float32 one after the other in row-major window order and divided by the window's element count
(IncludePadding TRUE) or by its non-padding elements (FALSE). dmlops/ops/_avg_lp_pooling.py gives the vectors
behind that order (every AVERAGE_POOLING vector is exact: float32_win2x2_s2x2_pad[0, 0][0, 0],
float32_win3x2_s1x2_pad[1, 0][1, 1] with IncludePadding, float32_3d_rank5 and their FLOAT16 twins) and the
one decision no vector covers: a window made only of padding with IncludePadding FALSE gives NaN (0 / 0).
ONNX AveragePool and torch avg_pool differ from DirectML here: their padding is symmetric (torch) or must be
smaller than the window (ONNX Runtime), and their sums run in their own order; dmlops lowers all three backends
through dmlops/ops/_pooling.py instead (a strided Slice per window element and Add in window order, or for
windows of more than 256 elements a Gather through the window table; then Div).

Shape rules the descriptor file cannot express:

InputTensor {BatchCount, ChannelCount, [Depth], Height, Width}. DimensionCount (the length of Strides,
WindowSize, StartPadding and EndPadding) is InputTensor's DimensionCount - 2 (DirectML refuses a 5-D input
with DimensionCount 2). Strides and WindowSize are at least 1. OutputTensor is {BatchCount, ChannelCount,
Output...} with Output = (InputSize + StartPadding + EndPadding - WindowSize) / Strides + 1 (floor), as the
page prints it; a window larger than the padded input leaves no output. dmlops/ops/_windows.py holds the
shared rules.
"""
from __future__ import annotations

import numpy as np

from ..errors import Problem
from ..sample import Sample
from . import _avg_lp_pooling as A
from ._windows import pooling_problems


def check(desc, level) -> list[Problem]:
    """DimensionCount, Strides and WindowSize >= 1, the window inside the padded input, OutputTensor sizes."""
    return pooling_problems(desc)


# ----------------------------------------------------------------------------------------------- lowerings
def reference(desc, x):
    """Window sums in order, divided by the window's count."""
    return A.average_reference(desc, x)


def to_onnx(desc, g, x):
    """Pad, Slice and Add per window element in order (Gather through the window table past 256 elements), Div by
    the counts."""
    return A.average_onnx(desc, g, x)


def to_torch(desc, torch, x):
    """Strided views of the padded input added in order (index_select through the window table past 256
    elements), divided by the counts."""
    return A.average_torch(desc, torch, x)


# ----------------------------------------------------------------------------------------------- samples
def _desc(in_sizes, out_sizes, data_type="FLOAT32", **kw):
    from ..descs import AveragePooling

    kw.setdefault("include_padding", False)
    return A.sample_desc(AveragePooling, in_sizes, out_sizes, data_type, **kw)


EXACT = dict(atol=0, rtol=0, why="sums of small integers and halves are exact in any order")


def _samples():
    f32 = np.float32
    nine = np.arange(1, 10, dtype=f32).reshape(1, 1, 3, 3)
    # [[1 2 3], [4 5 6]], 2 x 2 windows at stride 1, one padding row above and one padding column to the right:
    # the windows hold {1 2}, {2 3}, {3}, {1 2 4 5}, {2 3 5 6}, {3 6}: sums 3, 5, 3, 12, 16, 9.
    six = np.arange(1, 7, dtype=f32).reshape(1, 1, 2, 3)
    pad = dict(window=(2, 2), start=(1, 0), end=(0, 1))
    return [
        # The AVERAGE_POOLING_GRAD page's forward example: 2 x 2 means of 1..9 are 3, 4, 6, 7.
        Sample("docs_2x2", _desc([1, 1, 3, 3], [1, 1, 2, 2], window=(2, 2)), {"InputTensor": nine},
               {"OutputTensor": np.array([[[[3, 4], [6, 7]]]], f32)}, **EXACT),
        # IncludePadding FALSE divides by the non-padding elements: 3/2, 5/2, 3/1, 12/4, 16/4, 9/2.
        Sample("asymmetric_padding", _desc([1, 1, 2, 3], [1, 1, 2, 3], **pad), {"InputTensor": six},
               {"OutputTensor": np.array([[[[1.5, 2.5, 3], [3, 4, 4.5]]]], f32)}, **EXACT),
        # IncludePadding TRUE divides by 4 everywhere: 3/4, 5/4, 3/4, 12/4, 16/4, 9/4.
        Sample("asymmetric_padding_included", _desc([1, 1, 2, 3], [1, 1, 2, 3], include_padding=True, **pad),
               {"InputTensor": six}, {"OutputTensor": np.array([[[[0.75, 1.25, 0.75], [3, 4, 2.25]]]], f32)},
               **EXACT),
        # 1 x 1 windows over a 1 x 1 input padded by 1: only the centre window holds the 5; the others are made
        # only of padding: 0 / 0 = NaN without the padding (a decision: no vector has one), 0 / 1 with it.
        Sample("padding_only_windows", _desc([1, 1, 1, 1], [1, 1, 3, 3], window=(1, 1), start=(1, 1), end=(1, 1)),
               {"InputTensor": np.full((1, 1, 1, 1), 5, f32)},
               {"OutputTensor": np.array([[[[np.nan] * 3, [np.nan, 5, np.nan], [np.nan] * 3]]], f32)},
               **EXACT),
        Sample("padding_only_windows_included",
               _desc([1, 1, 1, 1], [1, 1, 3, 3], window=(1, 1), start=(1, 1), end=(1, 1), include_padding=True),
               {"InputTensor": np.full((1, 1, 1, 1), 5, f32)},
               {"OutputTensor": np.pad(np.full((1, 1, 1, 1), 5, f32), ((0, 0), (0, 0), (1, 1), (1, 1)))},
               **EXACT),
        # 5-D: one 2 x 2 x 2 window over 1..8 (mean 4.5), and over 8..1 at stride 2 in a second channel.
        Sample("3d", _desc([1, 2, 2, 2, 2], [1, 2, 1, 1, 1], window=(2, 2, 2), strides=(2, 2, 2)),
               {"InputTensor": np.concatenate([np.arange(1, 9, dtype=f32), np.arange(8, 0, -1, dtype=f32)]
                                              ).reshape(1, 2, 2, 2, 2)},
               {"OutputTensor": np.full((1, 2, 1, 1, 1), 4.5, f32)}, **EXACT),
        # An 81-element window (past SEQUENTIAL_MAX: ReduceSum / torch.sum on the backends): 0..80 averages to 40.
        Sample("global_9x9", _desc([1, 1, 9, 9], [1, 1, 1, 1], window=(9, 9)),
               {"InputTensor": np.arange(81, dtype=f32).reshape(1, 1, 9, 9)},
               {"OutputTensor": np.full((1, 1, 1, 1), 40, f32)}, **EXACT),
        # Random values, overlapping windows (stride 1 x 2), padding on both sides; reference only.
        Sample("random_overlap", _desc([2, 3, 5, 6], [2, 3, 5, 3], window=(3, 2), strides=(1, 2), start=(1, 0),
                                       end=(1, 1)),
               {"InputTensor": np.random.default_rng(12).uniform(-3, 3, (2, 3, 5, 6)).astype(f32)},
               atol=0, rtol=0, why="every backend sums in the same order and divides once"),
    ]


SAMPLES = _samples()
