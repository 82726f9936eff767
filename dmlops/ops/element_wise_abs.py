"""DML_OPERATOR_ELEMENT_WISE_ABS: f(x) = abs(x) (signed integers and floats; ScaleBias applied first)."""
from __future__ import annotations

import numpy as np

from ..sample import Sample
from ..types import ScaleBias
from . import _elementwise as ew


def reference(desc, x):
    """|x| (-0 gives +0, NaN stays NaN)."""
    return {"OutputTensor": np.abs(x["InputTensor"])}


def to_onnx(desc, g, x):
    """ONNX Abs."""
    return {"OutputTensor": g.node("Abs", [x["InputTensor"]])}


def to_torch(desc, torch, x):
    """torch.abs."""
    return {"OutputTensor": torch.abs(x["InputTensor"])}


def _samples():
    from ..descs import ElementWiseAbs as cls

    exact = dict(atol=0, rtol=0, why="exact", float16_atol=0, float16_rtol=0)
    return [
        Sample("basic", ew.unary_desc(cls, "FLOAT32", [2, 3]),
               {"InputTensor": np.array([[-1.5, 2, -0.0], [-np.inf, np.nan, 3.25]], np.float32)},
               {"OutputTensor": np.array([[1.5, 2, 0], [np.inf, np.nan, 3.25]], np.float32)}, **exact),
        # ScaleBias -2x + 1: [1, -1, 0.5, 2] -> [-1, 3, 0, -3] -> [1, 3, 0, 3].
        Sample("scale_bias", ew.unary_desc(cls, "FLOAT32", [4], scale_bias=ScaleBias(-2.0, 1.0)),
               {"InputTensor": np.array([1, -1, 0.5, 2], np.float32)},
               {"OutputTensor": np.array([1, 3, 0, 3], np.float32)}, **exact),
        Sample("broadcast", ew.unary_desc(cls, "FLOAT32", [2, 2], strides=[0, 1]),
               {"InputTensor": np.array([-4, 5], np.float32)},
               {"OutputTensor": np.array([[4, 5], [4, 5]], np.float32)}, **exact),
    ] + ew.integer_samples(lambda t: ew.unary_desc(cls, t, [4]), ew.SIGNED, {"InputTensor": [-5, 3, 0, -100]},
                           {"OutputTensor": [5, 3, 0, 100]}, why="exact")


SAMPLES = _samples()
