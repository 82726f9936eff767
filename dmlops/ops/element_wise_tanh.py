"""DML_OPERATOR_ELEMENT_WISE_TANH: f(x) = tanh(x) (ScaleBias applied first by the framework).

DirectML's answers are within 3 float32 ULP of tanh, or an absolute 2.4e-7 near 0, where its exp-based form
cancels (vector float32_scalebias: tanh(0.001973778) = 0.0019737482, 117 ULP from 0.0019737754), and they are not
odd (float32_2x3x4x5: tanh(1) = 0.76159406, tanh(-1) = -0.76159418). tanh(±inf) = ±1; tanh(-0) is +0
(float32_2x3x4x5), where IEEE keeps -0: every lowering makes a zero result of the framework's tanh +0
(dmlops.ops._unary_math).
ONNX Runtime's DirectML provider never emits this operator (ONNX Tanh becomes ACTIVATION_TANH, which has no
ScaleBias); the ONNX lowering is Tanh.
"""
from __future__ import annotations

import numpy as np

from ..types import ScaleBias
from ._unary_math import lowering, samples

LN2, LN3 = np.log(2), np.log(3)
# tanh(ln a) = (a^2 - 1) / (a^2 + 1): a = 2 -> 3/5, a = 1/2 -> -3/5, a = 3 -> 8/10.


def _samples():
    from ..descs import ElementWiseTanh

    return samples(ElementWiseTanh, "basic", [0, LN2, -LN2, LN3], [0, 0.6, -0.6, 0.8],
                   why="float32 rounding of ln 2 and ln 3", atol=1e-6,
                   edges=([-0.0, np.inf, -np.inf, np.nan], [0, 1, -1, np.nan]),
                   # ScaleBias {ln 3, -ln 3}: [1, 2, 0] -> [0, ln 3, -ln 3] -> [0, 4/5, -4/5].
                   scale_bias=ScaleBias(float(LN3), float(-LN3)), scaled_x=[1, 2, 0], scaled_y=[0, 0.8, -0.8])


reference, to_onnx, to_torch, SAMPLES = lowering("ELEMENT_WISE_TANH", _samples)
