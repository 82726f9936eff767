"""DML_OPERATOR_ELEMENT_WISE_ROUND: each element rounded to an integer by RoundingMode.

* HALVES_TO_NEAREST_EVEN: ties to even (0.5 -> 0, 1.5 -> 2, -2.5 -> -2), ONNX Round and torch.round.
* TOWARD_ZERO: truncation (ONNX has no Trunc at opset 18: Floor(|x|) given x's sign by a multiply; torch-directml
  has no aten::trunc: ceil below 0, floor elsewhere).
* TOWARD_INFINITY: NOT a ceiling: "rounded to the nearest integer, with halfway values rounded away from zero"
  (the DML_ROUNDING_MODE page; DirectML's vectors float32_toward_infinity: 0.5 -> 1, -0.5 halves: -1.5 -> -2,
  2.5 -> 3, -2.5 -> -3, 2.504549 -> 3, -0.9999 -> -1). Computed as trunc(x) + sign(x) where |x - trunc(x)| >= 0.5
  (exact: x - trunc(x) is exact in float32; the naive floor(|x| + 0.5) rounds 0.49999997 up to 1).

Signed zeros, from the vectors: -0 stays -0 in the first two modes, but TOWARD_INFINITY turns -0 into +0
(float32_toward_infinity and float16_toward_infinity [3]) while a negative x that rounds to zero keeps -0 (-0.0857559
-> -0 in the same case): dmlops selects +0 exactly where x is ±0. NaN and ±inf are kept in every mode.
"""
from __future__ import annotations

import numpy as np

from ..enums import RoundingMode
from ..sample import Sample
from . import _arithmetic as ar
from . import _elementwise as ew


def _mode(desc) -> RoundingMode:
    return RoundingMode(desc.rounding_mode)


def reference(desc, x):
    """np.round (ties to even), np.trunc, or trunc + sign where the fraction is at least one half."""
    v = x["InputTensor"]
    mode = _mode(desc)
    if mode == RoundingMode.HALVES_TO_NEAREST_EVEN:
        return {"OutputTensor": np.round(v)}
    t = np.trunc(v)
    if mode == RoundingMode.TOWARD_ZERO:
        return {"OutputTensor": t}
    with np.errstate(invalid="ignore"):  # inf - inf: the fraction of ±inf is NaN, and ±inf is kept
        r = np.where(np.abs(v - t) >= 0.5, t + np.sign(v), t)
        return {"OutputTensor": np.where(v == 0, v.dtype.type(0), r).astype(v.dtype)}


def to_onnx(desc, g, x):
    """Round; Floor(|x|) with x's sign; or that truncation plus Sign(x) where |x - trunc(x)| >= 0.5."""
    v = x["InputTensor"]
    mode = _mode(desc)
    if mode == RoundingMode.HALVES_TO_NEAREST_EVEN:
        return {"OutputTensor": g.node("Round", [v])}
    t = ar.onnx_trunc(g, v)
    if mode == RoundingMode.TOWARD_ZERO:
        return {"OutputTensor": t}
    dtype = g.dtype(v)
    half = g.node("GreaterOrEqual", [g.node("Abs", [g.node("Sub", [v, t])]), ew.onnx_const(g, 0.5, dtype)],
                  dtype=np.bool_)
    r = g.node("Where", [half, g.node("Add", [t, g.node("Sign", [v])]), t], dtype=dtype)
    zero = ew.onnx_const(g, 0, dtype)
    return {"OutputTensor": g.node("Where", [g.node("Equal", [v, zero], dtype=np.bool_), zero, r], dtype=dtype)}


def to_torch(desc, torch, x):
    """torch.round; ceil/floor by sign; or that truncation plus sign(x) where the fraction is at least one half."""
    v = x["InputTensor"]
    mode = _mode(desc)
    if mode == RoundingMode.HALVES_TO_NEAREST_EVEN:
        return {"OutputTensor": torch.round(v)}
    t = ar.torch_trunc(torch, v)
    if mode == RoundingMode.TOWARD_ZERO:
        return {"OutputTensor": t}
    r = torch.where((v - t).abs() >= 0.5, t + torch.sign(v), t)
    return {"OutputTensor": torch.where(v == 0, torch.zeros_like(r), r)}


def _samples():
    from ..descs import ElementWiseRound as cls

    values = np.array([-2.5, -1.75, -1.5, -1.25, 0, 1.25, 1.5, 1.75, 2.5], np.float32)  # the DML_ROUNDING_MODE table
    specials = np.array([-0.0, 0.5, -0.5, 0.49999997, -0.25, 8388609, np.nan, np.inf, -np.inf], np.float32)
    exact = dict(atol=0, rtol=0, why="exact", float16_atol=0, float16_rtol=0)

    def make(mode, sizes=(9,)):
        return ew.unary_desc(cls, "FLOAT32", list(sizes), rounding_mode=mode)

    return [
        # The DML_ROUNDING_MODE page's table, row by row.
        Sample("docs_table_halves_to_nearest_even", make(RoundingMode.HALVES_TO_NEAREST_EVEN), {"InputTensor": values},
               {"OutputTensor": np.array([-2, -2, -2, -1, 0, 1, 2, 2, 2], np.float32)}, **exact),
        Sample("docs_table_toward_zero", make(RoundingMode.TOWARD_ZERO), {"InputTensor": values},
               {"OutputTensor": np.array([-2, -1, -1, -1, 0, 1, 1, 1, 2], np.float32)}, **exact),
        Sample("docs_table_toward_infinity", make(RoundingMode.TOWARD_INFINITY), {"InputTensor": values},
               {"OutputTensor": np.array([-3, -2, -2, -1, 0, 1, 2, 2, 3], np.float32)}, **exact),
        # -0 stays -0 (toward infinity: +0, as DirectML's vectors show); 0.49999997 (the float below 0.5) rounds to 0
        # in every mode; -0.25 -> -0; 8388609 (2**23 + 1, already integral) stays; NaN and ±inf stay.
        Sample("specials_halves_to_nearest_even", make(RoundingMode.HALVES_TO_NEAREST_EVEN), {"InputTensor": specials},
               {"OutputTensor": np.array([-0.0, 0, -0.0, 0, -0.0, 8388609, np.nan, np.inf, -np.inf], np.float32)},
               **exact),
        Sample("specials_toward_zero", make(RoundingMode.TOWARD_ZERO), {"InputTensor": specials},
               {"OutputTensor": np.array([-0.0, 0, -0.0, 0, -0.0, 8388609, np.nan, np.inf, -np.inf], np.float32)},
               **exact),
        Sample("specials_toward_infinity", make(RoundingMode.TOWARD_INFINITY), {"InputTensor": specials},
               {"OutputTensor": np.array([0, 1, -1, 0, -0.0, 8388609, np.nan, np.inf, -np.inf], np.float32)},
               **exact),
        Sample("broadcast", ew.unary_desc(cls, "FLOAT32", [2, 3], strides=[0, 1],
                                          rounding_mode=RoundingMode.TOWARD_INFINITY),
               {"InputTensor": np.array([0.5, -3.5, 7.49], np.float32)},
               {"OutputTensor": np.array([[1, -4, 7], [1, -4, 7]], np.float32)}, **exact),
    ]


SAMPLES = _samples()
