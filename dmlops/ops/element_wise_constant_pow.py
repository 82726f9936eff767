"""DML_OPERATOR_ELEMENT_WISE_CONSTANT_POW: f(x) = pow(x, Exponent).

"Negative bases are supported for integral exponents, otherwise this operator returns NaN" (C pow's rule).
DirectML computes it as ELEMENT_WISE_POW does, exp2(Exponent * log2|x|) in float32 (ew.pow_directml; DirectML's
vectors: edge_constant_pow_0_5_domain gives (-0) ** 0.5 = +0, (2**-149) ** 0.5 = 2**-63.5 and
(1e30) ** 0.5 = 1.0000007e15 where IEEE pow gives 1e15); every backend computes that.
"""
from __future__ import annotations

import numpy as np

from ..sample import Sample
from ..types import ScaleBias
from . import _elementwise as ew


def reference(desc, x):
    """ew.pow_directml(x, Exponent) in float32 (Exponent is a FLOAT: rounded to float32 as DirectML stores it)."""
    v = x["InputTensor"]
    return {"OutputTensor": ew.pow_directml(v, np.full(v.shape, np.float32(desc.exponent)))}


def to_onnx(desc, g, x):
    """ew.onnx_pow_directml with a scalar exponent."""
    return {"OutputTensor": ew.onnx_pow_directml(g, x["InputTensor"], ew.onnx_const(g, desc.exponent, np.float32))}


def to_torch(desc, torch, x):
    """ew.torch_pow_directml with a scalar exponent."""
    v = x["InputTensor"]
    return {"OutputTensor": ew.torch_pow_directml(torch, v, torch.full((), float(np.float32(desc.exponent)),
                                                                        dtype=torch.float32, device=v.device))}


def _samples():
    from ..descs import ElementWiseConstantPow as cls

    exact = dict(atol=0, rtol=0, why="small integer powers: exact", float16_atol=0, float16_rtol=0)
    return [
        Sample("square", ew.unary_desc(cls, "FLOAT32", [2, 3], exponent=2.0),
               {"InputTensor": np.array([[1, 2, 3], [-2, 0.5, -0.0]], np.float32)},
               {"OutputTensor": np.array([[1, 4, 9], [4, 0.25, 0]], np.float32)}, **exact),
        # sqrt by pow: a negative base with a non-integral exponent is NaN; DirectML's exp2(0.5 log2 2.25) is
        # 1.5000001, one float32 step above 1.5 (its sample_half), while 4 ** 0.5 is 2 exactly.
        Sample("half", ew.unary_desc(cls, "FLOAT32", [4], exponent=0.5),
               {"InputTensor": np.array([4, -4, 0, 2.25], np.float32)},
               {"OutputTensor": np.array([2, np.nan, 0, 1.5000001], np.float32)}, atol=0, rtol=1.2e-7,
               why="DirectML's exp2/log2 (1.5000001) vs the correctly rounded 1.5: one float32 step", float16_atol=0,
               float16_rtol=0),
        # Negative integral exponent: (-2)^-3 = -0.125, 0^-1 = inf, 4^-1 = 0.25.
        Sample("negative_exponent", ew.unary_desc(cls, "FLOAT32", [3], exponent=-3.0),
               {"InputTensor": np.array([-2, 0, 0.5], np.float32)},
               {"OutputTensor": np.array([-0.125, np.inf, 8], np.float32)}, **exact),
        # ScaleBias 2x + 1 then cube: [0, 0.5, -1] -> [1, 2, -1] -> [1, 8, -1].
        Sample("scale_bias", ew.unary_desc(cls, "FLOAT32", [3], exponent=3.0, scale_bias=ScaleBias(2.0, 1.0)),
               {"InputTensor": np.array([0, 0.5, -1], np.float32)},
               {"OutputTensor": np.array([1, 8, -1], np.float32)}, **exact),
        Sample("fractional", ew.unary_desc(cls, "FLOAT32", [2, 2], strides=[0, 1], exponent=1.5),
               {"InputTensor": np.array([2, 9], np.float32)},
               {"OutputTensor": np.array([[2 * np.sqrt(2), 27], [2 * np.sqrt(2), 27]], np.float32)},
               atol=1e-6, rtol=1e-6, why="float32 rounding of pow"),
    ]


SAMPLES = _samples()
