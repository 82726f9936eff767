"""DML_OPERATOR_MAX_POOLING_GRAD: each InputGradientTensor element added to its window's winner.

Semantics (DirectML's vectors MAX_POOLING_GRAD float32/float16, bit-exact; dmlops/ops/_max_pooling.py has the
rule): the winner of each window of InputTensor (the forward MAX_POOLING2 input) is found as MAX_POOLING2 finds
it (NaN and padding never win; ties go to the first element, the lowest index); OutputGradientTensor is zero but
at the winners, where the gradients of every window an element wins add up, in increasing window order (the
vectors add up to three). A window that nothing wins (only padding, NaN, -inf or the lowest value) adds nothing,
and zeros are +0: decisions no vector checks. torch's max_pool2d backward agrees where its forward does (no NaN,
no padding-only window); ONNX has no MaxPool gradient. The lowerings add each window element's winning gradients
into strided slices of a +0 accumulator, window element by window element from the last (ascending window order
for every input element; dmlops/ops/_pooling.py), or for windows of more than 256 elements through an inverse
window table (one Gather per summand, in window order), rather than ScatterElements with reduction="add", which
ONNX Runtime's DirectML provider rejects.

Shape rules the descriptor file cannot express:

InputTensor (the forward MAX_POOLING2 input) and OutputGradientTensor are {BatchCount, ChannelCount,
[InputDepth], InputHeight, InputWidth} (their equal Sizes are a generic rule); InputGradientTensor is
{BatchCount, ChannelCount, [OutputDepth], OutputHeight, OutputWidth}, the forward output: Output =
(InputSize + StartPadding + EndPadding - DilatedWindow) / Strides + 1 (floor), DilatedWindow = 1 +
(WindowSize - 1) * Dilations. DimensionCount (the length of Strides, WindowSize, StartPadding, EndPadding and
Dilations) is InputTensor's DimensionCount - 2 (the page says "the only valid value is 2" for the 4-D-only
DML_FEATURE_LEVEL_3_0; the 4_0 table adds 5-D tensors, for which it is 3). Strides, WindowSize and Dilations
are at least 1. Shared rules: dmlops/ops/_windows.py.
"""
from __future__ import annotations

import numpy as np

from ..errors import Problem
from ..sample import Sample, td
from . import _max_pooling as mp
from ._windows import pooling_problems


def check(desc, level) -> list[Problem]:
    """DimensionCount, Strides/WindowSize/Dilations >= 1, the dilated window inside the padded input,
    InputGradientTensor sizes from the forward output formula."""
    return pooling_problems(desc, sources=("InputTensor", "OutputGradientTensor"), targets=("InputGradientTensor",))


def reference(desc, x):
    """Each gradient added to its window's winner, in window order (dmlops.ops._max_pooling)."""
    return {"OutputGradientTensor": mp.reference_grad(desc, x["InputTensor"], x["InputGradientTensor"])}


def to_onnx(desc, g, x):
    """The forward's one-hot winners, a Where of the gradients, one Gather per summand, Adds in window order."""
    return {"OutputGradientTensor": mp.onnx_grad(desc, g, x["InputTensor"], desc.input_tensor.sizes,
                                                 x["InputGradientTensor"])}


def to_torch(desc, torch, x):
    """The forward's one-hot winners, a where of the gradients, one index_select per summand, adds in order."""
    return {"OutputGradientTensor": mp.torch_grad(desc, torch, x["InputTensor"], x["InputGradientTensor"])}


# ----------------------------------------------------------------------------------------------- samples
def _desc(in_sizes, out_sizes, window, strides=None, start=None, end=None, dilations=None, data_type="FLOAT32"):
    from ..descs import MaxPoolingGrad

    n = len(window)
    return MaxPoolingGrad(input_tensor=td(data_type, in_sizes), input_gradient_tensor=td(data_type, out_sizes),
                          output_gradient_tensor=td(data_type, in_sizes), strides=strides or [1] * n,
                          window_size=window, start_padding=start or [0] * n, end_padding=end or [0] * n,
                          dilations=dilations or [1] * n)


EXACT = dict(atol=0, rtol=0, why="sums of at most four exact binary fractions, in the same order",
             float16_atol=0, float16_rtol=0)


def _samples():
    f32 = np.float32
    x = np.array([[[[1, 9, 2], [8, 3, 7], [4, 6, 5]]]], f32)
    return [
        # 2 x 2 windows, stride 1: winners 9 (0,1), 9 (0,1), 8 (1,0), 7 (1,2); gradients 1, 2, 4, 8:
        # (0,1) gets 1 + 2 = 3, (1,0) 4, (1,2) 8, the rest +0.
        Sample("overlapping", _desc([1, 1, 3, 3], [1, 1, 2, 2], [2, 2]),
               {"InputTensor": x, "InputGradientTensor": np.array([[[[1, 2], [4, 8]]]], f32)},
               {"OutputGradientTensor": np.array([[[[0, 3, 0], [4, 0, 8], [0, 0, 0]]]], f32)}, **EXACT),
        # StartPadding {1, 1}, 2 x 2 windows on {{2, 2, -1}, {0, NaN, 2}}: the winners are (0,0) for the windows
        # {2}, {2, 2} (a tie: the first), {2, 0} and {2, 2, 0, NaN}, and (0,1) for {2, -1} and {2, -1, NaN, 2}
        # (a tie again): (0,0) gets 1 + 2 + 8 + 16 = 27 and (0,1) 4 + 32 = 36.
        Sample("padding_ties_nan", _desc([1, 1, 2, 3], [1, 1, 2, 3], [2, 2], start=[1, 1]),
               {"InputTensor": np.array([[[[2, 2, -1], [0, np.nan, 2]]]], f32),
                "InputGradientTensor": np.array([[[[1, 2, 4], [8, 16, 32]]]], f32)},
               {"OutputGradientTensor": np.array([[[[27, 36, 0], [0, 0, 0]]]], f32)}, **EXACT),
        # Dilations {2, 2} on the 3 x 3 x above, padding 1 all round: the nine windows of four corners pick
        # 3 (1,1), 8 (1,0), 3, 9 (0,1), 5 (2,2), 9, 3, 8, 3; gradients 0.5, 1, ..., 4.5 (step 0.5).
        Sample("dilated", _desc([1, 1, 3, 3], [1, 1, 3, 3], [2, 2], start=[1, 1], end=[1, 1], dilations=[2, 2]),
               {"InputTensor": x, "InputGradientTensor": (np.arange(1, 10, dtype=f32) / 2).reshape(1, 1, 3, 3)},
               # (1,1): 0.5 + 1.5 + 3.5 + 4.5 = 10; (1,0): 1 + 4 = 5; (0,1): 2 + 3 = 5; (2,2): 2.5.
               {"OutputGradientTensor": np.array([[[[0, 5, 0], [5, 10, 0], [0, 0, 2.5]]]], f32)}, **EXACT),
        # Two batches, 3 spatial dimensions, one 2 x 2 x 2 window each: the gradient goes to each block's maximum.
        Sample("volume_batches", _desc([2, 1, 2, 2, 2], [2, 1, 1, 1, 1], [2, 2, 2]),
               {"InputTensor": np.array([0, 1, 2, 7, 4, 5, 6, 3, 9, 8, 7, 6, 5, 4, 3, 2], f32).reshape(2, 1, 2, 2, 2),
                "InputGradientTensor": np.array([1.5, -2], f32).reshape(2, 1, 1, 1, 1)},
               {"OutputGradientTensor": np.array([0, 0, 0, 1.5, 0, 0, 0, 0, -2, 0, 0, 0, 0, 0, 0, 0],
                                                 f32).reshape(2, 1, 2, 2, 2)}, **EXACT),
    ]


SAMPLES = _samples()
