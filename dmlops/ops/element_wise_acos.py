"""DML_OPERATOR_ELEMENT_WISE_ACOS: f(x) = acos(x) (ScaleBias applied first by the framework).

DirectML computes Abramowitz & Stegun 4.4.45 (dmlops.ops._unary_math), not the IEEE acos: up to 6.8e-5 away from it
(vector float32_2x3x4x5: acos(0) = 1.5707288, pi/2 = 1.5707964; acos(0.5) = 1.0471513, pi/3 = 1.0471976); acos(±1)
= 0 and pi; |x| > 1, ±inf and NaN give NaN. Every lowering writes that polynomial in float32 (ONNX Acos and
torch.acos would differ by the same 6.8e-5).
"""
from __future__ import annotations

import numpy as np

from ..types import ScaleBias
from ._unary_math import lowering, samples

A0 = 1.5707288  # A&S 4.4.45: acos x ~ sqrt(1 - x) (a0 + a1 x + a2 x^2 + a3 x^3), x in [0, 1]
P_HALF = float(np.sqrt(0.5) * (A0 - 0.2121144 / 2 + 0.0742610 / 4 - 0.0187293 / 8))  # 1.0471514
# acos(1) = sqrt(0) * ... = 0; acos(0) = a0; acos(-1) = pi - acos(1) = pi; acos(1/2) and acos(-1/2) = pi - acos(1/2)
# from the polynomial by hand (P_HALF).


def _samples():
    from ..descs import ElementWiseAcos

    return samples(ElementWiseAcos, "polynomial", [1, 0, -1, 0.5, -0.5], [0, A0, np.pi, P_HALF, np.pi - P_HALF],
                   why="float32 rounding of the polynomial", atol=1e-6,
                   edges=([-0.0, 1.5, -1.5, np.inf, -np.inf, np.nan], [A0, np.nan, np.nan, np.nan, np.nan, np.nan]),
                   # ScaleBias {0.5, -0.25}: [1.5, -1.5, 2.5] -> [0.5, -1, 1].
                   scale_bias=ScaleBias(0.5, -0.25), scaled_x=[1.5, -1.5, 2.5], scaled_y=[P_HALF, np.pi, 0])


reference, to_onnx, to_torch, SAMPLES = lowering("ELEMENT_WISE_ACOS", _samples)
