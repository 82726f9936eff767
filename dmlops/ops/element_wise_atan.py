"""DML_OPERATOR_ELEMENT_WISE_ATAN: f(x) = atan(x) (ScaleBias applied first by the framework).

DirectML computes Abramowitz & Stegun 4.4.47 on min(|x|, 1) / max(|x|, 1) (dmlops.ops._unary_math), not the IEEE
atan: up to 1.2e-5 away from it (vector float32_2x3x4x5: atan(1) = 0.7854096, pi/4 = 0.7853982), and atan(NaN) =
0.7854096, not NaN (float32_2x3x4x5, float16_3x4x5: D3D's min and max return the non-NaN operand, so NaN reads as
1); atan(±inf) = ±pi/2; atan(-0) = +0. Every lowering writes that polynomial in float32.
"""
from __future__ import annotations

import numpy as np

from ..types import ScaleBias
from ._unary_math import lowering, samples

C = (0.9998660, -0.3302995, 0.1801410, -0.0851330, 0.0208351)  # A&S 4.4.47: atan t ~ t (c0 + c1 t^2 + ... c4 t^8)
P_ONE = sum(C)  # 0.7854096
P_HALF = 0.5 * sum(c * 0.25**i for i, c in enumerate(C))  # 0.46365056
# atan(1) = P_ONE; atan(1/2) = P_HALF; atan(2) = pi/2 - atan(1/2) (t = 1/2); atan(inf) = pi/2 - atan(0) = pi/2;
# atan(-1) = -P_ONE.


def _samples():
    from ..descs import ElementWiseAtan

    return samples(ElementWiseAtan, "polynomial", [0, 1, -1, 0.5, 2, np.inf],
                   [0, P_ONE, -P_ONE, P_HALF, np.pi / 2 - P_HALF, np.pi / 2],
                   why="float32 rounding of the polynomial", atol=1e-6,
                   edges=([np.nan, -np.inf, -0.0], [P_ONE, -np.pi / 2, 0]),
                   # ScaleBias {2, -1}: [1, 0, 1.5] -> [1, -1, 2].
                   scale_bias=ScaleBias(2.0, -1.0), scaled_x=[1, 0, 1.5], scaled_y=[P_ONE, -P_ONE, np.pi / 2 - P_HALF])


reference, to_onnx, to_torch, SAMPLES = lowering("ELEMENT_WISE_ATAN", _samples)
