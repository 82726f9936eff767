"""DML_OPERATOR_ELEMENT_WISE_TAN: f(x) = tan(x) (ScaleBias applied first by the framework).

DirectML's answers are within 2 float32 ULP of tan (vectors float32_2x3x4x5, float32_scalebias); tan(±inf) and
tan(NaN) are NaN and tan(-0) is -0. Every lowering calls the framework's tan (dmlops.ops._unary_math).
"""
from __future__ import annotations

import numpy as np

from ..types import ScaleBias
from ._unary_math import lowering, samples

PI = np.pi
# tan 0 = 0, tan(pi/4) = 1, tan(-pi/4) = -1, tan(pi/3) = sqrt 3.


def _samples():
    from ..descs import ElementWiseTan

    return samples(ElementWiseTan, "basic", [0, PI / 4, -PI / 4, PI / 3], [0, 1, -1, np.sqrt(3)],
                   why="float32 rounding of pi", atol=1e-6,
                   edges=([-0.0, np.inf, -np.inf, np.nan], [-0.0, np.nan, np.nan, np.nan]),
                   # ScaleBias {pi/4, 0}: [1, -1, 0] -> [pi/4, -pi/4, 0] -> [1, -1, 0].
                   scale_bias=ScaleBias(float(PI / 4), 0.0), scaled_x=[1, -1, 0], scaled_y=[1, -1, 0])


reference, to_onnx, to_torch, SAMPLES = lowering("ELEMENT_WISE_TAN", _samples)
