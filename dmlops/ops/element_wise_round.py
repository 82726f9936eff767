"""DML_OPERATOR_ELEMENT_WISE_ROUND: each element rounded to an integer by RoundingMode.

* HALVES_TO_NEAREST_EVEN: ties to even (0.5 -> 0, 1.5 -> 2, -2.5 -> -2), ONNX Round and torch.round.
* TOWARD_ZERO: truncation (ONNX has no Trunc at opset 18: Floor(|x|) given x's sign by a multiply; torch-directml
  has no aten::trunc: ceil below 0, floor elsewhere).
* TOWARD_INFINITY: NOT a ceiling: "rounded to the nearest integer, with halfway values rounded away from zero"
  (the DML_ROUNDING_MODE page; DirectML's vectors float32_toward_infinity: 0.5 -> 1, -1.5 -> -2, 2.5 -> 3, -2.5 -> -3,
  2.504549 -> 3, -0.9999 -> -1). DirectML computes it as x >= 0 ? floor(x + 0.5) : ceil(x - 0.5) in float32, the
  sum rounded before the floor (sample_specials_toward_infinity): 0.49999997 + 0.5 rounds to 1, so 0.49999997 gives
  1, and 8388609 + 0.5 rounds to 8388610 (ties to even above 2**23), so 8388609 gives 8388610, where the exact
  rounding keeps 0 and 8388609; -0 takes the first branch and gives +0 (float32/float16_toward_infinity [3],
  sample_specials_toward_infinity [0]) while -0.25 gives ceil(-0.75) = -0. dmlops computes that formula, FLOAT16
  in float32 (exact there: x + 0.5 needs at most 17 bits). NaN and ±inf are kept.

Signed zeros in the other modes, from the vectors: -0 stays -0. NaN and ±inf are kept in every mode.
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
    """np.round (ties to even), np.trunc, or x >= 0 ? floor(x + 0.5) : ceil(x - 0.5) in float32."""
    v = x["InputTensor"]
    mode = _mode(desc)
    if mode == RoundingMode.HALVES_TO_NEAREST_EVEN:
        return {"OutputTensor": np.round(v)}
    t = np.trunc(v)
    if mode == RoundingMode.TOWARD_ZERO:
        return {"OutputTensor": t}
    f, half = v.astype(np.float32), np.float32(0.5)
    with np.errstate(invalid="ignore"):  # NaN >= 0 is False: ceil(NaN - 0.5) keeps NaN
        return {"OutputTensor": np.where(f >= 0, np.floor(f + half), np.ceil(f - half)).astype(v.dtype)}


def to_onnx(desc, g, x):
    """Round; Floor(|x|) with x's sign; or x >= 0 ? Floor(x + 0.5) : Ceil(x - 0.5) in float32."""
    v = x["InputTensor"]
    mode = _mode(desc)
    if mode == RoundingMode.HALVES_TO_NEAREST_EVEN:
        return {"OutputTensor": g.node("Round", [v])}
    t = ar.onnx_trunc(g, v)
    if mode == RoundingMode.TOWARD_ZERO:
        return {"OutputTensor": t}
    dtype = g.dtype(v)
    f = g.cast(v, np.float32)
    half, zero = ew.onnx_const(g, 0.5, np.float32), ew.onnx_const(g, 0, np.float32)
    up = g.node("Floor", [g.node("Add", [f, half])])  # never -0: x + 0.5 >= 0.5 where it is taken
    down = g.node("Ceil", [g.node("Sub", [f, half])])  # -0 for x in (-0.5, 0)
    r = ew.onnx_where(g, g.node("GreaterOrEqual", [f, zero], dtype=np.bool_), up, down)
    return {"OutputTensor": g.cast(r, dtype)}


def to_torch(desc, torch, x):
    """torch.round; ceil/floor by sign; or x >= 0 ? floor(x + 0.5) : ceil(x - 0.5) in float32."""
    v = x["InputTensor"]
    mode = _mode(desc)
    if mode == RoundingMode.HALVES_TO_NEAREST_EVEN:
        return {"OutputTensor": torch.round(v)}
    t = ar.torch_trunc(torch, v)
    if mode == RoundingMode.TOWARD_ZERO:
        return {"OutputTensor": t}
    f = v.to(torch.float32)
    r = torch.where(f >= 0, torch.floor(f + 0.5), torch.ceil(f - 0.5))
    return {"OutputTensor": r.to(v.dtype)}


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
        # but toward infinity, where 0.49999997 + 0.5 rounds to 1 first; -0.25 -> -0; 8388609 (2**23 + 1, already
        # integral) stays but toward infinity, where 8388609.5 rounds to 8388610 first (DirectML's
        # sample_specials_toward_infinity); NaN and ±inf stay.
        Sample("specials_halves_to_nearest_even", make(RoundingMode.HALVES_TO_NEAREST_EVEN), {"InputTensor": specials},
               {"OutputTensor": np.array([-0.0, 0, -0.0, 0, -0.0, 8388609, np.nan, np.inf, -np.inf], np.float32)},
               **exact),
        Sample("specials_toward_zero", make(RoundingMode.TOWARD_ZERO), {"InputTensor": specials},
               {"OutputTensor": np.array([-0.0, 0, -0.0, 0, -0.0, 8388609, np.nan, np.inf, -np.inf], np.float32)},
               **exact),
        Sample("specials_toward_infinity", make(RoundingMode.TOWARD_INFINITY), {"InputTensor": specials},
               {"OutputTensor": np.array([0, 1, -1, 1, -0.0, 8388610, np.nan, np.inf, -np.inf], np.float32)},
               **exact),
        Sample("broadcast", ew.unary_desc(cls, "FLOAT32", [2, 3], strides=[0, 1],
                                          rounding_mode=RoundingMode.TOWARD_INFINITY),
               {"InputTensor": np.array([0.5, -3.5, 7.49], np.float32)},
               {"OutputTensor": np.array([[1, -4, 7], [1, -4, 7]], np.float32)}, **exact),
    ]


SAMPLES = _samples()
