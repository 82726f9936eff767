"""DML_OPERATOR_ELEMENT_WISE_MEAN: f(a, b) = (a + b) / 2.

Floats: (a + b) * 0.5 in float32, the sum rounded first (so it overflows to inf for a + b beyond float32, where a/2
+ b/2 would not). Integers (INT32, UINT32): the quotient truncates toward zero, as DIVIDE does (DirectML's vectors:
int32_3x4x5 gives (-19 + 16) / 2 = -1 and (1 + -18) / 2 = -8, not the floor -2 and -9). Whether DirectML's sum
wraps in 32 bits before the halving is not covered by any vector; dmlops wraps it, as DirectML's integer ADD does
((INT32_MAX + 1) / 2 = INT32_MIN / 2), which is unverified. ONNX Mean and torch.mean are float-only.
"""
from __future__ import annotations

import numpy as np

from ..sample import Sample
from . import _elementwise as ew


def reference(desc, x):
    """Floats: (a + b) * 0.5 in the inputs' type; integers: the wrapped sum / 2, truncated toward zero."""
    a, b = x["ATensor"], x["BTensor"]
    with np.errstate(all="ignore"):
        if a.dtype.kind == "f":
            return {"OutputTensor": (a + b) * a.dtype.type(0.5)}
        s = a + b  # wraps in the type
        return {"OutputTensor": ew.truncating_divide(s, np.full_like(s, 2))}


def to_onnx(desc, g, x):
    """Mul(Add(a, b), 0.5) for floats; Div(Add(a, b), 2) for integers (ONNX Runtime's integer Add wraps and its
    integer Div truncates)."""
    a, b = x["ATensor"], x["BTensor"]
    dtype = g.dtype(a)
    s = g.node("Add", [a, b])
    if dtype.kind == "f":
        return {"OutputTensor": g.node("Mul", [s, ew.onnx_const(g, 0.5, dtype)])}
    return {"OutputTensor": g.node("Div", [s, ew.onnx_const(g, 2, dtype)])}


def to_torch(desc, torch, x):
    """(a + b) * 0.5 for floats; the wrapped sum divided by 2 (rounding_mode="trunc") for integers (uint32 in
    int64, wrapped to 32 bits by hand)."""
    a, b = x["ATensor"], x["BTensor"]
    if a.is_floating_point():
        return {"OutputTensor": (a + b) * 0.5}
    if a.dtype == torch.uint32:
        s = a.to(torch.int64) + b.to(torch.int64)
        s = torch.where(s >= 2**32, s - 2**32, s)
        return {"OutputTensor": torch.div(s, 2, rounding_mode="floor").to(torch.uint32)}
    return {"OutputTensor": torch.div(a + b, 2, rounding_mode="trunc")}


def _samples():
    from ..descs import ElementWiseMean as cls

    def make(t, n=4):
        return ew.binary_desc(cls, t, [n])

    return [
        # (1 + 3) / 2 = 2, (-1 + 0.5) / 2 = -0.25, (2.5 + 2.5) / 2 = 2.5, (-0 + -0) / 2 = -0; exact.
        Sample("basic", make("FLOAT32"),
               {"ATensor": np.array([1, -1, 2.5, -0.0], np.float32),
                "BTensor": np.array([3, 0.5, 2.5, -0.0], np.float32)},
               {"OutputTensor": np.array([2, -0.25, 2.5, -0.0], np.float32)},
               atol=0, rtol=0, why="exact", float16_atol=0, float16_rtol=0),
        # The sum is rounded first: 2**127 + 2**127 = inf in float32, so the mean is inf (not 2**127); inf + -inf =
        # NaN; (-2**127 + 2**126) / 2 = -2**125.
        Sample("overflow", make("FLOAT32", 3),
               {"ATensor": np.array([2.0**127, np.inf, -2.0**127], np.float32),
                "BTensor": np.array([2.0**127, -np.inf, 2.0**126], np.float32)},
               {"OutputTensor": np.array([np.inf, np.nan, -2.0**125], np.float32)}, atol=0, rtol=0, why="exact",
               float16=False),
        # B broadcast along rows through strides [1, 0].
        Sample("broadcast", ew.binary_desc(cls, "FLOAT32", [2, 3], strides_b=[1, 0]),
               {"ATensor": np.array([[1, 2, 3], [4, 5, 6]], np.float32), "BTensor": np.array([1, -2], np.float32)},
               {"OutputTensor": np.array([[1, 1.5, 2], [1, 1.5, 2]], np.float32)},
               atol=0, rtol=0, why="exact", float16_atol=0, float16_rtol=0),
        # Truncated toward zero: (-19 + 16) / 2 = -1 (floor: -2), (7 + 8) / 2 = 7, (-3 + -4) / 2 = -3.
        Sample("int_int32", make("INT32"),
               {"ATensor": ew.int_array([-19, 7, -3, 100], "INT32"), "BTensor": ew.int_array([16, 8, -4, -1], "INT32")},
               {"OutputTensor": ew.int_array([-1, 7, -3, 49], "INT32")}, atol=0, rtol=0, why="exact"),
        # The sum wraps before the halving (unverified on DirectML): INT32_MAX + 1 = INT32_MIN, / 2 = -2**30;
        # INT32_MIN + -1 = INT32_MAX, / 2 = 2**30 - 1 (truncated).
        Sample("int32_wrap", make("INT32", 2),
               {"ATensor": ew.int_array([2**31 - 1, -2**31], "INT32"), "BTensor": ew.int_array([1, -1], "INT32")},
               {"OutputTensor": ew.int_array([-2**30, 2**30 - 1], "INT32")}, atol=0, rtol=0, why="exact"),
        # UINT32: (5 + 8) / 2 = 6; (2**32 - 1) + 1 wraps to 0 (unverified); (2**32 - 2 + 0) / 2 = 2**31 - 1.
        Sample("int_uint32", make("UINT32", 3),
               {"ATensor": ew.int_array([5, 2**32 - 1, 2**32 - 2], "UINT32"),
                "BTensor": ew.int_array([8, 1, 0], "UINT32")},
               {"OutputTensor": ew.int_array([6, 0, 2**31 - 1], "UINT32")}, atol=0, rtol=0, why="exact"),
    ]


SAMPLES = _samples()
