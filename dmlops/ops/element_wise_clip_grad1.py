"""DML_OPERATOR_ELEMENT_WISE_CLIP_GRAD1: dX = (Min < x < Max) ? dY : 0, Min and Max typed by MinMaxDataType.

The docs: MinMaxDataType is "the data type of the Min and Max members, which must match
OutputTensor.DataType"; the page copies CLIP1's text, and this operator's output is
OutputGradientTensor, which is what the rule compares with (all three tensors share one DataType).
DirectML refuses MinMaxDataType FLOAT32 with FLOAT16 tensors (vector
gap_factory_tier_5_0_dt_1_rank_default). Whether Min and Max are representable in MinMaxDataType is
the generic validator's rule. Min > Max is not rejected: the docs do not forbid it, and DirectML
accepts it for ELEMENT_WISE_CLIP1 and ELEMENT_WISE_CLIP_GRAD (for CLIP_GRAD1 itself unverified).

Math (docs): "If x is at or below [Min] ... the gradient result is 0", likewise at or above Max: both
boundaries are excluded, as DirectML's vectors show (float32_min_-1.0_max_1.5: x = -1 and x = 1.5 give 0;
float16_min_-0.5_max_2.0: x = -0.5 and x = 2; int32_min_-5_max_7: x = -5 and x = 7); torch.clamp's backward
passes dY there. The bounds are values of the tensor's type, as CLIP1's (element_wise_clip1.py): INT64/UINT64
bounds exact, FLOAT16 bounds float16 values. The select is ELEMENT_WISE_CLIP_GRAD's (element_wise_clip_grad.py):
x = NaN gives 0 (no CLIP_GRAD1 vector has a NaN; CLIP_GRAD's edge_x_at_bounds_nan does, and the docs' two
"at or beyond" tests would pass it: dmlops follows the sibling operator's vector), Min > Max gives 0
everywhere, and a NaN or infinite dY outside the interval still gives 0.
"""
from __future__ import annotations

import numpy as np

from ..errors import Problem
from ..sample import Sample, td
from . import _elementwise as ew
from .element_wise_clip1 import min_max_problems


def check(desc, level) -> list[Problem]:
    """MinMaxDataType is OutputGradientTensor's DataType."""
    return min_max_problems(desc, "OutputGradientTensor")


def _bounds(desc, dtype):
    """(Min, Max) as values of the tensor's type: integers exactly, floats as MinMaxDataType holds them."""
    if ew.is_integer(dtype):
        return int(desc.min), int(desc.max)
    held = desc.min_max_data_type.numpy_dtype  # FLOAT16 bounds are float16 values (exact in float32)
    return float(np.asarray(desc.min, held)), float(np.asarray(desc.max, held))


def reference(desc, x):
    """A select on Min < x < Max (NaN x: 0)."""
    v, dy = x["InputTensor"], x["InputGradientTensor"]
    lo, hi = (np.asarray(b, v.dtype) for b in _bounds(desc, v.dtype))
    with np.errstate(invalid="ignore"):
        keep = (v > lo) & (v < hi)
    return {"OutputGradientTensor": np.where(keep, dy, np.zeros_like(dy))}


def to_onnx(desc, g, x):
    """Where(x > Min and x < Max, dY, 0) (int16/uint16 compared through int32)."""
    lo, hi = _bounds(desc, g.dtype(x["InputTensor"]))
    v, _ = ew.onnx_ordered(g, x["InputTensor"])
    above = g.node("Greater", [v, ew.onnx_const(g, lo, g.dtype(v))], dtype=np.bool_)
    below = g.node("Less", [v, ew.onnx_const(g, hi, g.dtype(v))], dtype=np.bool_)
    keep = g.node("And", [above, below], dtype=np.bool_)
    return {"OutputGradientTensor": ew.onnx_select(g, keep, x["InputGradientTensor"])}


def to_torch(desc, torch, x):
    """torch.where((x > Min) & (x < Max), dY, 0) (unsigned types through an order-preserving int64)."""
    t = x["InputTensor"]
    lo, hi = _bounds(desc, ew.torch_numpy_dtype(torch, t.dtype))
    v, _ = ew.torch_ordered(torch, t)
    if not t.is_floating_point():
        lo, hi = ew.torch_ordered_scalar(torch, lo, t.dtype), ew.torch_ordered_scalar(torch, hi, t.dtype)
    keep = (v > lo) & (v < hi)
    return {"OutputGradientTensor": ew.torch_select(torch, keep, x["InputGradientTensor"])}


def _desc(t, sizes, lo, hi, strides_x=None):
    from ..descs import ElementWiseClipGrad1

    return ElementWiseClipGrad1(input_tensor=td(t, sizes, strides_x), input_gradient_tensor=td(t, sizes),
                                output_gradient_tensor=td(t, sizes), min_max_data_type=t, min=lo, max=hi)


def _samples():
    exact = dict(atol=0, rtol=0, why="a select: exact")
    nan, inf = np.nan, np.inf
    return [
        # Passes only strictly inside (-1, 1.5): x = -1 and x = 1.5 block (DirectML's float32_min_-1.0_max_1.5);
        # NaN x gives 0 (as CLIP_GRAD's vector edge_x_at_bounds_nan); dY = NaN or inf outside gives 0.
        Sample("basic", _desc("FLOAT32", [8], -1.0, 1.5),
               {"InputTensor": np.array([-2, -1, 0, 1.4999999, 1.5, 3, nan, -inf], np.float32),
                "InputGradientTensor": np.array([10, 20, 30, 40, 50, inf, 70, nan], np.float32)},
               {"OutputGradientTensor": np.array([0, 0, 30, 40, 0, 0, 0, 0], np.float32)}, **exact),
        # FLOAT16 bounds are float16 values: Max 0.1 is held as 0.0999755859375, so x = 0.0999755859375 (that same
        # float16) blocks; Min -0.3 is -0.300048828125, so x = -0.2998046875 (the next float16 up) passes.
        Sample("float16_bounds", _desc("FLOAT16", [4], -0.3, 0.1),
               {"InputTensor": np.array([-0.300048828125, -0.2998046875, 0.0999755859375, 0.05], np.float16),
                "InputGradientTensor": np.array([1, 2, 3, 4], np.float16)},
               {"OutputGradientTensor": np.array([0, 2, 0, 4], np.float16)}, **exact),
        # x broadcast through strides [0, 1].
        Sample("broadcast_x", _desc("FLOAT32", [2, 3], 0.0, 6.0, strides_x=[0, 1]),
               {"InputTensor": np.array([-1, 3, 6], np.float32),
                "InputGradientTensor": np.array([[1, 2, 3], [4, 5, 6]], np.float32)},
               {"OutputGradientTensor": np.array([[0, 2, 0], [0, 5, 0]], np.float32)}, **exact),
        # Min > Max: nothing passes.
        Sample("empty_interval", _desc("FLOAT32", [3], 1.0, -1.0),
               {"InputTensor": np.array([-2, 0, 2], np.float32),
                "InputGradientTensor": np.array([1, 2, 3], np.float32)},
               {"OutputGradientTensor": np.zeros(3, np.float32)}, **exact),
    ] + ew.integer_samples(
        # Integer bounds are exact: x = 1 (Min) and x = 4 (Max) block.
        lambda t: _desc(t, [6], 1, 4), ew.INTEGERS,
        {"InputTensor": [0, 1, 2, 3, 4, 5], "InputGradientTensor": [1, 2, 3, 4, 5, 6]},
        {"OutputGradientTensor": [0, 0, 3, 4, 0, 0]}, why="a select: exact") + ew.integer_samples(
        lambda t: _desc(t, [6], -5, 7), ew.SIGNED,
        {"InputTensor": [-6, -5, -4, 6, 7, 8], "InputGradientTensor": [1, 2, 3, 4, 5, 6]},
        {"OutputGradientTensor": [0, 0, 3, 4, 0, 0]}, why="a select: exact") + [
        # 64-bit bounds no float holds: INT64 (-(2**62 + 1), 2**62 + 1); UINT64 (2**63 + 1, 2**64 - 2).
        Sample("int64_exact_bounds", _desc("INT64", [4], -(2**62 + 1), 2**62 + 1),
               {"InputTensor": ew.int_array([-(2**62 + 1), -(2**62), 2**62, 2**62 + 1], "INT64"),
                "InputGradientTensor": ew.int_array([1, 2**63 - 1, -(2**63), 4], "INT64")},
               {"OutputGradientTensor": ew.int_array([0, 2**63 - 1, -(2**63), 0], "INT64")}, **exact),
        Sample("uint64_exact_bounds", _desc("UINT64", [4], 2**63 + 1, 2**64 - 2),
               {"InputTensor": ew.int_array([2**63 + 1, 2**63 + 2, 2**64 - 3, 2**64 - 2], "UINT64"),
                "InputGradientTensor": ew.int_array([1, 2**64 - 1, 3, 4], "UINT64")},
               {"OutputGradientTensor": ew.int_array([0, 2**64 - 1, 3, 0], "UINT64")}, **exact),
    ]


SAMPLES = _samples()
