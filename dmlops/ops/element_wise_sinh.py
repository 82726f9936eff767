"""DML_OPERATOR_ELEMENT_WISE_SINH: f(x) = sinh(x) (ScaleBias applied first by the framework).

DirectML's answers are within 3 float32 ULP of sinh, or an absolute 1e-7 near 0, where its exp-based form
(e^x - e^-x) / 2 cancels (vector float32_2x3x4x5: sinh(-0.009720792) = -0.009720981, 39 ULP from -0.009720945).
sinh(-0) is +0 (float32_2x3x4x5), as that form gives, where IEEE keeps -0: every lowering makes a zero result of
the framework's sinh +0 (dmlops.ops._unary_math).
"""
from __future__ import annotations

import numpy as np

from ..types import ScaleBias
from ._unary_math import lowering, samples

LN2, LN3 = np.log(2), np.log(3)
# sinh(ln a) = (a - 1/a) / 2: a = 2 -> 3/4, a = 1/2 -> -3/4, a = 3 -> 4/3.


def _samples():
    from ..descs import ElementWiseSinh

    return samples(ElementWiseSinh, "basic", [0, LN2, -LN2, LN3], [0, 0.75, -0.75, 4 / 3],
                   why="float32 rounding of ln 2 and ln 3", atol=1e-6,
                   edges=([-0.0, np.inf, -np.inf, np.nan], [0, np.inf, -np.inf, np.nan]),
                   # ScaleBias {ln 2, 0}: [1, -1, 0] -> [ln 2, -ln 2, 0] -> [3/4, -3/4, 0].
                   scale_bias=ScaleBias(float(LN2), 0.0), scaled_x=[1, -1, 0], scaled_y=[0.75, -0.75, 0])


reference, to_onnx, to_torch, SAMPLES = lowering("ELEMENT_WISE_SINH", _samples)
