"""DML_OPERATOR_ELEMENT_WISE_THRESHOLD: f(x) = max(x, Min).

For integer tensors Min is taken as CLIP's page says for its bounds (truncated toward zero, saturated to the
type); the THRESHOLD page does not say. NaN gives Min (DirectML's vectors: edge_specials_min_0_5): DirectML's
max returns the non-NaN operand, where ONNX Max and torch.clamp keep NaN; the lowerings use ew.float_max.
"""
from __future__ import annotations

import numpy as np

from ..sample import Sample
from ..types import ScaleBias
from . import _elementwise as ew


def reference(desc, x):
    """max(x, Min) (DirectML's max for floats: NaN gives Min)."""
    v = x["InputTensor"]
    lo = np.asarray(ew.attribute_value(desc.min, v.dtype), v.dtype)
    if v.dtype.kind == "f":
        return {"OutputTensor": ew.float_max(v, lo, ew.is_float16(desc))}
    return {"OutputTensor": np.maximum(v, lo)}


def to_onnx(desc, g, x):
    """DirectML's max with Min for floats (ONNX Max keeps NaN); ONNX Max for integers (int16/uint16 through int32)."""
    if g.dtype(x["InputTensor"]).kind == "f":
        lo = ew.onnx_const(g, ew.attribute_value(desc.min, np.float32), g.dtype(x["InputTensor"]))
        return {"OutputTensor": ew.onnx_float_max(g, x["InputTensor"], lo, ew.is_float16(desc))}
    v, back = ew.onnx_ordered(g, x["InputTensor"])
    lo = ew.attribute_value(desc.min, g.dtype(x["InputTensor"]))
    return {"OutputTensor": back(g.node("Max", [v, ew.onnx_const(g, lo, g.dtype(v))]))}


def to_torch(desc, torch, x):
    """DirectML's max with Min for floats (torch.clamp keeps NaN); clamp(min=Min) for integers (uint16/uint32
    through int64)."""
    t = x["InputTensor"]
    if t.is_floating_point():
        lo = torch.full((), ew.attribute_value(desc.min, np.float32), dtype=t.dtype, device=t.device)
        return {"OutputTensor": ew.torch_float_max(torch, t, lo, ew.is_float16(desc))}
    lo = ew.attribute_value(desc.min, ew.torch_numpy_dtype(torch, t.dtype))
    v, back = ew.torch_ordered(torch, t)
    if not t.dtype.is_floating_point:
        lo = ew.torch_ordered_scalar(torch, lo, t.dtype)
    return {"OutputTensor": back(v.clamp(min=lo))}


def _samples():
    from ..descs import ElementWiseThreshold as cls

    exact = dict(atol=0, rtol=0, why="a select: exact", float16_atol=0, float16_rtol=0)

    def make(t, lo, **kw):
        return ew.unary_desc(cls, t, [4], min=lo, **kw)

    return [
        Sample("basic", make("FLOAT32", 0.5),
               {"InputTensor": np.array([-2, 0, 3, 0.5], np.float32)},
               {"OutputTensor": np.array([0.5, 0.5, 3, 0.5], np.float32)}, **exact),
        Sample("infinities", make("FLOAT32", -np.inf),
               {"InputTensor": np.array([-np.inf, -1, 0, np.inf], np.float32)},
               {"OutputTensor": np.array([-np.inf, -1, 0, np.inf], np.float32)}, **exact),
        # ScaleBias -x: [2, -3, 0, 1] -> [-2, 3, 0, -1] -> max(., -1) = [-1, 3, 0, -1].
        Sample("scale_bias", make("FLOAT32", -1.0, scale_bias=ScaleBias(-1.0, 0.0)),
               {"InputTensor": np.array([2, -3, 0, 1], np.float32)},
               {"OutputTensor": np.array([-1, 3, 0, -1], np.float32)}, **exact),
        Sample("broadcast", ew.unary_desc(cls, "FLOAT32", [2, 2], strides=[1, 0], min=0.0),
               {"InputTensor": np.array([-1, 2], np.float32)},
               {"OutputTensor": np.array([[0, 0], [2, 2]], np.float32)}, **exact),
    ] + ew.integer_samples(
        # Min 2.9 -> 2 (truncated toward zero).
        lambda t: make(t, 2.9), ("INT32", "INT16", "INT8", "UINT32", "UINT16", "UINT8"),
        {"InputTensor": [0, 2, 3, 100]}, {"OutputTensor": [2, 2, 3, 100]}, why="a select: exact") + ew.integer_samples(
        # Min -3.5 -> -3.
        lambda t: make(t, -3.5), ("INT32", "INT16", "INT8"), {"InputTensor": [-5, -3, 0, 7]},
        {"OutputTensor": [-3, -3, 0, 7]}, why="a select: exact")


SAMPLES = _samples()
