"""DML_OPERATOR_ELEMENT_WISE_EXP: f(x) = exp(x) (ScaleBias applied first by the framework)."""
from __future__ import annotations

import numpy as np

from ..sample import Sample
from ..types import ScaleBias
from . import _elementwise as ew


def reference(desc, x):
    """exp(x) in float64 (overflow gives inf)."""
    with np.errstate(over="ignore"):
        return {"OutputTensor": np.exp(x["InputTensor"].astype(np.float64))}


def to_onnx(desc, g, x):
    """ONNX Exp."""
    return {"OutputTensor": g.node("Exp", [x["InputTensor"]])}


def to_torch(desc, torch, x):
    """torch.exp."""
    return {"OutputTensor": torch.exp(x["InputTensor"])}


def _samples():
    from ..descs import ElementWiseExp as cls

    ln2 = np.log(2)
    return [
        # exp(0) = 1, exp(ln 2) = 2, exp(-ln 2) = 0.5, exp(3 ln 2) = 8, exp(-inf) = 0, exp(100) overflows float32.
        Sample("basic", ew.unary_desc(cls, "FLOAT32", [2, 3]),
               {"InputTensor": np.array([[0, ln2, -ln2], [3 * ln2, -np.inf, 100]], np.float32)},
               {"OutputTensor": np.array([[1, 2, 0.5], [8, 0, np.inf]], np.float32)},
               atol=1e-6, rtol=1e-6, why="float32 rounding of ln 2 and of exp"),
        # ScaleBias 2x - 1: [0.5, 1, 0] -> [0, 1, -1] -> [1, e, 1/e].
        Sample("scale_bias", ew.unary_desc(cls, "FLOAT32", [3], scale_bias=ScaleBias(2.0, -1.0)),
               {"InputTensor": np.array([0.5, 1, 0], np.float32)},
               {"OutputTensor": np.array([1, np.e, 1 / np.e], np.float32)},
               atol=1e-6, rtol=1e-6, why="float32 rounding of exp"),
        Sample("broadcast", ew.unary_desc(cls, "FLOAT32", [2, 2], strides=[0, 1]),
               {"InputTensor": np.array([0, ln2], np.float32)},
               {"OutputTensor": np.array([[1, 2], [1, 2]], np.float32)},
               atol=1e-6, rtol=1e-6, why="float32 rounding of ln 2 and of exp"),
    ]


SAMPLES = _samples()
