"""DML_OPERATOR_ELEMENT_WISE_SIN: f(x) = sin(x) (ScaleBias applied first by the framework).

DirectML's answers are within 1 float32 ULP of sin (vectors float32_2x3x4x5, float32_scalebias); sin(±inf) and
sin(NaN) are NaN and sin(-0) is -0, as IEEE says. Every lowering calls the framework's sin (dmlops.ops._unary_math).
"""
from __future__ import annotations

import numpy as np

from ..types import ScaleBias
from ._unary_math import lowering, samples

PI = np.pi
# sin 0 = 0, sin(pi/6) = 1/2, sin(pi/2) = 1, sin(-pi/2) = -1, sin(pi) = 0.


def _samples():
    from ..descs import ElementWiseSin

    return samples(ElementWiseSin, "basic", [0, PI / 6, PI / 2, -PI / 2, PI], [0, 0.5, 1, -1, 0],
                   why="float32 rounding of pi (sin(float32 pi) = -8.7e-8)", atol=1e-6,
                   edges=([-0.0, np.inf, -np.inf, np.nan], [-0.0, np.nan, np.nan, np.nan]),
                   # ScaleBias {pi, pi/2}: [0, 1/2, 1] -> [pi/2, pi, 3pi/2] -> [1, 0, -1].
                   scale_bias=ScaleBias(float(PI), float(PI / 2)), scaled_x=[0, 0.5, 1], scaled_y=[1, 0, -1])


reference, to_onnx, to_torch, SAMPLES = lowering("ELEMENT_WISE_SIN", _samples)
