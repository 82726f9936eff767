"""DML_OPERATOR_ELEMENT_WISE_ATAN_YX: f(y, x) = atan2(y, x), ATensor = y, BTensor = x.

The quadrants and signed zeros are IEEE atan2's, as DirectML's vectors give them (float32_2x3x4x5): atan2(-0, +0) =
-0, atan2(+0, -0) = pi, atan2(3, 0) = pi/2, atan2(-3, -0) = -pi/2, atan2(1, inf) = 0, atan2(-1, -inf) = -pi,
atan2(inf, 2) = pi/2, atan2(-inf, NaN) = NaN. The docs leave the origin undefined; the vectors' device answers
IEEE's there.

Two ways DirectML's answers differ from IEEE atan2:

* NaN: DirectML reduces to atan(min(|x|, |y|) / max(|x|, |y|)) with a min and max that return the non-NaN operand,
  so a NaN operand reads as the other one's magnitude and then unfolds by the signs: atan2(NaN, 1) = atan2(1, NaN)
  = 0.7854096, the device's pi/4 (float32_2x3x4x5 [0], float16_3x4x5 [0], sample_specials [9] and [10]). Where the
  other operand is ±0 or ±inf that ratio is 0 / 0 or inf / inf, so the result is NaN (atan2(-inf, NaN) = NaN in
  float16_3x4x5 [2]; NaN with a zero is the issue's held-back case: NaN, not IEEE's atan2(0, 0) = 0), and two NaNs
  give NaN. dmlops computes that: a NaN y with a finite, nonzero x is read as y = |x|, a NaN x with a finite, nonzero
  y as x = |y|, then IEEE atan2 (ONNX and torch give NaN for any NaN). A NaN reads as positive: only the positive
  quiet NaN is measured, and float arithmetic (the ONNX lowering) cannot see a NaN's sign bit.
* The device's atan is an approximation: up to 1.2e-5 absolute from the correctly rounded atan2 (0.7854096 for
  pi/4 = 0.7853982): dmlops computes IEEE atan2 and dmlops.vector_tolerances bounds the difference. The values fit
  Abramowitz & Stegun 4.4.49's polynomial r (0.9998660 - 0.3302995 r^2 + 0.1801410 r^4 - 0.0851330 r^6 +
  0.0208351 r^8) on r = min / max: its sum at r = 1 is 0.7854096, and atan2(1e-30, 1) = 9.99866e-31 (sample_general)
  is its first coefficient; a float32 evaluation of it still differs from 35 of the vectors' 294 finite elements
  by an ULP, so dmlops keeps IEEE atan2 rather than half-reproduce the device.

ONNX has no Atan2: the ONNX lowering reduces to atan(min(|x|, |y|) / max(|x|, |y|)) in [0, pi/4] and unfolds the
octant, the sign of ±0 read through 1 / v (a few float32 ULP from IEEE atan2).
"""
from __future__ import annotations

import math

import numpy as np

from ..sample import Sample
from . import _arithmetic as ar
from . import _elementwise as ew


def reference(desc, x):
    """IEEE atan2 (float64, rounded once to float32), with DirectML's NaN rule (a NaN reads as the other operand's
    magnitude where that is finite and nonzero)."""
    y, v = x["ATensor"], x["BTensor"]
    with np.errstate(invalid="ignore"):
        y, v = (np.where(np.isnan(y) & np.isfinite(v) & (v != 0), np.abs(v), y),  # atan2(NaN, 1) = atan2(1, 1)
                np.where(np.isnan(v) & np.isfinite(y) & (y != 0), np.abs(y), v))  # atan2(1, NaN) = atan2(1, 1)
        return {"OutputTensor": np.arctan2(y.astype(np.float64), v.astype(np.float64)).astype(v.dtype)}


def to_onnx(desc, g, x):
    """atan(min / max) in [0, pi/4], then pi/2 - r above the diagonal, pi - r left of the y axis, the sign of y."""
    y, v = x["ATensor"], x["BTensor"]
    f = g.dtype(v)
    c = lambda value: ew.onnx_const(g, value, f)  # noqa: E731
    b = lambda op, inputs: g.node(op, inputs, dtype=np.bool_)  # noqa: E731

    def usable(t):  # finite and nonzero: a NaN on the other side reads as |t|
        return b("And", [b("Not", [b("Or", [b("IsNaN", [t]), b("IsInf", [t])])]), b("Not", [b("Equal", [t, c(0)])])])

    nan_y, nan_x = b("And", [b("IsNaN", [y]), usable(v)]), b("And", [b("IsNaN", [v]), usable(y)])
    y, v = (g.node("Where", [nan_y, g.node("Abs", [v]), y], dtype=f),
            g.node("Where", [nan_x, g.node("Abs", [y]), v], dtype=f))
    ax, ay = g.node("Abs", [v]), g.node("Abs", [y])
    lo, hi = g.node("Min", [ax, ay]), g.node("Max", [ax, ay])  # NaN propagates
    same = g.node("Equal", [ax, ay], dtype=np.bool_)  # ±inf on both axes: pi/4; both zero: handled below
    safe_hi = g.node("Where", [g.node("Equal", [hi, c(0)], dtype=np.bool_), c(1), hi], dtype=f)
    r = g.node("Atan", [g.node("Div", [lo, safe_hi])])
    r = g.node("Where", [same, c(math.pi / 4), r], dtype=f)
    r = g.node("Where", [g.node("Equal", [hi, c(0)], dtype=np.bool_), c(0), r], dtype=f)
    r = g.node("Where", [g.node("Greater", [ay, ax], dtype=np.bool_), g.node("Sub", [c(math.pi / 2), r]), r], dtype=f)
    r = g.node("Where", [ar.onnx_sign_bit(g, v), g.node("Sub", [c(math.pi), r]), r], dtype=f)
    return {"OutputTensor": ar.onnx_with_sign_of(g, r, y)}  # r >= +0 here


def to_torch(desc, torch, x):
    """torch.atan2, with DirectML's NaN rule."""
    y, v = x["ATensor"], x["BTensor"]
    usable_y, usable_x = torch.isfinite(y) & (y != 0), torch.isfinite(v) & (v != 0)
    y, v = torch.where(torch.isnan(y) & usable_x, v.abs(), y), torch.where(torch.isnan(v) & usable_y, y.abs(), v)
    return {"OutputTensor": torch.atan2(y, v)}


def _samples():
    from ..descs import ElementWiseAtanYx as cls

    def make(n, **kw):
        return ew.binary_desc(cls, "FLOAT32", [n], **kw)

    pi = math.pi
    f = np.float32
    return [
        # The four quadrants at 45 degrees and the axes: atan2(1, 1) = pi/4, atan2(1, -1) = 3pi/4,
        # atan2(-1, -1) = -3pi/4, atan2(-1, 1) = -pi/4, atan2(2, 0) = pi/2, atan2(-2, 0) = -pi/2, atan2(0, -3) = pi.
        Sample("quadrants", make(7),
               {"ATensor": np.array([1, 1, -1, -1, 2, -2, 0], f), "BTensor": np.array([1, -1, -1, 1, 0, 0, -3], f)},
               {"OutputTensor": np.array([pi / 4, 3 * pi / 4, -3 * pi / 4, -pi / 4, pi / 2, -pi / 2, pi], f)},
               atol=2.5e-7, rtol=0, why="the ONNX form's octant unfolding: within 1 ULP of pi",
               float16_atol=0, float16_rtol=0),
        # Signed zeros and infinities as IEEE atan2 (and DirectML's vectors): (+0, +0) = +0, (-0, +0) = -0,
        # (+0, -0) = pi, (-0, -0) = -pi, (1, inf) = 0, (-1, -inf) = -pi, (inf, inf) = pi/4, (-inf, -inf) = -3pi/4,
        # (inf, 2) = pi/2; a NaN with 1 on the other side gives pi/4 either way round (DirectML's sample_specials:
        # 0.7854096).
        Sample("specials", make(11),
               {"ATensor": np.array([0, -0.0, 0, -0.0, 1, -1, np.inf, -np.inf, np.inf, 1, np.nan], f),
                "BTensor": np.array([0, 0, -0.0, -0.0, np.inf, -np.inf, np.inf, -np.inf, 2, np.nan, 1], f)},
               {"OutputTensor": np.array([0, -0.0, pi, -pi, 0, -pi, pi / 4, -3 * pi / 4, pi / 2, pi / 4, pi / 4], f)},
               atol=2.5e-7, rtol=0, why="within 1 ULP of pi", float16_atol=0, float16_rtol=0),
        # NaN against the other signs and the specials, by the rule: (NaN, -2) = 3pi/4, (-3, NaN) = -pi/4; NaN with
        # ±0 or ±inf on the other side and two NaNs give NaN.
        Sample("nan_rule", make(8),
               {"ATensor": np.array([np.nan, -3, np.nan, np.nan, 0, -0.0, np.nan, np.inf], f),
                "BTensor": np.array([-2, np.nan, 0, -0.0, np.nan, np.nan, np.nan, np.nan], f)},
               {"OutputTensor": np.array([3 * pi / 4, -pi / 4] + [np.nan] * 6, f)},
               atol=2.5e-7, rtol=0, why="within 1 ULP of pi", float16_atol=0, float16_rtol=0),
        # General points (reference: IEEE atan2 rounded once); the ONNX form rounds min / max and atan.
        Sample("general", make(6),
               {"ATensor": np.array([0.3, 5, -1e-3, 7, -2.5, 1e-30], f),
                "BTensor": np.array([2, 0.1, 4, -3, -0.5, 1], f)},
               None, atol=3e-7, rtol=3e-7, why="atan(min / max) and the octant unfolding: a few float32 ULP"),
        # X broadcast along rows through strides [1, 0]: atan2(1, 1) = pi/4, atan2(-1, 1) = -pi/4 on row 0.
        Sample("broadcast", make(2, strides_b=[0]),
               {"ATensor": np.array([1, -1], f), "BTensor": np.array([1], f)},
               {"OutputTensor": np.array([pi / 4, -pi / 4], f)}, atol=1e-7, rtol=0, why="1 ULP",
               float16_atol=0, float16_rtol=0),
    ]


SAMPLES = _samples()
