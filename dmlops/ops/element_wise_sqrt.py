"""DML_OPERATOR_ELEMENT_WISE_SQRT: f(x) = sqrt(x) (negative x gives NaN; sqrt(-0) = -0)."""
from __future__ import annotations

import numpy as np

from ..sample import Sample
from ..types import ScaleBias
from . import _elementwise as ew


def reference(desc, x):
    """sqrt(x) in float64."""
    with np.errstate(invalid="ignore"):
        return {"OutputTensor": np.sqrt(x["InputTensor"].astype(np.float64))}


def to_onnx(desc, g, x):
    """ONNX Sqrt."""
    return {"OutputTensor": g.node("Sqrt", [x["InputTensor"]])}


def to_torch(desc, torch, x):
    """torch.sqrt."""
    return {"OutputTensor": torch.sqrt(x["InputTensor"])}


def _samples():
    from ..descs import ElementWiseSqrt as cls

    exact = dict(atol=0, rtol=0, why="square roots of perfect squares: exact", float16_atol=0, float16_rtol=0)
    return [
        Sample("basic", ew.unary_desc(cls, "FLOAT32", [2, 3]),
               {"InputTensor": np.array([[4, 0.25, 0], [-1, np.inf, -0.0]], np.float32)},
               {"OutputTensor": np.array([[2, 0.5, 0], [np.nan, np.inf, -0.0]], np.float32)}, **exact),
        # ScaleBias 4x: [1, 4, 0.25] -> [4, 16, 1] -> [2, 4, 1].
        Sample("scale_bias", ew.unary_desc(cls, "FLOAT32", [3], scale_bias=ScaleBias(4.0, 0.0)),
               {"InputTensor": np.array([1, 4, 0.25], np.float32)},
               {"OutputTensor": np.array([2, 4, 1], np.float32)}, **exact),
        Sample("broadcast", ew.unary_desc(cls, "FLOAT32", [2, 2], strides=[1, 0]),
               {"InputTensor": np.array([9, 2], np.float32)},
               {"OutputTensor": np.array([[3, 3], [np.sqrt(2), np.sqrt(2)]], np.float32)},
               atol=0, rtol=1e-7, why="sqrt is correctly rounded", float16_atol=0, float16_rtol=1e-3),
    ]


SAMPLES = _samples()
