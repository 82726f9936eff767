"""DML_OPERATOR_ELEMENT_WISE_LOG: f(x) = ln(x); "if x is negative ... indefinite [NaN]. If x is 0 ... -INF".

Subnormal inputs are not flushed to zero (which would give -inf) and not taken at their value either: DirectML
reads a subnormal x as 2**-127 * (1 + x * 2**126), so ln(2**-149) = -88.02969 = ln 2**-127 where IEEE gives
-103.28 (DirectML's vectors: edge_specials). Every backend computes that (ew.log_directml) in float32.
"""
from __future__ import annotations

import numpy as np

from ..sample import Sample
from ..types import ScaleBias
from . import _elementwise as ew


def reference(desc, x):
    """ln(x) in float32, subnormals as DirectML reads them: ln(0) = -inf, ln(negative) = NaN."""
    return {"OutputTensor": ew.log_directml(x["InputTensor"])}


def to_onnx(desc, g, x):
    """ONNX Log, subnormals as DirectML reads them."""
    return {"OutputTensor": ew.onnx_log_directml(g, g.cast(x["InputTensor"], np.float32))}


def to_torch(desc, torch, x):
    """torch.log, subnormals as DirectML reads them."""
    return {"OutputTensor": ew.torch_log_directml(torch, x["InputTensor"].to(torch.float32))}


def _samples():
    from ..descs import ElementWiseLog as cls

    return [
        # ln 1 = 0, ln e = 1, ln 0.5 = -ln 2, ln 0 = -inf, ln -1 = NaN, ln inf = inf.
        Sample("basic", ew.unary_desc(cls, "FLOAT32", [2, 3]),
               {"InputTensor": np.array([[1, np.e, 0.5], [0, -1, np.inf]], np.float32)},
               {"OutputTensor": np.array([[0, 1, -np.log(2)], [-np.inf, np.nan, np.inf]], np.float32)},
               atol=1e-6, rtol=1e-6, why="float32 rounding of e and of ln"),
        # ScaleBias 2x + 1: [0, 0.5, 1.5] -> [1, 2, 4] -> [0, ln 2, 2 ln 2].
        Sample("scale_bias", ew.unary_desc(cls, "FLOAT32", [3], scale_bias=ScaleBias(2.0, 1.0)),
               {"InputTensor": np.array([0, 0.5, 1.5], np.float32)},
               {"OutputTensor": np.array([0, np.log(2), 2 * np.log(2)], np.float32)},
               atol=1e-6, rtol=1e-6, why="float32 rounding of ln"),
        Sample("transposed", ew.unary_desc(cls, "FLOAT32", [2, 2], strides=[1, 2]),
               {"InputTensor": np.array([1, 4, 2, 8], np.float32)},
               {"OutputTensor": np.log(np.array([[1, 2], [4, 8]], np.float64)).astype(np.float32)},
               atol=1e-6, rtol=1e-6, why="float32 rounding of ln"),
    ]


SAMPLES = _samples()
