"""DML_OPERATOR_ELEMENT_WISE_CEIL: f(x) = ceil(x), the smallest integer >= x (ScaleBias applied first by the
framework). ceil(-0.5) is -0, and ±inf and NaN pass through, as in IEEE 754 roundToIntegralTowardPositive.

Subnormal inputs are not flushed: DirectML gives ceil(2**-149) = 1 and ceil(-2**-149) = -0 (its vectors:
edge_specials), as the formula does.
"""
from __future__ import annotations

import numpy as np

from ..sample import Sample
from ..types import ScaleBias
from . import _elementwise as ew

EXACT = dict(atol=0, rtol=0, float16_atol=0, float16_rtol=0,
             why="exact: the integer nearest above a float is a float of the same type")
ONE_UP = float(np.nextafter(np.float32(1), np.float32(2)))  # 1 + 2**-23


def reference(desc, x):
    """np.ceil (exact in the input's own type)."""
    return {"OutputTensor": np.ceil(x["InputTensor"])}


def to_onnx(desc, g, x):
    """ONNX Ceil."""
    return {"OutputTensor": g.node("Ceil", [x["InputTensor"]])}


def to_torch(desc, torch, x):
    """torch.ceil."""
    return {"OutputTensor": torch.ceil(x["InputTensor"])}


def _samples():
    from ..descs import ElementWiseCeil as cls

    f32 = np.float32
    return [
        # By hand; 1023.5 is the largest float16 with a fraction (the FLOAT16 variant keeps the other values), and
        # ceil(1 + 2**-23) = 2 (the FLOAT16 variant rounds that input to 1).
        Sample("basic", ew.unary_desc(cls, "FLOAT32", [2, 8]),
               {"InputTensor": np.array([[-1.5, -0.5, -0.0, 0.5, 1, 1.2, 2.5, -2.5],
                                         [np.inf, -np.inf, np.nan, 1023.5, -1023.5, 60000, ONE_UP, -60000]], f32)},
               {"OutputTensor": np.array([[-1, -0.0, -0.0, 1, 1, 2, 3, -2],
                                          [np.inf, -np.inf, np.nan, 1024, -1023, 60000, 2, -60000]], f32)},
               **EXACT),
        # 8388607.5 = 2**23 - 0.5 is the largest float32 with a fraction; 1e10 and 2**24 have none. FLOAT16
        # cannot hold these values: no FLOAT16 variant.
        Sample("large_float32", ew.unary_desc(cls, "FLOAT32", [5]),
               {"InputTensor": np.array([8388607.5, -8388607.5, 1e10, -1e10, 16777216], f32)},
               {"OutputTensor": np.array([8388608, -8388607, 1e10, -1e10, 16777216], f32)}, float16=False, **EXACT),
        # ScaleBias 2x - 1: [0.3, 0.75, -0.25, 1] -> [-0.4, 0.5, -1.5, 1] -> [-0, 1, -1, 1].
        Sample("scale_bias", ew.unary_desc(cls, "FLOAT32", [4], scale_bias=ScaleBias(2.0, -1.0)),
               {"InputTensor": np.array([0.3, 0.75, -0.25, 1], f32)},
               {"OutputTensor": np.array([-0.0, 1, -1, 1], f32)}, **EXACT),
        Sample("broadcast", ew.unary_desc(cls, "FLOAT32", [2, 2], strides=[0, 1]),
               {"InputTensor": np.array([-0.5, 1.5], f32)},
               {"OutputTensor": np.array([[-0.0, 2], [-0.0, 2]], f32)}, **EXACT),
        # 8-D (DML_FEATURE_LEVEL_3_0).
        Sample("8d", ew.unary_desc(cls, "FLOAT32", [2, 1, 1, 1, 1, 1, 1, 2]),
               {"InputTensor": np.array([0.1, -0.1, 99.9, -99.9], f32).reshape(2, 1, 1, 1, 1, 1, 1, 2)},
               {"OutputTensor": np.array([1, -0.0, 100, -99], f32).reshape(2, 1, 1, 1, 1, 1, 1, 2)}, **EXACT),
    ]


SAMPLES = _samples()
