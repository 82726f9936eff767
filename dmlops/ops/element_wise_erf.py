"""DML_OPERATOR_ELEMENT_WISE_ERF: f(x) = erf(x) = 2 / sqrt(pi) * integral from 0 to x of exp(-t^2) dt (ScaleBias first).

DirectML's answers are within 3 float32 ULP of erf, or an absolute 4.1e-7 (vector float32_scalebias:
erf(0.04152116) = 0.04682511 for 0.046824704; float32_2x3x4x5: erf(-0.006884957) = -0.0077688694, 322 ULP from
-0.0077687195): an approximation of absolute error ~1e-7 (the vectors fit Abramowitz & Stegun 7.1.26,
1 - (a1 t + ... + a5 t^5) e^(-x^2), within a few float32 steps, but not bit for bit, so dmlops keeps the true erf).
erf(±inf) = ±1; erf(-0) is +0 (float32_2x3x4x5), where IEEE keeps -0: every lowering makes a zero result of the
framework's erf +0 (dmlops.ops._unary_math).
"""
from __future__ import annotations

import numpy as np

from ..types import ScaleBias
from ._unary_math import lowering, samples

# erf from Abramowitz & Stegun Table 7.1 (10 digits): erf(0.5) = 0.5204998778, erf(1) = 0.8427007929,
# erf(2) = 0.9953222650; erf is odd.


def _samples():
    from ..descs import ElementWiseErf

    return samples(ElementWiseErf, "table", [0, 0.5, 1, -1, 2], [0, 0.5204998778, 0.8427007929, -0.8427007929,
                                                                 0.9953222650],
                   why="10-digit table values and float32 rounding of erf", atol=1e-6,
                   edges=([-0.0, np.inf, -np.inf, np.nan], [0, 1, -1, np.nan]),
                   # ScaleBias {0.5, -1}: [3, 4, 0] -> [0.5, 1, -1].
                   scale_bias=ScaleBias(0.5, -1.0), scaled_x=[3, 4, 0],
                   scaled_y=[0.5204998778, 0.8427007929, -0.8427007929])


reference, to_onnx, to_torch, SAMPLES = lowering("ELEMENT_WISE_ERF", _samples)
