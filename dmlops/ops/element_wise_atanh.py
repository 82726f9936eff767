"""DML_OPERATOR_ELEMENT_WISE_ATANH: f(x) = atanh(x) = ln((1 + x) / (1 - x)) / 2 (the docs' formula; ScaleBias first).

DirectML evaluates the formula in float32 (dmlops.ops._unary_math), and so does every lowering: atanh(±1) = ±inf,
|x| > 1, ±inf and NaN give NaN, atanh(-0) = +0 (vector float32_2x3x4x5), and the quotient's rounding shows near 0
(float32_scalebias: atanh(0.0019882321) = 0.0019882077, 116 ULP from 0.0019882348).
"""
from __future__ import annotations

import numpy as np

from ..types import ScaleBias
from ._unary_math import lowering, samples

# (1 + x) / (1 - x): x = 1/3 -> 2, x = -1/3 -> 1/2, x = 1/2 -> 3.


def _samples():
    from ..descs import ElementWiseAtanh

    return samples(ElementWiseAtanh, "formula", [0, 1 / 3, -1 / 3, 0.5],
                   [0, np.log(2) / 2, -np.log(2) / 2, np.log(3) / 2],
                   why="float32 rounding of the formula", atol=1e-6,
                   edges=([1, -1, 1.5, -0.0, np.inf, np.nan], [np.inf, -np.inf, np.nan, 0, np.nan, np.nan]),
                   # ScaleBias {0.5, -0.5}: [3, -1, 1] -> [1, -1, 0].
                   scale_bias=ScaleBias(0.5, -0.5), scaled_x=[3, -1, 1], scaled_y=[np.inf, -np.inf, 0])


reference, to_onnx, to_torch, SAMPLES = lowering("ELEMENT_WISE_ATANH", _samples)
