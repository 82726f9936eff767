"""DML_OPERATOR_ELEMENT_WISE_CLIP1: f(x) = max(Min, min(x, Max)), Min and Max typed by MinMaxDataType.

The docs: MinMaxDataType is "the data type of the Min and Max members, which must match
OutputTensor.DataType" (checked here; the descriptor file cannot express it). Whether Min and Max are representable
in MinMaxDataType is the generic validator's rule (DML_SCALAR_UNION fields). Unlike CLIP's FLOAT fields, the bounds
are values of the tensor's type: INT64/UINT64 bounds are exact and a FLOAT16 bound is a float16.

As for CLIP (see element_wise_clip.py): Min > Max gives Min (DirectML's vector float32_min_1.0_max_-1.0 gives 1
everywhere, where ONNX Clip and torch.clamp give Max), NaN gives Max clipped by Min (float32_min_-1.0_max_1.5 [0]:
1.5; float16_min_-0.5_max_2.0 [0]: 2), because DirectML's min/max return the non-NaN operand (ew.float_min /
ew.float_max), and -0 stays -0. ScaleBias is applied by dmlops.lower before the clip.
"""
from __future__ import annotations

import numpy as np

from ..errors import Problem
from ..sample import Sample
from ..types import DataType, ScaleBias
from ..validation import tensor
from . import _elementwise as ew


def min_max_problems(desc, output: str) -> list[Problem]:
    """MinMaxDataType equals ``output``'s DataType (shared with ELEMENT_WISE_CLIP_GRAD1).

    An UNKNOWN MinMaxDataType is left to the generic validator, which already reports it."""
    y = tensor(desc, output)
    found = desc.min_max_data_type
    if y is None or found == DataType.UNKNOWN or found == y.data_type:
        return []
    return [Problem(desc.OPERATOR_TYPE, "MinMaxDataType", "data_type",
                    f"{found.name} does not match {output}'s DataType {y.data_type.name}; "
                    f"MinMaxDataType must match it.")]


def check(desc, level) -> list[Problem]:
    """MinMaxDataType is OutputTensor's DataType."""
    return min_max_problems(desc, "OutputTensor")


def _bounds(desc, dtype):
    """(Min, Max) as values of the tensor's type: ints exactly, floats as the union's float type holds them."""
    if ew.is_integer(dtype):
        return int(desc.min), int(desc.max)
    held = desc.min_max_data_type.numpy_dtype  # FLOAT16 bounds are float16 values (exact in float32)
    return float(np.asarray(desc.min, held)), float(np.asarray(desc.max, held))


def reference(desc, x):
    """max(min(x, Max), Min) with DirectML's float min/max (the non-NaN operand)."""
    v = x["InputTensor"]
    lo, hi = (np.asarray(b, v.dtype) for b in _bounds(desc, v.dtype))
    if v.dtype.kind == "f":
        f16 = ew.is_float16(desc)
        return {"OutputTensor": ew.float_max(ew.float_min(v, hi, f16), lo, f16)}
    return {"OutputTensor": np.maximum(np.minimum(v, hi), lo)}


def to_onnx(desc, g, x):
    """Floats: DirectML's min then max as selects (ONNX Min/Max keep NaN); integers: ONNX Min then Max with typed
    constants (int16/uint16 through int32)."""
    v = x["InputTensor"]
    dtype = g.dtype(v)
    lo, hi = _bounds(desc, dtype)
    if dtype.kind == "f":
        f16 = ew.is_float16(desc)
        lo, hi = ew.onnx_const(g, lo, dtype), ew.onnx_const(g, hi, dtype)
        return {"OutputTensor": ew.onnx_float_max(g, ew.onnx_float_min(g, v, hi, f16), lo, f16)}
    w, back = ew.onnx_ordered(g, v)
    wtype = g.dtype(w)
    return {"OutputTensor": back(g.node("Max", [g.node("Min", [w, ew.onnx_const(g, hi, wtype)]),
                                                ew.onnx_const(g, lo, wtype)]))}


def to_torch(desc, torch, x):
    """Floats: DirectML's min then max as selects; integers: clamp(max=Max) then clamp(min=Min) (uint16/uint32/uint64
    through an order-preserving int64)."""
    t = x["InputTensor"]
    dtype = ew.torch_numpy_dtype(torch, t.dtype)
    lo, hi = _bounds(desc, dtype)
    if t.is_floating_point():
        f16 = ew.is_float16(desc)
        lo_t, hi_t = (torch.full((), b, dtype=t.dtype, device=t.device) for b in (lo, hi))
        return {"OutputTensor": ew.torch_float_max(torch, ew.torch_float_min(torch, t, hi_t, f16), lo_t, f16)}
    v, back = ew.torch_ordered(torch, t)
    lo, hi = ew.torch_ordered_scalar(torch, lo, t.dtype), ew.torch_ordered_scalar(torch, hi, t.dtype)
    return {"OutputTensor": back(v.clamp(max=hi).clamp(min=lo))}


def _samples():
    from ..descs import ElementWiseClip1 as cls

    exact = dict(atol=0, rtol=0, why="a select: exact", float16=False)

    def make(t, lo, hi, n=6, **kw):
        return ew.unary_desc(cls, t, [n], min_max_data_type=t, min=lo, max=hi, **kw)

    return [
        # Clipped to [-1, 1]; NaN -> Max (1), as DirectML's min/max give it; -0 stays -0.
        Sample("basic", make("FLOAT32", -1.0, 1.0),
               {"InputTensor": np.array([-2, -0.0, 0.5, 1, np.inf, np.nan], np.float32)},
               {"OutputTensor": np.array([-1, -0.0, 0.5, 1, 1, 1], np.float32)}, **exact),
        # Min > Max: max(2, min(x, 1)) = 2 everywhere (ONNX Clip and torch.clamp would give 1).
        Sample("min_above_max", make("FLOAT32", 2.0, 1.0),
               {"InputTensor": np.array([-5, 0, 1, 1.5, 2, 9], np.float32)},
               {"OutputTensor": np.full(6, 2, np.float32)}, **exact),
        # FLOAT16 bounds are float16 values: 0.1 is held as 0.0999755859375, -0.3 as -0.300048828125.
        Sample("float16_bounds", make("FLOAT16", -0.3, 0.1),
               {"InputTensor": np.array([-1, -0.25, 0, 0.05, 0.1, 3], np.float16)},
               {"OutputTensor": np.array([-0.300048828125, -0.25, 0, 0.05, 0.0999755859375, 0.0999755859375],
                                         np.float16)}, **exact),
        # ScaleBias 10x first: [0.05, 0.25, -0.5, 0.0625, 1, -0.01] -> [0.5, 2.5, -5, 0.625, 10, -0.1], clipped
        # to [0, 1].
        Sample("scale_bias", make("FLOAT32", 0.0, 1.0, scale_bias=ScaleBias(10.0, 0.0)),
               {"InputTensor": np.array([0.05, 0.25, -0.5, 0.0625, 1, -0.01], np.float32)},
               {"OutputTensor": np.array([0.5, 1, 0, 0.625, 1, 0], np.float32)},
               atol=1e-7, rtol=1e-7, why="10 * 0.05 rounds in float32", float16=False),
        Sample("broadcast", ew.unary_desc(cls, "FLOAT32", [2, 3], strides=[0, 1], min_max_data_type="FLOAT32",
                                          min=-0.5, max=0.5),
               {"InputTensor": np.array([-3, 0.25, 3], np.float32)},
               {"OutputTensor": np.array([[-0.5, 0.25, 0.5], [-0.5, 0.25, 0.5]], np.float32)}, **exact),
    ] + ew.integer_samples(
        lambda t: make(t, 1, 100), ew.INTEGERS, {"InputTensor": [0, 1, 2, 100, 101, 127]},
        {"OutputTensor": [1, 1, 2, 100, 100, 100]}, why="a select: exact") + ew.integer_samples(
        lambda t: make(t, -2, 3), ew.SIGNED, {"InputTensor": [-5, -3, -2, 0, 3, 4]},
        {"OutputTensor": [-2, -2, -2, 0, 3, 3]}, why="a select: exact") + [
        # 64-bit bounds that no float32 holds: INT64 [-(2**62 + 1), 2**62 + 1]; UINT64 [2**63 + 1, 2**64 - 2].
        Sample("int64_exact_bounds", make("INT64", -(2**62 + 1), 2**62 + 1, n=4),
               {"InputTensor": ew.int_array([-2**63, -(2**62), 2**62 + 2, 2**62 + 1], "INT64")},
               {"OutputTensor": ew.int_array([-(2**62 + 1), -(2**62), 2**62 + 1, 2**62 + 1], "INT64")},
               atol=0, rtol=0, why="exact"),
        Sample("uint64_exact_bounds", make("UINT64", 2**63 + 1, 2**64 - 2, n=4),
               {"InputTensor": ew.int_array([0, 2**63, 2**63 + 2, 2**64 - 1], "UINT64")},
               {"OutputTensor": ew.int_array([2**63 + 1, 2**63 + 1, 2**63 + 2, 2**64 - 2], "UINT64")},
               atol=0, rtol=0, why="exact"),
    ]


SAMPLES = _samples()
