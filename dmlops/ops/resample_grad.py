"""DML_OPERATOR_RESAMPLE_GRAD: the gradient of RESAMPLE1 (the transpose of its per-dimension tables).

Every OutputGradientTensor element (a forward input position) sums InputGradient[o] * weight over the forward
output positions o that read it, in row-major order of o (dimension 0 outermost), the weight being the product
of the per-dimension weights (nearest: 1; linear: 1 - t or t) multiplied in dimension order, accumulated from 0
in float32: both float32 vectors match bit for bit, a dimension-by-dimension sum does not (3 to 18 elements
differ). Where DirectML differs from the page:

* The forward mapping is read with the two pixel offsets swapped, x = (o - InputPixelOffset) / Scale -
  OutputPixelOffset (with (0.5, -0.5): the forward coordinate shifted by 1 - 1 / Scale). RESAMPLE_GRAD
  float32_nearest_neighbor_scales_2.0_1.5 sends gradient rows {0}, {1, 2}, {3, 4, 5} to rows 0, 1, 2 where
  RESAMPLE1's own mapping would send {0, 1}, {2, 3}, {4, 5}; float32_linear_scales_2.0_1.5 matches this
  transpose and no transpose of RESAMPLE1's tables; offsets (0.3, -0.2) (sample_linear_3d_down and its float16
  twin) match the swap and not the offsets negated (off by up to 0.74) nor the shift (dmlops/ops/_resample.py
  grad_axis).
* Summation order: the order above reproduces both float32 vectors of batch 1 bit for bit, but DirectML sums
  sample_linear_2d_random (the same descriptor with batch 2) dimension by dimension, last dimension first, and
  sample_linear_3d_down in neither order: the float32 results are within 1e-6 (dmlops/vector_tolerances.py).
* The page's example (Width x1.5, Height x0.5, gradient [4, 5, 6] -> [[9, 6], [0, 0]]) is not what DirectML
  computes with offsets (0.5, -0.5): the columns read x = 0.17, 0.83, 1.5 -> 0, 1, 1, giving [[4, 11], [0, 0]]
  (SAMPLES docs_example_as_directml).

Shape rules the descriptor file cannot express:

The gradient of RESAMPLE1: DimensionCount (the length of Scales, InputPixelOffsets and OutputPixelOffsets) "must
equal the DimensionCount provided in the InputGradientTensor and OutputGradientTensor"; every scale is greater
than 0. InputGradientTensor "typically" has the forward output's Sizes and OutputGradientTensor the forward
input's, but as in the forward operator the scales need not be exactly OutputSize / InputSize, so no Sizes
relation is checked. Shared rules: dmlops/ops/_windows.py.
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


def _desc(sizes_in, sizes_out, mode, scales, offsets=(0.5, -0.5), data_type="FLOAT32"):
    return rs.sample_desc("RESAMPLE_GRAD", data_type, sizes_in, sizes_out, mode, scales, offsets)


def _samples():
    f32 = np.float32
    rng = np.random.default_rng(134)
    return [
        # The page's example with offsets (0.5, -0.5): Height 2 -> 1 (Scale 0.5), Width 2 -> 3 (Scale 1.5).
        # Columns: x = (o - 0.5) / 1.5 + 0.5 = 0.17, 0.83, 1.5; floor(x + 0.5) = 0, 1, 2 (clamped to 1), so
        # column 0 gets 4 and column 1 gets 5 + 6. Row: x = (0 - 0.5) / 0.5 + 0.5 = -0.5 -> row 0.
        Sample("docs_example_as_directml", _desc([1, 1, 1, 3], [1, 1, 2, 2], "NEAREST_NEIGHBOR", [1, 1, 0.5, 1.5]),
               {"InputGradientTensor": np.array([4, 5, 6], f32).reshape(1, 1, 1, 3)},
               {"OutputGradientTensor": np.array([[4, 11], [0, 0]], f32).reshape(1, 1, 2, 2)}, **EXACT),
        # Linear, Width 2 -> 4 (Scale 2): x = (o - 0.5) / 2 + 0.5 = 0.25, 0.75, 1.25, 1.75, clamped to 1 from
        # o = 2. Weights (i0, 1 - t), (i1, t): o0 (0, 0.75) (1, 0.25); o1 (0, 0.25) (1, 0.75); o2, o3 (1, 1).
        # Gradient [1, 2, 3, 4]: column 0 = 0.75 + 0.5 = 1.25; column 1 = 0.25 + 1.5 + 3 + 4 = 8.75.
        Sample("linear_x2", _desc([1, 1, 1, 4], [1, 1, 1, 2], "LINEAR", [1, 1, 1, 2]),
               {"InputGradientTensor": np.array([1, 2, 3, 4], f32).reshape(1, 1, 1, 4)},
               {"OutputGradientTensor": np.array([1.25, 8.75], f32).reshape(1, 1, 1, 2)}, **EXACT),
        # Offsets (0, 0) (swapped or not, the same): nearest x2 sends o = 0..3 (x = 0, 0.5, 1, 1.5) to
        # floor(x + 0.5) = 0, 1, 1, 2 (clamped to 1): [1, 2 + 3 + 4] = [1, 9].
        Sample("nearest_corners", _desc([1, 1, 1, 4], [1, 1, 1, 2], "NEAREST_NEIGHBOR", [1, 1, 1, 2], (0, 0)),
               {"InputGradientTensor": np.array([1, 2, 3, 4], f32).reshape(1, 1, 1, 4)},
               {"OutputGradientTensor": np.array([1, 9], f32).reshape(1, 1, 1, 2)}, **EXACT),
        Sample("linear_2d_random", _desc([2, 2, 6, 6], [2, 2, 3, 4], "LINEAR", [1, 1, 2, 1.5]),
               {"InputGradientTensor": rng.uniform(-3, 3, (2, 2, 6, 6)).astype(f32)}, None, atol=0, rtol=0,
               why="the same float32 sums in the same order on every backend"),
        Sample("linear_3d_down", _desc([2, 3, 2], [3, 5, 4], "LINEAR", [0.7, 0.6, 0.5], (0.3, -0.2)),
               {"InputGradientTensor": rng.uniform(-3, 3, (2, 3, 2)).astype(f32)}, None, atol=0, rtol=0,
               why="the same float32 sums in the same order on every backend"),
    ]


SAMPLES = _samples()
