"""DML_OPERATOR_ELEMENT_WISE_ASIN: f(x) = asin(x) (ScaleBias applied first by the framework).

DirectML computes pi/2 - acos(x) with ELEMENT_WISE_ACOS's Abramowitz & Stegun 4.4.45 polynomial
(dmlops.ops._unary_math), not the IEEE asin: up to 6.8e-5 away from it, and asin(±0) = float32(pi/2) -
float32(1.5707288) = 6.759167e-05, not ±0 (vector float32_2x3x4x5); asin(±1) = ±pi/2; |x| > 1, ±inf and NaN give
NaN. Every lowering writes that polynomial in float32.
"""
from __future__ import annotations

import numpy as np

from ..types import ScaleBias
from ._unary_math import lowering, samples

A0 = 1.5707288  # A&S 4.4.45 (see ELEMENT_WISE_ACOS)
P_HALF = float(np.sqrt(0.5) * (A0 - 0.2121144 / 2 + 0.0742610 / 4 - 0.0187293 / 8))  # acos(1/2) = 1.0471514
# asin(x) = pi/2 - acos(x): asin(1) = pi/2, asin(-1) = pi/2 - pi, asin(0) = pi/2 - a0 (6.76e-5 in float32),
# asin(1/2) = pi/2 - P_HALF, asin(-1/2) = pi/2 - (pi - P_HALF).


def _samples():
    from ..descs import ElementWiseAsin

    return samples(ElementWiseAsin, "polynomial", [1, -1, 0, 0.5, -0.5],
                   [np.pi / 2, -np.pi / 2, np.float32(np.pi / 2) - np.float32(A0), np.pi / 2 - P_HALF,
                    P_HALF - np.pi / 2],
                   why="float32 rounding of the polynomial", atol=1e-6,
                   edges=([1.5, -1.5, np.inf, -np.inf, np.nan], [np.nan] * 5),
                   # ScaleBias {-1, 0}: [-1, 1] -> [1, -1].
                   scale_bias=ScaleBias(-1.0, 0.0), scaled_x=[-1, 1], scaled_y=[np.pi / 2, -np.pi / 2])


reference, to_onnx, to_torch, SAMPLES = lowering("ELEMENT_WISE_ASIN", _samples)
