"""DML_OPERATOR_AVERAGE_POOLING1: AVERAGE_POOLING with Dilations.

The window's elements are Dilations apart; otherwise as AVERAGE_POOLING (dmlops/ops/average_pooling.py and
dmlops/ops/_avg_lp_pooling.py: float32 sums one element after the other in row-major window order, divided by
the window's count or its non-padding elements; a window made only of padding with IncludePadding FALSE gives
NaN, a decision no vector covers). Every AVERAGE_POOLING1 vector is exact, float32_win2x2_s1x1_pad[0, 0][0, 0]_dil2
included. torch's avg_pool has no dilations and ONNX AveragePool gained them in opset 19; dmlops reads the
dilated windows through dmlops/ops/_pooling.py on every backend (strided slices, or its table for windows of
more than 256 elements).

Shape rules the descriptor file cannot express:

As AVERAGE_POOLING with Dilations: DimensionCount (the length of Strides, WindowSize, StartPadding,
EndPadding and Dilations) is InputTensor's DimensionCount - 2; Strides, WindowSize and Dilations are at
least 1; OutputTensor is {BatchCount, ChannelCount, Output...} with Output = (InputSize + StartPadding +
EndPadding - DilatedWindow) / Strides + 1 (floor), DilatedWindow = 1 + (WindowSize - 1) * Dilations.
The page prints the formula without Dilations; DirectML's answers use the dilated window (window 2,
dilation 2, 5 x 6 input: 3 x 4 output), and DirectML wins. Shared rules: dmlops/ops/_windows.py.
"""
from __future__ import annotations

import numpy as np

from ..errors import Problem
from ..sample import Sample
from . import _avg_lp_pooling as A
from ._windows import pooling_problems


def check(desc, level) -> list[Problem]:
    """DimensionCount, Strides/WindowSize/Dilations >= 1, the dilated window inside the padded input,
    OutputTensor sizes."""
    return pooling_problems(desc)


# ----------------------------------------------------------------------------------------------- lowerings
def reference(desc, x):
    """Dilated window sums in order, divided by the window's count."""
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
    from ..descs import AveragePooling1

    kw.setdefault("include_padding", False)
    return A.sample_desc(AveragePooling1, in_sizes, out_sizes, data_type, **kw)


EXACT = dict(atol=0, rtol=0, why="sums of small integers and halves are exact in any order")


def _samples():
    f32 = np.float32
    nine = np.arange(1, 10, dtype=f32).reshape(1, 1, 3, 3)
    four = np.arange(1, 5, dtype=f32).reshape(1, 1, 1, 4)
    # Width 4 padded by 1 on both sides, windows of 2 dilated by 2 (extent 3): they read positions {-1, 1},
    # {0, 2}, {1, 3}, {2, 4}, i.e. {2}, {1 3}, {2 4}, {3}: sums 2, 4, 6, 3.
    pad = dict(window=(1, 2), dilations=(1, 2), start=(0, 1), end=(0, 1))
    return [
        # A 2 x 2 window dilated by 2 over 1..9 reads the corners: (1 + 3 + 7 + 9) / 4 = 5.
        Sample("dilated_corners", _desc([1, 1, 3, 3], [1, 1, 1, 1], window=(2, 2), dilations=(2, 2)),
               {"InputTensor": nine}, {"OutputTensor": np.full((1, 1, 1, 1), 5, f32)}, **EXACT),
        # Without the padding: 2/1, 4/2, 6/2, 3/1.
        Sample("dilated_padding", _desc([1, 1, 1, 4], [1, 1, 1, 4], **pad), {"InputTensor": four},
               {"OutputTensor": np.array([[[[2, 2, 3, 3]]]], f32)}, **EXACT),
        # With it: every window has 2 elements: 2/2, 4/2, 6/2, 3/2.
        Sample("dilated_padding_included", _desc([1, 1, 1, 4], [1, 1, 1, 4], include_padding=True, **pad),
               {"InputTensor": four}, {"OutputTensor": np.array([[[[1, 2, 3, 1.5]]]], f32)}, **EXACT),
        # 5-D, dilation 2 in depth: planes 0 and 2 of 1..12 (as 3 x 2 x 2): (1+2+3+4 + 9+10+11+12) / 8 = 6.5.
        Sample("3d_dilated", _desc([1, 1, 3, 2, 2], [1, 1, 1, 1, 1], window=(2, 2, 2), dilations=(2, 1, 1)),
               {"InputTensor": np.arange(1, 13, dtype=f32).reshape(1, 1, 3, 2, 2)},
               {"OutputTensor": np.full((1, 1, 1, 1, 1), 6.5, f32)}, **EXACT),
        Sample("random_dilated", _desc([1, 2, 5, 6], [1, 2, 4, 3], window=(2, 2), dilations=(2, 3), strides=(1, 1),
                                       start=(1, 0), end=(0, 0)),
               {"InputTensor": np.random.default_rng(121).uniform(-3, 3, (1, 2, 5, 6)).astype(f32)},
               atol=0, rtol=0, why="every backend sums in the same order and divides once"),
    ]


SAMPLES = _samples()
