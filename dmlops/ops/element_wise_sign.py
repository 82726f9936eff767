"""DML_OPERATOR_ELEMENT_WISE_SIGN: f(x) = -1 if x < 0, 1 if x > 0, 0 otherwise ("this includes negative zero").

The docs' "otherwise" includes NaN, and DirectML's vectors agree (float32_2x3x4x5 and float16_3x4x5: sign(NaN) = 0,
sign(-0) = +0), where ONNX Sign, torch.sign and np.sign give NaN for NaN: the float lowerings compare instead.
Unsigned types give 0 or 1.
"""
from __future__ import annotations

import numpy as np

from ..sample import Sample
from . import _elementwise as ew


def reference(desc, x):
    """(x > 0) - (x < 0): 0 for ±0 and NaN."""
    v = x["InputTensor"]
    with np.errstate(invalid="ignore"):
        return {"OutputTensor": ((v > 0).astype(v.dtype) - (v < 0).astype(v.dtype)).astype(v.dtype)}


def to_onnx(desc, g, x):
    """Floats: Cast(x > 0) - Cast(x < 0) (ONNX Sign keeps NaN); integers: ONNX Sign."""
    v = x["InputTensor"]
    dtype = g.dtype(v)
    if dtype.kind != "f":
        return {"OutputTensor": g.node("Sign", [v])}
    zero = ew.onnx_const(g, 0, dtype)
    above = g.cast(g.node("Greater", [v, zero], dtype=np.bool_), dtype)
    below = g.cast(g.node("Less", [v, zero], dtype=np.bool_), dtype)
    return {"OutputTensor": g.node("Sub", [above, below])}


def to_torch(desc, torch, x):
    """Floats: (x > 0) - (x < 0) (torch.sign keeps NaN); signed integers and uint8: torch.sign; uint16/32/64:
    x != 0 (torch has no arithmetic kernels for them)."""
    v = x["InputTensor"]
    if v.is_floating_point():
        return {"OutputTensor": (v > 0).to(v.dtype) - (v < 0).to(v.dtype)}
    if v.dtype in (torch.uint16, torch.uint32, torch.uint64):
        w, back = ew.torch_bits(torch, v)
        return {"OutputTensor": back((w != 0).to(w.dtype))}
    return {"OutputTensor": torch.sign(v)}


def _samples():
    from ..descs import ElementWiseSign as cls

    return [
        Sample("basic", ew.unary_desc(cls, "FLOAT32", [2, 4]),
               {"InputTensor": np.array([[-2.5, -0.0, 0, 3], [np.nan, np.inf, -np.inf, 1e-30]], np.float32)},
               # NaN -> 0 and -0 -> +0, as the docs and DirectML's vectors give them; 1e-30 -> 1.
               {"OutputTensor": np.array([[-1, 0, 0, 1], [0, 1, -1, 1]], np.float32)},
               atol=0, rtol=0, why="a select: exact", float16_atol=0, float16_rtol=0),
        Sample("broadcast", ew.unary_desc(cls, "FLOAT32", [3, 2], strides=[1, 0]),
               {"InputTensor": np.array([-7, 0, 0.5], np.float32)},
               {"OutputTensor": np.array([[-1, -1], [0, 0], [1, 1]], np.float32)},
               atol=0, rtol=0, why="exact", float16_atol=0, float16_rtol=0),
    ] + ew.integer_samples(lambda t: ew.unary_desc(cls, t, [4]), ew.SIGNED, {"InputTensor": [-5, 0, 7, -1]},
                           {"OutputTensor": [-1, 0, 1, -1]}, why="exact") + ew.integer_samples(
        lambda t: ew.unary_desc(cls, t, [4]), ew.UNSIGNED, {"InputTensor": [0, 1, 7, 100]},
        {"OutputTensor": [0, 1, 1, 1]}, why="exact") + [
        # The extremes: INT32_MIN -> -1; UINT64 above 2**63 (negative as int64 bits) -> 1.
        Sample("int32_extremes", ew.unary_desc(cls, "INT32", [2]),
               {"InputTensor": ew.int_array([-2**31, 2**31 - 1], "INT32")},
               {"OutputTensor": ew.int_array([-1, 1], "INT32")}, atol=0, rtol=0, why="exact"),
        Sample("uint64_large", ew.unary_desc(cls, "UINT64", [2]),
               {"InputTensor": ew.int_array([2**64 - 1, 2**63], "UINT64")},
               {"OutputTensor": ew.int_array([1, 1], "UINT64")}, atol=0, rtol=0, why="exact"),
    ]


SAMPLES = _samples()
