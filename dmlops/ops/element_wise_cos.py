"""DML_OPERATOR_ELEMENT_WISE_COS: f(x) = cos(x) (ScaleBias applied first by the framework).

DirectML's answers are within 1 float32 ULP of cos (vectors float32_2x3x4x5, float32_scalebias); cos(±inf) and
cos(NaN) are NaN. Every lowering calls the framework's cos (dmlops.ops._unary_math).
"""
from __future__ import annotations

import numpy as np

from ..types import ScaleBias
from ._unary_math import lowering, samples

PI = np.pi
# cos 0 = 1, cos(pi/3) = 1/2, cos(pi/2) = 0, cos(pi) = -1, cos(-pi/3) = 1/2.


def _samples():
    from ..descs import ElementWiseCos

    return samples(ElementWiseCos, "basic", [0, PI / 3, PI / 2, PI, -PI / 3], [1, 0.5, 0, -1, 0.5],
                   why="float32 rounding of pi", atol=1e-6,
                   edges=([-0.0, np.inf, -np.inf, np.nan], [1, np.nan, np.nan, np.nan]),
                   # ScaleBias {pi, 0}: [0, 1/2, 1] -> [0, pi/2, pi] -> [1, 0, -1].
                   scale_bias=ScaleBias(float(PI), 0.0), scaled_x=[0, 0.5, 1], scaled_y=[1, 0, -1])


reference, to_onnx, to_torch, SAMPLES = lowering("ELEMENT_WISE_COS", _samples)
