"""DML_OPERATOR_ELEMENT_WISE_CLIP_GRAD: dX = (Min < x < Max) ? dY : 0.

The boundaries are excluded ("if x is at or below [Min] ... the gradient result is 0"): torch.clamp's
backward passes dY at x == Min and x == Max, so the two differ there. It is a select on the open interval
(DirectML's vectors: basic, edge_x_at_bounds_nan, edge_min_gt_max): x = NaN gives 0 (as torch does), Min > Max
gives 0 everywhere, and dY = NaN/inf outside the interval still gives 0. For
integer tensors Min and Max are taken as CLIP's page says (truncated toward zero, saturated to the type);
the CLIP_GRAD page does not say.
"""
from __future__ import annotations

import numpy as np

from ..sample import Sample, td
from . import _elementwise as ew


def reference(desc, x):
    """A select on Min < x < Max (NaN x: 0)."""
    v, dy = x["InputTensor"], x["InputGradientTensor"]
    lo, hi = ew.attribute_value(desc.min, v.dtype), ew.attribute_value(desc.max, v.dtype)
    with np.errstate(invalid="ignore"):
        keep = (v > np.asarray(lo, v.dtype)) & (v < np.asarray(hi, v.dtype))
    return {"OutputGradientTensor": np.where(keep, dy, np.zeros_like(dy))}


def to_onnx(desc, g, x):
    """Where(x > Min and x < Max, dY, 0) (int16/uint16 compared through int32)."""
    dtype = g.dtype(x["InputTensor"])
    lo, hi = ew.attribute_value(desc.min, dtype), ew.attribute_value(desc.max, dtype)
    v, _ = ew.onnx_ordered(g, x["InputTensor"])
    above = g.node("Greater", [v, ew.onnx_const(g, lo, g.dtype(v))], dtype=np.bool_)
    below = g.node("Less", [v, ew.onnx_const(g, hi, g.dtype(v))], dtype=np.bool_)
    keep = g.node("And", [above, below], dtype=np.bool_)
    return {"OutputGradientTensor": ew.onnx_select(g, keep, x["InputGradientTensor"])}


def to_torch(desc, torch, x):
    """torch.where((x > Min) & (x < Max), dY, 0) (unsigned types through an order-preserving int64)."""
    t = x["InputTensor"]
    dtype = ew.torch_numpy_dtype(torch, t.dtype)
    lo, hi = ew.attribute_value(desc.min, dtype), ew.attribute_value(desc.max, dtype)
    v, _ = ew.torch_ordered(torch, t)
    if ew.is_integer(dtype):
        lo, hi = ew.torch_ordered_scalar(torch, lo, t.dtype), ew.torch_ordered_scalar(torch, hi, t.dtype)
    keep = (v > lo) & (v < hi)
    return {"OutputGradientTensor": ew.torch_select(torch, keep, x["InputGradientTensor"])}


def _desc(cls, t, sizes, lo, hi, strides_x=None, strides_dy=None):
    return cls(input_tensor=td(t, sizes, strides_x), input_gradient_tensor=td(t, sizes, strides_dy),
               output_gradient_tensor=td(t, sizes), min=lo, max=hi)


def _samples():
    from ..descs import ElementWiseClipGrad as cls

    exact = dict(atol=0, rtol=0, why="a select: exact", float16_atol=0, float16_rtol=0)
    nan, inf = np.nan, np.inf
    return [
        # Passes only strictly inside (-1, 1): x = -1 and x = 1 block; NaN x gives 0 (DirectML's vector basic);
        # dY = NaN outside gives 0.
        Sample("basic", _desc(cls, "FLOAT32", [8], -1.0, 1.0),
               {"InputTensor": np.array([-2, -1, 0, 0.5, 1, 3, nan, -inf], np.float32),
                "InputGradientTensor": np.array([10, 20, 30, 40, 50, 60, 70, nan], np.float32)},
               {"OutputGradientTensor": np.array([0, 0, 30, 40, 0, 0, 0, 0], np.float32)}, **exact),
        # x is one row through strides [0, 1]; dY differs per row.
        Sample("broadcast_x", _desc(cls, "FLOAT32", [2, 3], 0.0, 6.0, strides_x=[0, 1]),
               {"InputTensor": np.array([-1, 3, 6], np.float32),
                "InputGradientTensor": np.array([[1, 2, 3], [4, 5, 6]], np.float32)},
               {"OutputGradientTensor": np.array([[0, 2, 0], [0, 5, 0]], np.float32)}, **exact),
        # Min > Max: nothing passes.
        Sample("empty_interval", _desc(cls, "FLOAT32", [3], 1.0, -1.0),
               {"InputTensor": np.array([-2, 0, 2], np.float32),
                "InputGradientTensor": np.array([1, 2, 3], np.float32)},
               {"OutputGradientTensor": np.zeros(3, np.float32)}, **exact),
    ] + ew.integer_samples(
        # Min 1.5 -> 1 and Max 4.9 -> 4 (truncated): x = 4 is at Max and blocks.
        lambda t: _desc(cls, t, [6], 1.5, 4.9), ew.INTEGERS,
        {"InputTensor": [0, 1, 2, 3, 4, 5], "InputGradientTensor": [1, 2, 3, 4, 5, 6]},
        {"OutputGradientTensor": [0, 0, 3, 4, 0, 0]}, why="a select: exact") + [
        # UINT64 above 2**63 and a gradient of 2**64 - 1 passed through bit-exactly.
        # Max 2**63 + 2**40 is exact in float32 (the DML field's type).
        Sample("uint64_large", _desc(cls, "UINT64", [4], 2.0**63, 2.0**63 + 2.0**40),
               {"InputTensor": ew.int_array([2**63, 2**63 + 1, 2**63 + 2**40 - 1, 2**64 - 1], "UINT64"),
                "InputGradientTensor": ew.int_array([1, 2**64 - 1, 3, 4], "UINT64")},
               {"OutputGradientTensor": ew.int_array([0, 2**64 - 1, 3, 0], "UINT64")}, atol=0, rtol=0, why="exact"),
    ]


SAMPLES = _samples()
