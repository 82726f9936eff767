"""DML_OPERATOR_ELEMENT_WISE_ASINH: f(x) = asinh(x) = ln(x + sqrt(x * x + 1)) (the docs' formula; ScaleBias first).

DirectML evaluates the formula in float32 (dmlops.ops._unary_math), and so does every lowering: asinh(-inf) = NaN
(-inf + inf; vector float32_2x3x4x5), asinh(-0) = +0, and the sum cancels for x < 0 (float32_2x3x4x5:
asinh(-2.9742005) = -1.8102567, 4 ULP from -1.8102562), which the IEEE asinh (ONNX Asinh, torch.asinh) does not.
"""
from __future__ import annotations

import numpy as np

from ..types import ScaleBias
from ._unary_math import lowering, samples

# x + sqrt(x^2 + 1): x = 3/4 -> 3/4 + 5/4 = 2; x = -3/4 -> 1/2; x = 4/3 -> 4/3 + 5/3 = 3.


def _samples():
    from ..descs import ElementWiseAsinh

    return samples(ElementWiseAsinh, "formula", [0, 0.75, -0.75, 4 / 3], [0, np.log(2), -np.log(2), np.log(3)],
                   why="float32 rounding of the formula", atol=1e-6,
                   edges=([-0.0, np.inf, -np.inf, np.nan], [0, np.inf, np.nan, np.nan]),
                   # ScaleBias {0.25, -1}: [7, 1, 4] -> [3/4, -3/4, 0].
                   scale_bias=ScaleBias(0.25, -1.0), scaled_x=[7, 1, 4], scaled_y=[np.log(2), -np.log(2), 0])


reference, to_onnx, to_torch, SAMPLES = lowering("ELEMENT_WISE_ASINH", _samples)
