"""DML_OPERATOR_ELEMENT_WISE_CONSTANT_POW: f(x) = pow(x, Exponent).

"Negative bases are supported for integral exponents, otherwise this operator returns NaN" (C pow's rule).
"""
from __future__ import annotations

import numpy as np

from ..sample import Sample
from ..types import ScaleBias
from . import _elementwise as ew


def reference(desc, x):
    """pow(x, Exponent) in float64 (Exponent is a FLOAT: rounded to float32 as DirectML stores it)."""
    with np.errstate(all="ignore"):
        return {"OutputTensor": np.power(x["InputTensor"].astype(np.float64), float(np.float32(desc.exponent)))}


def to_onnx(desc, g, x):
    """ONNX Pow with a scalar exponent of the input's dtype."""
    v = x["InputTensor"]
    return {"OutputTensor": g.node("Pow", [v, g.scalar(np.float32(desc.exponent), v)])}


def to_torch(desc, torch, x):
    """torch.pow with a Python float exponent."""
    return {"OutputTensor": torch.pow(x["InputTensor"], float(np.float32(desc.exponent)))}


def _samples():
    from ..descs import ElementWiseConstantPow as cls

    exact = dict(atol=0, rtol=0, why="small integer powers: exact", float16_atol=0, float16_rtol=0)
    return [
        Sample("square", ew.unary_desc(cls, "FLOAT32", [2, 3], exponent=2.0),
               {"InputTensor": np.array([[1, 2, 3], [-2, 0.5, -0.0]], np.float32)},
               {"OutputTensor": np.array([[1, 4, 9], [4, 0.25, 0]], np.float32)}, **exact),
        # sqrt by pow: a negative base with a non-integral exponent is NaN.
        Sample("half", ew.unary_desc(cls, "FLOAT32", [4], exponent=0.5),
               {"InputTensor": np.array([4, -4, 0, 2.25], np.float32)},
               {"OutputTensor": np.array([2, np.nan, 0, 1.5], np.float32)}, **exact),
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
