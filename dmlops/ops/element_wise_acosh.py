"""DML_OPERATOR_ELEMENT_WISE_ACOSH: f(x) = acosh(x) = ln(x + sqrt(x * x - 1)) (the docs' formula; ScaleBias first).

DirectML evaluates the formula in float32 (dmlops.ops._unary_math), and so does every lowering: x * x - 1 cancels
near 1 (vector float32_2x3x4x5: acosh(1.0001) = 0.014142881, 333 ULP from the true 0.014143191), which the IEEE
acosh (ONNX Acosh, torch.acosh) does not; x < 1, -inf and NaN give NaN, acosh(inf) = inf.
"""
from __future__ import annotations

import numpy as np

from ..types import ScaleBias
from ._unary_math import lowering, samples

# x + sqrt(x^2 - 1): x = 1 -> 1; x = 5/4 -> 5/4 + 3/4 = 2; x = 5/3 -> 5/3 + 4/3 = 3.


def _samples():
    from ..descs import ElementWiseAcosh

    return samples(ElementWiseAcosh, "formula", [1, 1.25, 5 / 3], [0, np.log(2), np.log(3)],
                   why="float32 rounding of the formula", atol=1e-6,
                   edges=([0.5, -1, -0.0, np.inf, -np.inf, np.nan], [np.nan, np.nan, np.nan, np.inf, np.nan, np.nan]),
                   # ScaleBias {0.25, 1}: [0, 1] -> [1, 5/4].
                   scale_bias=ScaleBias(0.25, 1.0), scaled_x=[0, 1], scaled_y=[0, np.log(2)], grid=(1.0, 4.0))


reference, to_onnx, to_torch, SAMPLES = lowering("ELEMENT_WISE_ACOSH", _samples)
