"""DML_OPERATOR_ELEMENT_WISE_NEGATE: f(x) = -x (floats and signed integers).

Floats flip the sign bit (-(+0) = -0, -NaN is NaN). Signed integers wrap: -INT_MIN = INT_MIN (DirectML's vectors:
int32_3x4x5 gives -(-2147483648) = -2147483648), as ONNX Neg and torch.neg do.
"""
from __future__ import annotations

import numpy as np

from ..sample import Sample
from . import _elementwise as ew


def reference(desc, x):
    """np.negative (integers wrap)."""
    with np.errstate(over="ignore"):
        return {"OutputTensor": np.negative(x["InputTensor"])}


def to_onnx(desc, g, x):
    """ONNX Neg (floats and int8/int16/int32/int64: the DirectML provider's Neg types)."""
    return {"OutputTensor": g.node("Neg", [x["InputTensor"]])}


def to_torch(desc, torch, x):
    """torch.neg (wraps for integers)."""
    return {"OutputTensor": torch.neg(x["InputTensor"])}


def _samples():
    from ..descs import ElementWiseNegate as cls

    return [
        Sample("basic", ew.unary_desc(cls, "FLOAT32", [2, 3]),
               {"InputTensor": np.array([[1, -2.5, 0], [-0.0, np.inf, -np.inf]], np.float32)},
               {"OutputTensor": np.array([[-1, 2.5, -0.0], [0, -np.inf, np.inf]], np.float32)},
               atol=0, rtol=0, why="a sign flip: exact", float16_atol=0, float16_rtol=0),
        # A zero-strided row read twice.
        Sample("broadcast", ew.unary_desc(cls, "FLOAT32", [2, 3], strides=[0, 1]),
               {"InputTensor": np.array([1.5, -3, 0.25], np.float32)},
               {"OutputTensor": np.array([[-1.5, 3, -0.25], [-1.5, 3, -0.25]], np.float32)},
               atol=0, rtol=0, why="exact", float16_atol=0, float16_rtol=0),
    ] + ew.integer_samples(lambda t: ew.unary_desc(cls, t, [4]), ew.SIGNED, {"InputTensor": [1, -2, 0, 100]},
                           {"OutputTensor": [-1, 2, 0, -100]}, why="exact") + [
        # Two's complement: -(-128) wraps to -128; -127 and 127 swap.
        Sample("int8_wrap", ew.unary_desc(cls, "INT8", [3]), {"InputTensor": ew.int_array([-128, 127, -127], "INT8")},
               {"OutputTensor": ew.int_array([-128, -127, 127], "INT8")}, atol=0, rtol=0, why="exact"),
        Sample("int64_wrap", ew.unary_desc(cls, "INT64", [2]),
               {"InputTensor": ew.int_array([-2**63, 2**63 - 1], "INT64")},
               {"OutputTensor": ew.int_array([-2**63, -2**63 + 1], "INT64")}, atol=0, rtol=0, why="exact"),
    ]


SAMPLES = _samples()
