"""DML_OPERATOR_ELEMENT_WISE_ABS: f(x) = abs(x) (signed integers and floats; ScaleBias applied first).

The most negative integer (DirectML's vectors: edge_int8_abs_min, edge_int32_abs_min): INT8 -128 gives 127
(DirectML computes in a 32-bit register and saturates the narrow result; INT16 is taken to do the same), while
INT32 -2**31 wraps to itself (as does INT64 here: unverified). ONNX Abs and torch.abs wrap INT8 -128 to -128.
"""
from __future__ import annotations

import numpy as np

from ..sample import Sample
from ..types import ScaleBias
from . import _elementwise as ew

_NARROW = (np.dtype(np.int8), np.dtype(np.int16))  # computed in 32 bits, stored saturated


def reference(desc, x):
    """|x| (-0 gives +0, NaN stays NaN; INT8/INT16 saturate, wider integers wrap)."""
    v = x["InputTensor"]
    if v.dtype in _NARROW:
        return {"OutputTensor": np.minimum(np.abs(v.astype(np.int32)), ew.int_range(v.dtype)[1]).astype(v.dtype)}
    with np.errstate(over="ignore"):
        return {"OutputTensor": np.abs(v)}


def to_onnx(desc, g, x):
    """ONNX Abs (INT8/INT16 in int32, then saturated)."""
    v = x["InputTensor"]
    dtype = g.dtype(v)
    if dtype in _NARROW:
        y = g.node("Min", [g.node("Abs", [g.cast(v, np.int32)]), ew.onnx_const(g, ew.int_range(dtype)[1], np.int32)])
        return {"OutputTensor": g.cast(y, dtype)}
    return {"OutputTensor": g.node("Abs", [v])}


def to_torch(desc, torch, x):
    """torch.abs (INT8/INT16 in int32, then saturated)."""
    v = x["InputTensor"]
    if v.dtype in (torch.int8, torch.int16):
        hi = ew.int_range(ew.torch_numpy_dtype(torch, v.dtype))[1]
        return {"OutputTensor": torch.abs(v.to(torch.int32)).clamp(max=hi).to(v.dtype)}
    return {"OutputTensor": torch.abs(v)}


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
