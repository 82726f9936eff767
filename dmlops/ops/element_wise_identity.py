"""DML_OPERATOR_ELEMENT_WISE_IDENTITY: f(x) = x.

With Strides it copies between layouts (transpose, broadcast); the framework reads the strided input and
applies ScaleBias (x * Scale + Bias) before the operator. NaN payloads and -0.0 pass through bit-exactly, also
through ScaleBias {1, 0} (DirectML's vectors: edge_neg_zero_scalebias_1_0): dmlops.lower adds a zero Bias not at
all, since -0.0 + 0.0 would give +0.0.
"""
from __future__ import annotations

import numpy as np

from ..sample import Sample
from ..types import ScaleBias
from . import _elementwise as ew


def reference(desc, x):
    """A copy of x."""
    return {"OutputTensor": np.array(x["InputTensor"], copy=True)}


def to_onnx(desc, g, x):
    """ONNX Identity."""
    return {"OutputTensor": g.node("Identity", [x["InputTensor"]])}


def to_torch(desc, torch, x):
    """A clone (the result must not alias the caller's input buffer)."""
    return {"OutputTensor": x["InputTensor"].clone()}


def _samples():
    from ..descs import ElementWiseIdentity as cls

    exact = dict(atol=0, rtol=0, why="a copy: exact", float16_atol=0, float16_rtol=0)
    out = [
        Sample("basic", ew.unary_desc(cls, "FLOAT32", [2, 3]),
               {"InputTensor": np.array([[1.5, -2, 0], [np.inf, -0.0, np.nan]], np.float32)},
               {"OutputTensor": np.array([[1.5, -2, 0], [np.inf, -0.0, np.nan]], np.float32)}, **exact),
        # Buffer [1, 4, 2, 5, 3, 6] read with strides [1, 2] is the transpose of a column-major [2, 3].
        Sample("transpose", ew.unary_desc(cls, "FLOAT32", [2, 3], strides=[1, 2]),
               {"InputTensor": np.array([1, 4, 2, 5, 3, 6], np.float32)},
               {"OutputTensor": np.array([[1, 2, 3], [4, 5, 6]], np.float32)}, **exact),
        # One row through strides [0, 1] copied into both output rows.
        Sample("broadcast", ew.unary_desc(cls, "FLOAT32", [2, 3], strides=[0, 1]),
               {"InputTensor": np.array([7, 8, 9], np.float32)},
               {"OutputTensor": np.array([[7, 8, 9], [7, 8, 9]], np.float32)}, **exact),
        # ScaleBias 2x + 0.5: [1, 2, -1, 0] -> [2.5, 4.5, -1.5, 0.5].
        Sample("scale_bias", ew.unary_desc(cls, "FLOAT32", [4], scale_bias=ScaleBias(2.0, 0.5)),
               {"InputTensor": np.array([1, 2, -1, 0], np.float32)},
               {"OutputTensor": np.array([2.5, 4.5, -1.5, 0.5], np.float32)}, **exact),
        # FLOAT64 (DML_FEATURE_LEVEL_4_1): values float32 cannot hold survive.
        Sample("float64", ew.unary_desc(cls, "FLOAT64", [4]),
               {"InputTensor": np.array([1 + 2**-40, 1e300, -2.5e-310, np.nan])},
               {"OutputTensor": np.array([1 + 2**-40, 1e300, -2.5e-310, np.nan])}, atol=0, rtol=0, why="exact"),
    ]
    for t in ew.INTEGERS:  # the extremes of every integer type survive
        lo, hi = ew.int_range(t.lower())
        v = ew.int_array([lo, hi, 0, 1], t)
        out.append(Sample(f"int_{t.lower()}", ew.unary_desc(cls, t, [4]), {"InputTensor": v}, {"OutputTensor": v},
                          atol=0, rtol=0, why="a copy: exact"))
    return out


SAMPLES = _samples()
