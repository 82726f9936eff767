"""DML_OPERATOR_ELEMENT_WISE_CLIP: f(x) = max(Min, min(x, Max)).

Differences from ONNX Clip and torch.clamp, which give Max when Min > Max: DirectML's formula gives Min, so
the lowerings apply min then max explicitly. For non-float tensors "Min and Max are cast to the tensor data
type before applying the clipping operation (which for integers means truncating toward zero)"; values
outside the type saturate (ew.attribute_value). NaN inputs give Max, clipped by Min (DirectML's vectors:
edge_min_*_max_*): DirectML's min/max return the non-NaN operand (ew.float_min / ew.float_max), where ONNX Clip
and torch.clamp keep NaN.
"""
from __future__ import annotations

import numpy as np

from ..sample import Sample
from ..types import ScaleBias
from . import _elementwise as ew


def reference(desc, x):
    """max(min(x, Max), Min) with the bounds in the tensor's type (DirectML's min/max for floats)."""
    v = x["InputTensor"]
    lo, hi = ew.attribute_value(desc.min, v.dtype), ew.attribute_value(desc.max, v.dtype)
    if v.dtype.kind == "f":
        f16 = ew.is_float16(desc)
        return {"OutputTensor": ew.float_max(ew.float_min(v, np.asarray(hi, v.dtype), f16), np.asarray(lo, v.dtype),
                                             f16)}
    return {"OutputTensor": np.maximum(np.minimum(v, np.asarray(hi, v.dtype)), np.asarray(lo, v.dtype))}


def to_onnx(desc, g, x):
    """DirectML's max(min(x, Max), Min) for floats (ONNX Min/Max keep NaN); ONNX Max(Min(x, Max), Min) for
    integers (int16/uint16 through int32)."""
    dtype = g.dtype(x["InputTensor"])
    if dtype.kind == "f":
        f16 = ew.is_float16(desc)
        lo, hi = (ew.onnx_const(g, ew.attribute_value(b, np.float32), dtype) for b in (desc.min, desc.max))
        return {"OutputTensor": ew.onnx_float_max(g, ew.onnx_float_min(g, x["InputTensor"], hi, f16), lo, f16)}
    v, back = ew.onnx_ordered(g, x["InputTensor"])
    lo, hi = ew.attribute_value(desc.min, dtype), ew.attribute_value(desc.max, dtype)
    y = g.node("Max", [g.node("Min", [v, ew.onnx_const(g, hi, g.dtype(v))]), ew.onnx_const(g, lo, g.dtype(v))])
    return {"OutputTensor": back(y)}


def to_torch(desc, torch, x):
    """DirectML's max(min(x, Max), Min) for floats (torch.clamp keeps NaN); clamp(max=Max) then clamp(min=Min)
    for integers (uint16/uint32/uint64 through an order-preserving int64)."""
    t = x["InputTensor"]
    if t.is_floating_point():
        f16 = ew.is_float16(desc)
        lo, hi = (torch.full((), ew.attribute_value(b, np.float32), dtype=t.dtype, device=t.device)
                  for b in (desc.min, desc.max))
        return {"OutputTensor": ew.torch_float_max(torch, ew.torch_float_min(torch, t, hi, f16), lo, f16)}
    dtype = ew.torch_numpy_dtype(torch, t.dtype)
    lo, hi = ew.attribute_value(desc.min, dtype), ew.attribute_value(desc.max, dtype)
    v, back = ew.torch_ordered(torch, t)
    if ew.is_integer(dtype):
        lo, hi = ew.torch_ordered_scalar(torch, lo, t.dtype), ew.torch_ordered_scalar(torch, hi, t.dtype)
    return {"OutputTensor": back(v.clamp(max=hi).clamp(min=lo))}


def _samples():
    from ..descs import ElementWiseClip as cls

    exact = dict(atol=0, rtol=0, why="a select: exact", float16_atol=0, float16_rtol=0)

    def make(t, lo, hi, **kw):
        return ew.unary_desc(cls, t, [6], min=lo, max=hi, **kw)

    return [
        Sample("basic", make("FLOAT32", -1.0, 1.0),
               {"InputTensor": np.array([-2, -1, 0, 0.5, 1, np.inf], np.float32)},
               {"OutputTensor": np.array([-1, -1, 0, 0.5, 1, 1], np.float32)}, **exact),
        # Min > Max: max(2, min(x, 1)) = 2 everywhere (ONNX Clip and torch.clamp would give 1).
        Sample("min_above_max", make("FLOAT32", 2.0, 1.0),
               {"InputTensor": np.array([-5, 0, 1, 1.5, 2, 9], np.float32)},
               {"OutputTensor": np.full(6, 2, np.float32)}, **exact),
        # ScaleBias 10x: [0.05, 0.2, -0.5, 0.08, 1, -0.01] -> [0.5, 2, -5, 0.8, 10, -0.1] -> clipped to [0, 1].
        Sample("scale_bias", make("FLOAT32", 0.0, 1.0, scale_bias=ScaleBias(10.0, 0.0)),
               {"InputTensor": np.array([0.05, 0.25, -0.5, 0.0625, 1, -0.01], np.float32)},
               {"OutputTensor": np.array([0.5, 1, 0, 0.625, 1, 0], np.float32)},
               atol=1e-7, rtol=1e-7, why="10 * 0.05 rounds in float32"),
        Sample("broadcast", ew.unary_desc(cls, "FLOAT32", [2, 3], strides=[0, 1], min=-0.5, max=0.5),
               {"InputTensor": np.array([-3, 0.25, 3], np.float32)},
               {"OutputTensor": np.array([[-0.5, 0.25, 0.5], [-0.5, 0.25, 0.5]], np.float32)}, **exact),
    ] + ew.integer_samples(
        # Min 1.7 -> 1 and Max 100.9 -> 100 (truncated toward zero), for every integer type.
        lambda t: make(t, 1.7, 100.9), ew.INTEGERS, {"InputTensor": [0, 1, 2, 100, 101, 127]},
        {"OutputTensor": [1, 1, 2, 100, 100, 100]}, why="a select: exact") + ew.integer_samples(
        # Min -2.7 -> -2 and Max 3.5 -> 3.
        lambda t: make(t, -2.7, 3.5), ew.SIGNED, {"InputTensor": [-5, -3, -2, 0, 3, 4]},
        {"OutputTensor": [-2, -2, -2, 0, 3, 3]}, why="a select: exact") + [
        # Bounds outside the type saturate: Min -1 -> 0 and Max 300 -> 255 for UINT8.
        Sample("uint8_saturated_bounds", make("UINT8", -1.0, 300.0), {"InputTensor": ew.int_array([0, 5, 255, 1, 2, 3],
                                                                                                 "UINT8")},
               {"OutputTensor": ew.int_array([0, 5, 255, 1, 2, 3], "UINT8")}, atol=0, rtol=0, why="exact"),
        # UINT64 above 2**63 (negative as int64 bits); Max 2**63 + 2**40 is exact in float32 (the field's type).
        Sample("uint64_large", make("UINT64", 2.0**63, 2.0**63 + 2.0**40),
               {"InputTensor": ew.int_array([0, 2**63 - 1, 2**63, 2**63 + 1, 2**63 + 2**40, 2**64 - 1], "UINT64")},
               {"OutputTensor": ew.int_array([2**63, 2**63, 2**63, 2**63 + 1, 2**63 + 2**40, 2**63 + 2**40],
                                             "UINT64")},
               atol=0, rtol=0, why="exact"),
    ]


SAMPLES = _samples()
