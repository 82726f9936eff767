"""DML_OPERATOR_ELEMENT_WISE_COSH: f(x) = cosh(x) (ScaleBias applied first by the framework).

DirectML's answers are within 3 float32 ULP of cosh (vector float32_2x3x4x5: cosh(-3.7526042) = 21.327715, 3 ULP
above 21.32771); cosh(±inf) = inf. Every lowering calls the framework's cosh (dmlops.ops._unary_math).
"""
from __future__ import annotations

import numpy as np

from ..types import ScaleBias
from ._unary_math import lowering, samples

LN2, LN3 = np.log(2), np.log(3)
# cosh(ln a) = (a + 1/a) / 2: a = 2 or 1/2 -> 5/4, a = 3 -> 5/3.


def _samples():
    from ..descs import ElementWiseCosh

    return samples(ElementWiseCosh, "basic", [0, LN2, -LN2, LN3], [1, 1.25, 1.25, 5 / 3],
                   why="float32 rounding of ln 2 and ln 3", atol=1e-6,
                   edges=([-0.0, np.inf, -np.inf, np.nan], [1, np.inf, np.inf, np.nan]),
                   # ScaleBias {ln 2, ln 2}: [0, -1, -2] -> [ln 2, 0, -ln 2] -> [5/4, 1, 5/4].
                   scale_bias=ScaleBias(float(LN2), float(LN2)), scaled_x=[0, -1, -2], scaled_y=[1.25, 1, 1.25])


reference, to_onnx, to_torch, SAMPLES = lowering("ELEMENT_WISE_COSH", _samples)
