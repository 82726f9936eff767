"""DML_OPERATOR_LP_POOLING: (sum |x|^P) ^ (1/P) over every sliding window of InputTensor.

The page's formula, Y = (X1^P + ... + Xn^P) ^ (1/P), has no absolute value; DirectML's answers take |x| (P = 1:
float32_win3x2_s1x2_pad[1, 0][1, 1] sums magnitudes of windows holding negatives), as ONNX LpPool does; torch's
lp_pool2d raises x itself to P (P = 1 over -1, -2, -3, -4 gives -10) and pads symmetrically only. Padding reads 0. The
sum runs in float32, one element after the other in row-major window order; |x| * |x| and sqrt for P = 2 (every
vector exact; dmlops/ops/_avg_lp_pooling.py has the alternatives that miss), the sum itself for P = 1. No vector
has P >= 3: there dmlops takes float32 pow(|x|, P) and pow(sum, 1 / P), whose last bit may differ from
DirectML's. Every backend reads the windows through dmlops/ops/_pooling.py (a strided Slice per window element,
or its table for windows of more than 256 elements; Add in order).

Shape rules the descriptor file cannot express:

InputTensor {BatchCount, ChannelCount, [Depth], Height, Width}. DimensionCount (the length of Strides,
WindowSize, StartPadding and EndPadding) is InputTensor's DimensionCount - 2 (DirectML refuses a 5-D input
with DimensionCount 2). Strides and WindowSize are at least 1. OutputTensor is {BatchCount, ChannelCount,
Output...} with Output = (InputSize + StartPadding + EndPadding - WindowSize) / Strides + 1 (floor).
P is at least 1: the page's Y = (X1^P + ... + Xn^P) ^ (1/P) has no value for P = 0. Shared rules:
dmlops/ops/_windows.py.
"""
from __future__ import annotations

import numpy as np

from ..errors import Problem
from ..sample import Sample
from . import _avg_lp_pooling as A
from ._windows import p_problems, pooling_problems


def check(desc, level) -> list[Problem]:
    """DimensionCount, Strides and WindowSize >= 1, P >= 1, the window inside the padded input, OutputTensor sizes."""
    return pooling_problems(desc) + p_problems(desc)



# ----------------------------------------------------------------------------------------------- lowerings
def reference(desc, x):
    """|x|^P summed over each window in order, then the P-th root."""
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
    from ..descs import LpPooling

    kw.setdefault("p", 2)
    return A.sample_desc(LpPooling, in_sizes, out_sizes, data_type, **kw)


EXACT = dict(atol=0, rtol=0, why="sums of small integer powers and their exact square roots")
SQRT = dict(atol=0, rtol=2.4e-7, why="torch's CPU sqrt is not correctly rounded (1 ULP); the reference and ONNX "
                                     "Runtime square, sum in the same order and take an IEEE sqrt")


def _samples():
    f32 = np.float32
    row = np.array([[[[-1, 2, -2]]]], f32)
    return [
        # One 2 x 2 window of 3, -4, 0, 0: sqrt(9 + 16) = 5; L1: 3 + 4 = 7 (|x|, not x).
        Sample("l2_pythagoras", _desc([1, 1, 2, 2], [1, 1, 1, 1], window=(2, 2)),
               {"InputTensor": np.array([[[[3, -4], [0, 0]]]], f32)}, {"OutputTensor": np.full((1, 1, 1, 1), 5, f32)},
               **EXACT),
        Sample("l1_magnitudes", _desc([1, 1, 2, 2], [1, 1, 1, 1], window=(2, 2), p=1),
               {"InputTensor": np.array([[[[3, -4], [0, 0]]]], f32)}, {"OutputTensor": np.full((1, 1, 1, 1), 7, f32)},
               **EXACT),
        # [-1 2 -2] padded by one 0 in front, windows of 2: |0|+|-1| = 1, |-1|+|2| = 3, |2|+|-2| = 4.
        Sample("l1_padding", _desc([1, 1, 1, 3], [1, 1, 1, 3], window=(1, 2), start=(0, 1), p=1),
               {"InputTensor": row}, {"OutputTensor": np.array([[[[1, 3, 4]]]], f32)}, **EXACT),
        # P = 3: (|1|^3 + |-2|^3) ^ (1/3) = 9 ^ (1/3) = 2.0800838; (|-2|^3) ^ (1/3) = 2 (pow: within an ULP).
        Sample("l3", _desc([1, 1, 1, 3], [1, 1, 1, 2], window=(1, 2), p=3),
               {"InputTensor": np.array([[[[1, -2, 0]]]], f32)},
               {"OutputTensor": np.array([[[[9 ** (1 / 3), 2]]]], f32)},
               atol=0, rtol=3e-7, why="float32 pow: ONNX Runtime and torch compute |x|^3 as x * x * x"),
        # 5-D: one 2 x 2 x 2 window of eight 1s and -1s: sqrt(8) = 2.828427.
        Sample("3d", _desc([1, 1, 2, 2, 2], [1, 1, 1, 1, 1], window=(2, 2, 2)),
               {"InputTensor": np.array([1, -1] * 4, f32).reshape(1, 1, 2, 2, 2)},
               {"OutputTensor": np.full((1, 1, 1, 1, 1), np.sqrt(f32(8)), f32)}, **SQRT),
        # An 81-element window (ReduceSum / torch.sum on the backends): sqrt(81 * 1) = 9.
        Sample("global_9x9", _desc([1, 1, 9, 9], [1, 1, 1, 1], window=(9, 9)),
               {"InputTensor": np.where(np.arange(81) % 2, -1, 1).astype(f32).reshape(1, 1, 9, 9)},
               {"OutputTensor": np.full((1, 1, 1, 1), 9, f32)}, **EXACT),
        Sample("random_overlap", _desc([2, 3, 5, 6], [2, 3, 5, 3], window=(3, 2), strides=(1, 2), start=(1, 0),
                                       end=(1, 1)),
               {"InputTensor": np.random.default_rng(13).uniform(-3, 3, (2, 3, 5, 6)).astype(f32)},
               **SQRT),
        Sample("random_l4", _desc([1, 2, 4, 4], [1, 2, 3, 3], window=(2, 2), p=4),
               {"InputTensor": np.random.default_rng(14).uniform(-3, 3, (1, 2, 4, 4)).astype(f32)},
               atol=0, rtol=1e-6, why="float32 pow in each backend's own implementation: a few ULP"),
    ]


SAMPLES = _samples()
