"""DML_OPERATOR_RESAMPLE_GRAD1: the gradient of RESAMPLE2 (RESAMPLE_GRAD with RoundingDirection).

As RESAMPLE_GRAD (module resample_grad: summation order, swapped pixel offsets), with nearest neighbor rounded
by RoundingDirection: ceil (INCREASING) or floor (DECREASING) of x = (o - InputPixelOffset) / Scale -
OutputPixelOffset. RESAMPLE_GRAD1 float32_nearest_neighbor_scales_2.0_1.5 (INCREASING) leaves row 0 and column 0
of OutputGradientTensor at 0 (rows {0, 1} -> 1, {2, 3, 4, 5} -> 2; columns {0, 1} -> 1, {2} -> 2, {3, 4, 5} ->
3); float32_linear_scales_2.0_1.5 matches the same transpose bit for bit. The page's example (gradient [4, 5, 6]
-> [[9, 6], [0, 0]]) is what DECREASING gives (SAMPLES docs_example_decreasing); INCREASING gives [[0, 15],
[0, 0]].

Shape rules the descriptor file cannot express:

The gradient of RESAMPLE2: DimensionCount (the length of Scales, InputPixelOffsets and OutputPixelOffsets) "must
equal the DimensionCount provided in the InputGradientTensor and OutputGradientTensor"; every scale is greater
than 0. InputGradientTensor "typically" has the forward output's Sizes and OutputGradientTensor the forward
input's, but as in the forward operator the scales need not be exactly OutputSize / InputSize, so no Sizes
relation is checked. RoundingDirection has no shape effect. Shared rules: dmlops/ops/_windows.py.
"""
from __future__ import annotations

import numpy as np

from ..errors import Problem
from ..sample import Sample
from . import _resample as rs
from ._windows import resample_problems


def check(desc, level) -> list[Problem]:
    """Scales > 0 and DimensionCount = the tensors' DimensionCount."""
    return resample_problems(desc, sources=("InputGradientTensor", "OutputGradientTensor"))


def reference(desc, x):
    """The transposed per-dimension tables of the shared engine (dmlops/ops/_resample.py), NumPy."""
    return rs.grad_reference(desc, x)


def to_onnx(desc, g, x):
    """Concat (a zero) / Gather / Mul / Add through the transposed tables, in DirectML's summation order."""
    return rs.grad_to_onnx(desc, g, x)


def to_torch(desc, torch, x):
    """cat / index_select / mul / add through the transposed tables, in DirectML's summation order."""
    return rs.grad_to_torch(desc, torch, x)


# ----------------------------------------------------------------------------------------------- samples
EXACT = dict(atol=0, rtol=0, float16_atol=0, float16_rtol=0, why="sums exact in float32")


def _desc(sizes_in, sizes_out, mode, scales, direction="INCREASING", offsets=(0.5, -0.5)):
    return rs.sample_desc("RESAMPLE_GRAD1", "FLOAT32", sizes_in, sizes_out, mode, scales, offsets,
                          rounding_direction=direction)


def _samples():
    f32 = np.float32
    rng = np.random.default_rng(162)
    g = np.array([4, 5, 6], f32).reshape(1, 1, 1, 3)
    return [
        # The page's example, offsets (0.5, -0.5): columns x = (o - 0.5) / 1.5 + 0.5 = 0.17, 0.83, 1.5; the row
        # x = -0.5. DECREASING (floor): columns 0, 0, 1 and row -1 (clamped to 0): [[4 + 5, 6], [0, 0]], the
        # page's numbers. INCREASING (ceil): columns 1, 1, 2 (clamped to 1) and row 0: [[0, 15], [0, 0]].
        Sample("docs_example_decreasing", _desc([1, 1, 1, 3], [1, 1, 2, 2], "NEAREST_NEIGHBOR", [1, 1, 0.5, 1.5],
                                                "DECREASING"),
               {"InputGradientTensor": g},
               {"OutputGradientTensor": np.array([[9, 6], [0, 0]], f32).reshape(1, 1, 2, 2)}, **EXACT),
        Sample("docs_example_increasing", _desc([1, 1, 1, 3], [1, 1, 2, 2], "NEAREST_NEIGHBOR", [1, 1, 0.5, 1.5]),
               {"InputGradientTensor": g},
               {"OutputGradientTensor": np.array([[0, 15], [0, 0]], f32).reshape(1, 1, 2, 2)}, **EXACT),
        # Linear ignores RoundingDirection: RESAMPLE_GRAD linear_x2, [1, 2, 3, 4] -> [1.25, 8.75].
        Sample("linear_x2", _desc([1, 1, 1, 4], [1, 1, 1, 2], "LINEAR", [1, 1, 1, 2], "DECREASING"),
               {"InputGradientTensor": np.array([1, 2, 3, 4], f32).reshape(1, 1, 1, 4)},
               {"OutputGradientTensor": np.array([1.25, 8.75], f32).reshape(1, 1, 1, 2)}, **EXACT),
        Sample("nearest_2d_random", _desc([1, 2, 7, 6], [1, 2, 3, 4], "NEAREST_NEIGHBOR", [1, 1, 2.5, 1.5],
                                          "DECREASING"),
               {"InputGradientTensor": rng.uniform(-3, 3, (1, 2, 7, 6)).astype(f32)}, None, atol=0, rtol=0,
               why="the same float32 sums in the same order on every backend"),
    ]


SAMPLES = _samples()
