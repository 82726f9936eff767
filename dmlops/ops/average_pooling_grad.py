"""DML_OPERATOR_AVERAGE_POOLING_GRAD: the gradient of AVERAGE_POOLING with respect to its input.

InputGradientTensor is the gradient of the forward OutputTensor, OutputGradientTensor that of the forward
InputTensor: every InputGradient element's share, dY / count (the forward's divisor: the window's element count
with IncludePadding, its non-padding elements without), is added to each non-padding element of its window.
DirectML adds an element's shares one after the other in ascending output position (AVERAGE_POOLING_GRAD-float32
and -float16 are exact that way; other orders and dY * (1 / count) miss: dmlops/ops/_avg_lp_pooling.py). An
element no window reaches (a Stride larger than the window) gets +0, and so does a sum of zeros. On every backend
dmlops adds the shares into strided slices of a +0 accumulator, one window element at a time from the last, which
is ascending output position for every element (dmlops/ops/_pooling.py; windows of more than 256 elements gather
the shares through the inverse of its window table instead: Gather, Add, Div; no scatter, no ConvTranspose), so
the order is DirectML's. The page's example (2 x 2 windows, stride 1, over 3 x 3) is a SAMPLE.

Shape rules the descriptor file cannot express:

OutputGradientTensor has the Sizes of the forward AVERAGE_POOLING's InputTensor and InputGradientTensor those
of its OutputTensor. So: DimensionCount (the length of Strides, WindowSize, StartPadding and EndPadding) is
the tensors' DimensionCount - 2 ("the spatial dimension count is 2 if 4D tensors are provided, or 3 if 5D");
Strides and WindowSize are at least 1; and InputGradientTensor is {BatchCount, ChannelCount, Output...} with
Output = (OutputGradientSize + StartPadding + EndPadding - WindowSize) / Strides + 1 (floor), the forward
formula. Shared rules: dmlops/ops/_windows.py.
"""
from __future__ import annotations

import numpy as np

from ..errors import Problem
from ..sample import Sample
from . import _avg_lp_pooling as A
from ._windows import pooling_problems


def check(desc, level) -> list[Problem]:
    """DimensionCount, Strides and WindowSize >= 1, the window inside the padded OutputGradientTensor,
    InputGradientTensor sizes from the forward output formula."""
    return pooling_problems(desc, sources=("OutputGradientTensor",), targets=("InputGradientTensor",))


# ----------------------------------------------------------------------------------------------- lowerings
def reference(desc, x):
    """Each element sums the shares dY / count of the windows holding it, in ascending output position."""
    return A.grad_reference(desc, x)


def to_onnx(desc, g, x):
    """Div by the counts, then per window element from the last a Pad of the shares (spread Stride apart) to its
    place and an Add (past 256 elements: Gather through the inverse window table, Add in order)."""
    return A.grad_onnx(desc, g, x)


def to_torch(desc, torch, x):
    """divide by the counts, then per window element from the last an in-place add into strided views of a +0
    accumulator (past 256 elements: index_select through the inverse window table, add in order)."""
    return A.grad_torch(desc, torch, x)


# ----------------------------------------------------------------------------------------------- samples
def _desc(in_sizes, out_sizes, data_type="FLOAT32", **kw):
    """``in_sizes`` / ``out_sizes``: the forward's InputTensor (OutputGradientTensor) and OutputTensor
    (InputGradientTensor)."""
    from ..descs import AveragePoolingGrad

    kw.setdefault("include_padding", False)
    return A.sample_desc(AveragePoolingGrad, in_sizes, out_sizes, data_type, **kw)


EXACT = dict(atol=0, rtol=0, why="sums of quarters and halves are exact in any order")


def _samples():
    f32 = np.float32
    pad = dict(window=(2, 2), start=(1, 0), end=(0, 1))
    ones = np.ones((1, 1, 2, 3), f32)
    # 9 x 9 input, 9 x 9 windows padded by 4 on each side, stride 1: element i of a row lies in min(i, 4) +
    # min(8 - i, 4) + 1 windows per dimension; every share is 81 / 81 = 1, so the gradient counts the windows.
    per = np.array([5, 6, 7, 8, 9, 8, 7, 6, 5], f32)
    return [
        # The page's example: 2 x 2 windows at stride 1 over 3 x 3, dY = [[1, 2], [3, 4]]: shares 1/4 .. 4/4.
        Sample("docs_example", _desc([1, 1, 3, 3], [1, 1, 2, 2], window=(2, 2)),
               {"InputGradientTensor": np.array([[[[1, 2], [3, 4]]]], f32)},
               {"OutputGradientTensor": np.array([[[[0.25, 0.75, 0.5], [1, 2.5, 1.5], [0.75, 1.75, 1]]]], f32)},
               **EXACT),
        # The forward of average_pooling's asymmetric_padding sample, dY = 1: windows of 2, 2, 1, 4, 4, 2
        # non-padding elements share 1/2, 1/2, 1, 1/4, 1/4, 1/2; element (0, 0) is in windows 0 and 3: 0.75;
        # (0, 1) in 0, 1, 3, 4: 1.5; (0, 2) in 1, 2, 4, 5: 2.25; (1, 0) in 3: 0.25; (1, 1) in 3, 4: 0.5;
        # (1, 2) in 4, 5: 0.75.
        Sample("asymmetric_padding", _desc([1, 1, 2, 3], [1, 1, 2, 3], **pad), {"InputGradientTensor": ones},
               {"OutputGradientTensor": np.array([[[[0.75, 1.5, 2.25], [0.25, 0.5, 0.75]]]], f32)}, **EXACT),
        # With the padding counted every share is 1/4: 2, 4, 4, 1, 2, 2 windows.
        Sample("asymmetric_padding_included", _desc([1, 1, 2, 3], [1, 1, 2, 3], include_padding=True, **pad),
               {"InputGradientTensor": ones},
               {"OutputGradientTensor": np.array([[[[0.5, 1, 1], [0.25, 0.5, 0.5]]]], f32)}, **EXACT),
        # Stride 3, windows of 2 over width 5: element 2 is in no window and gets 0.
        Sample("stride_gap", _desc([1, 1, 1, 5], [1, 1, 1, 2], window=(1, 2), strides=(1, 3)),
               {"InputGradientTensor": np.array([[[[2, 4]]]], f32)},
               {"OutputGradientTensor": np.array([[[[1, 1, 0, 2, 2]]]], f32)}, **EXACT),
        # 5-D: one 2 x 2 x 2 window, dY = 4: 0.5 to each of the 8 elements.
        Sample("3d", _desc([1, 1, 2, 2, 2], [1, 1, 1, 1, 1], window=(2, 2, 2)),
               {"InputGradientTensor": np.full((1, 1, 1, 1, 1), 4, f32)},
               {"OutputGradientTensor": np.full((1, 1, 2, 2, 2), 0.5, f32)}, **EXACT),
        # Up to 81 windows per element (past SEQUENTIAL_MAX: ReduceSum / torch.sum on the backends).
        Sample("many_windows", _desc([1, 1, 9, 9], [1, 1, 9, 9], window=(9, 9), start=(4, 4), end=(4, 4),
                                     include_padding=True),
               {"InputGradientTensor": np.full((1, 1, 9, 9), 81, f32)},
               {"OutputGradientTensor": np.outer(per, per).reshape(1, 1, 9, 9)}, **EXACT),
        Sample("random_overlap", _desc([2, 3, 5, 6], [2, 3, 5, 3], window=(3, 2), strides=(1, 2), start=(1, 0),
                                       end=(1, 1)),
               {"InputGradientTensor": np.random.default_rng(16).uniform(-3, 3, (2, 3, 5, 3)).astype(f32)},
               atol=0, rtol=0, why="every backend divides once and adds the shares in the same order"),
    ]


SAMPLES = _samples()
