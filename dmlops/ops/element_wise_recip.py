"""DML_OPERATOR_ELEMENT_WISE_RECIP: f(x) = 1 / x (1 / ±0 = ±inf)."""
from __future__ import annotations

import numpy as np

from ..sample import Sample
from ..types import ScaleBias
from . import _elementwise as ew


def reference(desc, x):
    """1 / x in float64."""
    with np.errstate(divide="ignore"):
        return {"OutputTensor": 1.0 / x["InputTensor"].astype(np.float64)}


def to_onnx(desc, g, x):
    """ONNX Reciprocal."""
    return {"OutputTensor": g.node("Reciprocal", [x["InputTensor"]])}


def to_torch(desc, torch, x):
    """torch.reciprocal."""
    return {"OutputTensor": torch.reciprocal(x["InputTensor"])}


def _samples():
    from ..descs import ElementWiseRecip as cls

    exact = dict(atol=0, rtol=0, why="reciprocals of powers of two: exact", float16_atol=0, float16_rtol=0)
    return [
        Sample("basic", ew.unary_desc(cls, "FLOAT32", [2, 3]),
               {"InputTensor": np.array([[2, -0.5, 0], [-0.0, np.inf, 8]], np.float32)},
               {"OutputTensor": np.array([[0.5, -2, np.inf], [-np.inf, 0, 0.125]], np.float32)}, **exact),
        # ScaleBias 0.5x + 1: [2, -4, 6] -> [2, -1, 4] -> [0.5, -1, 0.25].
        Sample("scale_bias", ew.unary_desc(cls, "FLOAT32", [3], scale_bias=ScaleBias(0.5, 1.0)),
               {"InputTensor": np.array([2, -4, 6], np.float32)},
               {"OutputTensor": np.array([0.5, -1, 0.25], np.float32)}, **exact),
        Sample("thirds", ew.unary_desc(cls, "FLOAT32", [2, 2], strides=[0, 1]),
               {"InputTensor": np.array([3, -3], np.float32)},
               {"OutputTensor": np.array([[1 / 3, -1 / 3], [1 / 3, -1 / 3]], np.float32)},
               atol=0, rtol=1e-7, why="division is correctly rounded"),
    ]


SAMPLES = _samples()
