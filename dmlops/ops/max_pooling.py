"""DML_OPERATOR_MAX_POOLING: the maximum of each sliding window, padding and NaN never winning.

Semantics (DirectML's vectors; dmlops/ops/_max_pooling.py has the rule and the cases that show it): a running
maximum starting at the data type's lowest finite value, replaced by a strictly greater element. NaN is passed
over (float32_win2x2_s2x2_pad[0, 0][0, 0]: a window of NaN, -inf, -1.38, 0.12 gives 0.12), where ONNX MaxPool
and torch max_pool2d propagate it; a window made only of padding gives -3.4028235e38, not -inf
(float32_fixed_twin_of_gap_rank4), where ONNX and torch cannot express such a window at all. StartPadding and
EndPadding may differ (ONNX pads can say that, torch's symmetric padding cannot). The lowerings read the windows
through dmlops.ops._pooling on every backend (dmlops.ops._max_pooling: a running maximum over one strided slice
per window element, or the window table for windows of more than 256 elements).

Shape rules the descriptor file cannot express:

InputTensor {BatchCount, ChannelCount, [Depth], Height, Width}. DimensionCount (the length of Strides,
WindowSize, StartPadding and EndPadding) is InputTensor's DimensionCount - 2 (DirectML refuses a 5-D input
with DimensionCount 2). Strides and WindowSize are at least 1. OutputTensor is {BatchCount, ChannelCount,
Output...} with Output = (InputSize + StartPadding + EndPadding - WindowSize) / Strides + 1 (floor).
Windows made only of padding are allowed: DirectML ran a 1 x 1 input with padding 1 and window 1 into a
3 x 3 output. Shared rules: dmlops/ops/_windows.py.
"""
from __future__ import annotations

import numpy as np

from ..errors import Problem
from ..sample import Sample, td
from . import _elementwise as ew
from . import _max_pooling as mp
from ._windows import pooling_problems


def check(desc, level) -> list[Problem]:
    """DimensionCount, Strides and WindowSize >= 1, the window inside the padded input, OutputTensor sizes."""
    return pooling_problems(desc)


def reference(desc, x):
    """The window maxima (dmlops.ops._max_pooling)."""
    return {"OutputTensor": mp.reference_pool(desc, x["InputTensor"], indices=False)[0]}


def to_onnx(desc, g, x):
    """Per window element a Slice, Greater and Max (NaN and padding as -inf), the winner read back, the lowest
    value where nothing wins (past 256 elements: Gather through the window table and ReduceMax)."""
    return {"OutputTensor": mp.onnx_pool(desc, g, x["InputTensor"], desc.input_tensor.sizes, indices=False)[0]}


def to_torch(desc, torch, x):
    """Per window element a strided view, > and where (NaN and padding as -inf), the lowest value as the floor
    (past 256 elements: index_select through the window table and amax)."""
    return {"OutputTensor": mp.torch_pool(desc, torch, x["InputTensor"], indices=False)[0]}


# ----------------------------------------------------------------------------------------------- samples
LOWEST = float(np.finfo(np.float32).min)
EXACT = dict(atol=0, rtol=0, why="a maximum: exact", float16_atol=0, float16_rtol=0)


def _desc(data_type, in_sizes, out_sizes, window, strides=None, start=None, end=None, in_strides=None):
    from ..descs import MaxPooling

    n = len(window)
    return MaxPooling(input_tensor=td(data_type, in_sizes, in_strides), output_tensor=td(data_type, out_sizes),
                      strides=strides or [1] * n, window_size=window, start_padding=start or [0] * n,
                      end_padding=end or [0] * n)


def _samples():
    f32 = np.float32
    out = [
        # 2 x 2 windows, strides {1, 2}: {NaN, -inf, 1, 2} -> 2 (NaN passed over); {3, 3, -1, 0} -> 3;
        # {1, 2, 5, 2} -> 5; {-1, 0, -2, -0.5} -> 0.
        Sample("nan_inf_ties", _desc("FLOAT32", [1, 1, 3, 4], [1, 1, 2, 2], [2, 2], [1, 2]),
               {"InputTensor": np.array([[[[np.nan, -np.inf, 3, 3], [1, 2, -1, 0], [5, 2, -2, -0.5]]]], f32)},
               {"OutputTensor": np.array([[[[2, 3], [5, 0]]]], f32)}, **EXACT),
        # Padding {1, 1} before and {3, 3} after a 2 x 2 input, 2 x 2 windows, strides 2: the windows at 0 see one
        # element each (-1, -2, -3, -4); those at 2 (rows/columns 3..4) only padding: the lowest float32.
        Sample("padding_only_windows", _desc("FLOAT32", [1, 1, 2, 2], [1, 1, 3, 3], [2, 2], [2, 2], [1, 1], [3, 3]),
               {"InputTensor": np.array([[[[-1, -2], [-3, -4]]]], f32)},
               {"OutputTensor": np.array([[[[-1, -2, LOWEST], [-3, -4, LOWEST], [LOWEST, LOWEST, LOWEST]]]], f32)},
               **EXACT),
        # 3 spatial dimensions: x = -4..3 in a 2 x 2 x 2 block, window 2 x 2 x 2, StartPadding 1 on the width:
        # the first window sees width 0 only (-4, -2, 0, 2 -> 2), the second everything (3).
        Sample("volume", _desc("FLOAT32", [1, 1, 2, 2, 2], [1, 1, 1, 1, 2], [2, 2, 2], start=[0, 0, 1]),
               {"InputTensor": (np.arange(8, dtype=f32) - 4).reshape(1, 1, 2, 2, 2)},
               {"OutputTensor": np.array([2, 3], f32).reshape(1, 1, 1, 1, 2)}, **EXACT),
        # An NHWC buffer (Strides {8, 1, 4, 2}) read logically: channel 0 {{1, 5}, {2, -1}} -> 5, channel 1
        # {{-3, -4}, {-2, -6}} -> -2, per 2 x 2 window.
        Sample("nhwc_strides", _desc("FLOAT32", [1, 2, 2, 2], [1, 2, 1, 1], [2, 2], in_strides=[8, 1, 4, 2]),
               {"InputTensor": np.array([[[[1, 5], [2, -1]], [[-3, -4], [-2, -6]]]], f32)},
               {"OutputTensor": np.array([5, -2], f32).reshape(1, 2, 1, 1)}, **EXACT),
    ]

    def make(t):
        return _desc(t, [1, 1, 1, 4], [1, 1, 1, 5], [1, 2], start=[0, 1], end=[0, 1])

    # windows {pad, a}, {a, b}, {b, c}, {c, d}, {d, pad}; the padding is the type's lowest value, never above a.
    out += ew.integer_samples(make, ew.SIGNED, {"InputTensor": [[[[-3, 5, 5, -7]]]]},
                              {"OutputTensor": [[[[-3, 5, 5, 5, -7]]]]}, why="a maximum: exact")
    out += ew.integer_samples(make, ew.UNSIGNED, {"InputTensor": [[[[3, 0, 9, 9]]]]},
                              {"OutputTensor": [[[[3, 3, 9, 9, 9]]]]}, why="a maximum: exact")
    out.append(Sample("uint64_above_2_63", _desc("UINT64", [1, 1, 1, 3], [1, 1, 1, 2], [1, 2]),
                      {"InputTensor": np.array([2**63 + 1, 5, 2**64 - 1], np.uint64).reshape(1, 1, 1, 3)},
                      {"OutputTensor": np.array([2**63 + 1, 2**64 - 1], np.uint64).reshape(1, 1, 1, 2)}, **EXACT))
    return out


SAMPLES = _samples()
