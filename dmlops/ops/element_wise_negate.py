"""DML_OPERATOR_ELEMENT_WISE_NEGATE: f(x) = -x (floats and signed integers).

Floats flip the sign bit (-(+0) = -0, -NaN is NaN). Signed integers, from DirectML's vectors: INT8 is negated in a
32-bit register and stored saturated, so -(-128) = 127 (sample_int8_wrap: [-128, 127, -127] gives [127, -127,
127]), as ELEMENT_WISE_ABS does (edge_int8_abs_min); INT16 is taken to do the same (-(-32768) = 32767: unverified,
as for ABS); INT32 wraps, -INT_MIN = INT_MIN (int32_3x4x5 gives -(-2147483648) = -2147483648), and INT64 is taken to
wrap as well (unverified). ONNX Neg and torch.neg wrap INT8 and INT16 too, so the lowerings negate those in int32
and clamp.
"""
from __future__ import annotations

import numpy as np

from ..sample import Sample
from . import _elementwise as ew


_NARROW = (np.dtype(np.int8), np.dtype(np.int16))  # negated in 32 bits, stored saturated


def reference(desc, x):
    """np.negative (INT8/INT16 saturate, wider integers wrap)."""
    v = x["InputTensor"]
    if v.dtype in _NARROW:
        return {"OutputTensor": np.minimum(-v.astype(np.int32), ew.int_range(v.dtype)[1]).astype(v.dtype)}
    with np.errstate(over="ignore"):
        return {"OutputTensor": np.negative(v)}


def to_onnx(desc, g, x):
    """ONNX Neg (INT8/INT16 in int32, then clamped to the type's maximum)."""
    v = x["InputTensor"]
    dtype = g.dtype(v)
    if dtype in _NARROW:
        y = g.node("Min", [g.node("Neg", [g.cast(v, np.int32)]), ew.onnx_const(g, ew.int_range(dtype)[1], np.int32)])
        return {"OutputTensor": g.cast(y, dtype)}
    return {"OutputTensor": g.node("Neg", [v])}


def to_torch(desc, torch, x):
    """torch.neg (INT8/INT16 in int32, then clamped to the type's maximum)."""
    v = x["InputTensor"]
    if v.dtype in (torch.int8, torch.int16):
        hi = ew.int_range(ew.torch_numpy_dtype(torch, v.dtype))[1]
        return {"OutputTensor": torch.neg(v.to(torch.int32)).clamp(max=hi).to(v.dtype)}
    return {"OutputTensor": torch.neg(v)}


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
        # INT8 saturates (DirectML's sample_int8_wrap): -(-128) = 127; -127 and 127 swap. INT16 likewise.
        Sample("int8_wrap", ew.unary_desc(cls, "INT8", [3]), {"InputTensor": ew.int_array([-128, 127, -127], "INT8")},
               {"OutputTensor": ew.int_array([127, -127, 127], "INT8")}, atol=0, rtol=0, why="exact"),
        Sample("int16_saturates", ew.unary_desc(cls, "INT16", [3]),
               {"InputTensor": ew.int_array([-32768, 32767, -1], "INT16")},
               {"OutputTensor": ew.int_array([32767, -32767, 1], "INT16")}, atol=0, rtol=0, why="exact"),
        # INT32 and INT64 wrap: -INT_MIN = INT_MIN (DirectML's int32_3x4x5 for INT32).
        Sample("int32_wrap", ew.unary_desc(cls, "INT32", [2]),
               {"InputTensor": ew.int_array([-2**31, 2**31 - 1], "INT32")},
               {"OutputTensor": ew.int_array([-2**31, -2**31 + 1], "INT32")}, atol=0, rtol=0, why="exact"),
        Sample("int64_wrap", ew.unary_desc(cls, "INT64", [2]),
               {"InputTensor": ew.int_array([-2**63, 2**63 - 1], "INT64")},
               {"OutputTensor": ew.int_array([-2**63, -2**63 + 1], "INT64")}, atol=0, rtol=0, why="exact"),
    ]


SAMPLES = _samples()
