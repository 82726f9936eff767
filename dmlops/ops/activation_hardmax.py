"""DML_OPERATOR_ACTIVATION_HARDMAX: the effective-rank rule the descriptor file cannot express.

The docs: InputTensor "must have an effective rank no greater than 2. The effective rank of a tensor
is the DimensionCount of the tensor, excluding leftmost dimensions of size 1" ({1, 1, BatchCount,
Width} is valid and equivalent to {BatchCount, Width}). OutputTensor has the same Sizes (checked by
the generic validator), so only InputTensor is checked, as for ACTIVATION_SOFTMAX. DirectML's vectors
hold only effective rank 2 ({1, 1, 4, 5}, accepted); a higher effective rank is refused here on the
docs' word alone.

Math: 1 at the first largest element of each row (the last dimension), 0 elsewhere: ACTIVATION_HARDMAX1 with Axes
{DimensionCount - 1}, whose docstring gives the tie and NaN rules (DirectML's vectors float32_1x1x4x5_ties_nan and
float16_1x1x4x5_ties_nan: three equal maxima give 1 at the first; a row starting with NaN puts its 1 on the NaN;
sample_later_nan_5d: a NaN after element 0 is passed over, [0, NaN, 5] gives [0, 0, 1]).
"""
from __future__ import annotations

import numpy as np

from ..errors import Problem
from ..sample import Sample, td
from ._shapes import effective_rank_problems
from .activation_hardmax1 import hardmax, hardmax_onnx, hardmax_torch


def check(desc, level) -> list[Problem]:
    """InputTensor's effective rank (leading 1s dropped) is at most 2."""
    return effective_rank_problems(desc)


def reference(desc, x):
    """hardmax over the last dimension."""
    v = x["InputTensor"]
    return {"OutputTensor": hardmax(v.astype(np.float32), (v.ndim - 1,))}


def to_onnx(desc, g, x):
    """hardmax_onnx over the last dimension (ONNX Hardmax has no NaN rule and is float-only on the CPU provider)."""
    sizes = desc.input_tensor.sizes
    return {"OutputTensor": hardmax_onnx(g, x["InputTensor"], sizes, (len(sizes) - 1,))}


def to_torch(desc, torch, x):
    """hardmax_torch over the last dimension."""
    v = x["InputTensor"]
    return {"OutputTensor": hardmax_torch(torch, v, (v.dim() - 1,))}


def _samples():
    from ..descs import ActivationHardmax as cls

    def d(sizes, strides=None):
        return cls(input_tensor=td("FLOAT32", sizes, strides), output_tensor=td("FLOAT32", sizes))

    # Rows of {1, 1, 3, 4}: [1, 3, 3, 2] -> the first 3; [-inf, -inf, -inf, -inf] -> the first; [NaN, 1, 2, NaN] ->
    # the NaN at element 0 (never replaced).
    x = np.array([[1, 3, 3, 2], [-np.inf] * 4, [np.nan, 1, 2, np.nan]], np.float32).reshape(1, 1, 3, 4)
    y = np.array([[0, 1, 0, 0], [1, 0, 0, 0], [1, 0, 0, 0]], np.float32).reshape(1, 1, 3, 4)
    # A later NaN is passed over (DirectML's sample_later_nan_5d): [0, NaN, 5] -> the 5; [-1, -2, -0.5] -> -0.5; a
    # broadcast row (zero strides) repeats its answer.
    return [
        Sample("ties_inf_nan", d([1, 1, 3, 4]), {"InputTensor": x}, {"OutputTensor": y}, atol=0, rtol=0,
               why="exact: a 0/1 selection", float16_atol=0, float16_rtol=0),
        Sample("later_nan_5d", d([1, 1, 1, 2, 3]), {"InputTensor": np.array([0, np.nan, 5, -1, -2, -0.5],
                                                                             np.float32).reshape(1, 1, 1, 2, 3)},
               {"OutputTensor": np.array([0, 0, 1, 0, 0, 1], np.float32).reshape(1, 1, 1, 2, 3)}, atol=0, rtol=0,
               why="exact: a 0/1 selection", float16_atol=0, float16_rtol=0),
        Sample("broadcast_rows", d([1, 1, 3, 5], [0, 0, 0, 1]),
               {"InputTensor": np.array([2, 7, 1, 8, 2], np.float32)}, atol=0, rtol=0,
               why="exact: a 0/1 selection", float16_atol=0, float16_rtol=0),
    ]


SAMPLES = _samples()
