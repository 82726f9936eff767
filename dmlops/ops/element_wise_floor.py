"""DML_OPERATOR_ELEMENT_WISE_FLOOR: f(x) = floor(x), the largest integer <= x (ScaleBias applied first by the
framework). floor(-0) is -0, and ±inf and NaN pass through, as in IEEE 754 roundToIntegralTowardNegative.

Subnormal inputs are not flushed: DirectML gives floor(-2**-149) = -1 and floor(2**-149) = 0 (its vectors:
edge_specials), as the formula does.
"""
from __future__ import annotations

import numpy as np

from ..sample import Sample
from ..types import ScaleBias
from . import _elementwise as ew
from .element_wise_ceil import EXACT, ONE_UP


def reference(desc, x):
    """np.floor (exact in the input's own type)."""
    return {"OutputTensor": np.floor(x["InputTensor"])}


def to_onnx(desc, g, x):
    """ONNX Floor."""
    return {"OutputTensor": g.node("Floor", [x["InputTensor"]])}


def to_torch(desc, torch, x):
    """torch.floor."""
    return {"OutputTensor": torch.floor(x["InputTensor"])}


def _samples():
    from ..descs import ElementWiseFloor as cls

    f32 = np.float32
    return [
        # By hand; 1023.5 is the largest float16 with a fraction (the FLOAT16 variant keeps the other values), and
        # floor(1 + 2**-23) = 1.
        Sample("basic", ew.unary_desc(cls, "FLOAT32", [2, 8]),
               {"InputTensor": np.array([[-1.5, -0.5, -0.0, 0.5, 1, 1.2, 2.5, -2.5],
                                         [np.inf, -np.inf, np.nan, 1023.5, -1023.5, 60000, ONE_UP, -60000]], f32)},
               {"OutputTensor": np.array([[-2, -1, -0.0, 0, 1, 1, 2, -3],
                                          [np.inf, -np.inf, np.nan, 1023, -1024, 60000, 1, -60000]], f32)},
               **EXACT),
        # 8388607.5 = 2**23 - 0.5 is the largest float32 with a fraction; 1e10 and 2**24 have none. FLOAT16
        # cannot hold these values: no FLOAT16 variant.
        Sample("large_float32", ew.unary_desc(cls, "FLOAT32", [5]),
               {"InputTensor": np.array([8388607.5, -8388607.5, 1e10, -1e10, 16777216], f32)},
               {"OutputTensor": np.array([8388607, -8388608, 1e10, -1e10, 16777216], f32)}, float16=False, **EXACT),
        # ScaleBias 2x - 1: [0.3, 0.75, -0.25, 1] -> [-0.4, 0.5, -1.5, 1] -> [-1, 0, -2, 1].
        Sample("scale_bias", ew.unary_desc(cls, "FLOAT32", [4], scale_bias=ScaleBias(2.0, -1.0)),
               {"InputTensor": np.array([0.3, 0.75, -0.25, 1], f32)},
               {"OutputTensor": np.array([-1, 0, -2, 1], f32)}, **EXACT),
        Sample("broadcast", ew.unary_desc(cls, "FLOAT32", [2, 2], strides=[0, 1]),
               {"InputTensor": np.array([-0.5, 1.5], f32)},
               {"OutputTensor": np.array([[-1, 1], [-1, 1]], f32)}, **EXACT),
        # 8-D (DML_FEATURE_LEVEL_3_0).
        Sample("8d", ew.unary_desc(cls, "FLOAT32", [2, 1, 1, 1, 1, 1, 1, 2]),
               {"InputTensor": np.array([0.1, -0.1, 99.9, -99.9], f32).reshape(2, 1, 1, 1, 1, 1, 1, 2)},
               {"OutputTensor": np.array([0, -1, 99, -100], f32).reshape(2, 1, 1, 1, 1, 1, 1, 2)}, **EXACT),
    ]


SAMPLES = _samples()
