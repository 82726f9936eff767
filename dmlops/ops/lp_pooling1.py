"""DML_OPERATOR_LP_POOLING1: LP_POOLING with Dilations.

The window's elements are Dilations apart; otherwise as LP_POOLING (dmlops/ops/lp_pooling.py and
dmlops/ops/_avg_lp_pooling.py: (sum |x|^P) ^ (1/P), |x| although the page's formula has none, float32 sums in
row-major window order, x * x and sqrt for P = 2). Every LP_POOLING1 vector is exact, float32_win2x2_s1x1_pad[0,
0][0, 0]_dil2 included. torch's lp_pool has no dilations (nor |x|); dmlops reads the dilated windows through
dmlops/ops/_pooling.py on every backend (strided slices, or its table for windows of more than 256 elements).

Shape rules the descriptor file cannot express:

As LP_POOLING with Dilations: DimensionCount (the length of Strides, WindowSize, StartPadding, EndPadding
and Dilations) is InputTensor's DimensionCount - 2; Strides, WindowSize and Dilations are at least 1;
P is at least 1; OutputTensor is {BatchCount, ChannelCount, Output...} with Output = (InputSize +
StartPadding + EndPadding - DilatedWindow) / Strides + 1 (floor), DilatedWindow = 1 + (WindowSize - 1) *
Dilations. The page prints the formula without Dilations; DirectML's answers use the dilated window
(window 2, dilation 2, 5 x 6 input: 3 x 4 output), and DirectML wins. Shared rules: dmlops/ops/_windows.py.
"""
from __future__ import annotations

import numpy as np

from ..errors import Problem
from ..sample import Sample
from . import _avg_lp_pooling as A
from ._windows import p_problems, pooling_problems


def check(desc, level) -> list[Problem]:
    """DimensionCount, Strides/WindowSize/Dilations >= 1, P >= 1, the dilated window inside the padded input,
    OutputTensor sizes."""
    return pooling_problems(desc) + p_problems(desc)


# ----------------------------------------------------------------------------------------------- lowerings
def reference(desc, x):
    """|x|^P summed over each dilated window in order, then the P-th root."""
    return A.lp_reference(desc, x)


def to_onnx(desc, g, x):
    """Abs, Mul / Pow, Pad, Slice and Add per window element in order (a Gather through the window table past 256
    elements), Sqrt / Pow."""
    return A.lp_onnx(desc, g, x)


def to_torch(desc, torch, x):
    """abs, mul / pow, strided views added in order (index_select through the window table past 256 elements),
    sqrt / pow."""
    return A.lp_torch(desc, torch, x)


# ----------------------------------------------------------------------------------------------- samples
def _desc(in_sizes, out_sizes, data_type="FLOAT32", **kw):
    from ..descs import LpPooling1

    kw.setdefault("p", 2)
    return A.sample_desc(LpPooling1, in_sizes, out_sizes, data_type, **kw)


EXACT = dict(atol=0, rtol=0, why="sums of small integer powers and their exact square roots")
SQRT = dict(atol=0, rtol=2.4e-7, why="torch's CPU sqrt is not correctly rounded (1 ULP); the reference and ONNX "
                                     "Runtime square, sum in the same order and take an IEEE sqrt")


def _samples():
    f32 = np.float32
    corners = np.array([[[[1, 0, 2], [0, 9, 0], [-2, 0, 4]]]], f32)
    return [
        # A 2 x 2 window dilated by 2 reads the corners 1, 2, -2, 4: sqrt(1 + 4 + 4 + 16) = 5, not the centre 9.
        Sample("dilated_corners", _desc([1, 1, 3, 3], [1, 1, 1, 1], window=(2, 2), dilations=(2, 2)),
               {"InputTensor": corners}, {"OutputTensor": np.full((1, 1, 1, 1), 5, f32)}, **EXACT),
        # L1 of the same corners: 1 + 2 + 2 + 4 = 9.
        Sample("dilated_corners_l1", _desc([1, 1, 3, 3], [1, 1, 1, 1], window=(2, 2), dilations=(2, 2), p=1),
               {"InputTensor": corners}, {"OutputTensor": np.full((1, 1, 1, 1), 9, f32)}, **EXACT),
        # [3 -4 1 4] padded by 1 each side, windows of 2 dilated by 2 read {-1, 1} {0, 2} {1, 3} {2, 4}:
        # sqrt(16) = 4, sqrt(9 + 1) = 3.1622777, sqrt(16 + 16) = 5.656854, sqrt(1) = 1.
        Sample("dilated_padding", _desc([1, 1, 1, 4], [1, 1, 1, 4], window=(1, 2), dilations=(1, 2), start=(0, 1),
                                        end=(0, 1)),
               {"InputTensor": np.array([[[[3, -4, 1, 4]]]], f32)},
               {"OutputTensor": np.sqrt(np.array([[[[16, 10, 32, 1]]]], f32))}, **SQRT),
        Sample("random_dilated", _desc([1, 2, 5, 6], [1, 2, 4, 3], window=(2, 2), dilations=(2, 3), start=(1, 0)),
               {"InputTensor": np.random.default_rng(15).uniform(-3, 3, (1, 2, 5, 6)).astype(f32)},
               **SQRT),
    ]


SAMPLES = _samples()
