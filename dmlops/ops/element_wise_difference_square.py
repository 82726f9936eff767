"""DML_OPERATOR_ELEMENT_WISE_DIFFERENCE_SQUARE: f(a, b) = (a - b) * (a - b).

Floats: the difference is rounded to float32 before it is squared (two roundings, as DirectML's vectors show:
float32_2x3x4x5 is reproduced exactly; inf - inf = NaN, inf - -inf squared = inf). INT32 and UINT32 wrap, the
difference first: UINT32 2 - 3 = 2**32 - 1, squared = 1 (mod 2**32).
"""
from __future__ import annotations

import numpy as np

from ..sample import Sample
from . import _elementwise as ew


def reference(desc, x):
    """d = a - b, then d * d, in the inputs' type (floats rounded at each step, integers wrapping)."""
    a, b = x["ATensor"], x["BTensor"]
    with np.errstate(all="ignore"):
        d = a - b
        return {"OutputTensor": d * d}


def to_onnx(desc, g, x):
    """Sub, then Mul of the difference by itself (not Pow)."""
    d = g.node("Sub", [x["ATensor"], x["BTensor"]])
    return {"OutputTensor": g.node("Mul", [d, d])}


def to_torch(desc, torch, x):
    """(a - b) * (a - b); uint32 through int64 with the low bits kept."""
    a, b = x["ATensor"], x["BTensor"]
    if a.is_floating_point():
        d = a - b
        return {"OutputTensor": d * d}
    return {"OutputTensor": ew.torch_wrapping(torch, lambda p, q: (p - q) * (p - q), a, b)}


def _samples():
    from ..descs import ElementWiseDifferenceSquare as cls

    def make(t, n=4):
        return ew.binary_desc(cls, t, [n])

    return [
        # (3 - 1)^2 = 4, (-1 - 2)^2 = 9, (0.5 - -0.5)^2 = 1, (-0 - 0)^2 = +0.
        Sample("basic", make("FLOAT32"),
               {"ATensor": np.array([3, -1, 0.5, -0.0], np.float32), "BTensor": np.array([1, 2, -0.5, 0], np.float32)},
               {"OutputTensor": np.array([4, 9, 1, 0], np.float32)},
               atol=0, rtol=0, why="exact", float16_atol=0, float16_rtol=0),
        # inf - inf = NaN; (inf - -inf)^2 = inf; (NaN - 1)^2 = NaN; 1e20^2 overflows to inf.
        Sample("specials", make("FLOAT32"),
               {"ATensor": np.array([np.inf, np.inf, np.nan, 1e20], np.float32),
                "BTensor": np.array([np.inf, -np.inf, 1, 0], np.float32)},
               {"OutputTensor": np.array([np.nan, np.inf, np.nan, np.inf], np.float32)},
               atol=0, rtol=0, why="exact", float16=False),
        # Two roundings: 1 + 2**-23 - 0 = 1 + 2**-23 (exact), squared = 1 + 2**-22 + 2**-46 -> 1 + 2**-22.
        Sample("rounding", make("FLOAT32", 1),
               {"ATensor": np.array([1 + 2**-23], np.float32), "BTensor": np.array([0], np.float32)},
               {"OutputTensor": np.array([1 + 2**-22], np.float32)}, atol=0, rtol=0, why="exact", float16=False),
        Sample("broadcast", ew.binary_desc(cls, "FLOAT32", [2, 3], strides_b=[0, 1]),
               {"ATensor": np.array([[1, 2, 3], [4, 5, 6]], np.float32), "BTensor": np.array([1, 1, 1], np.float32)},
               {"OutputTensor": np.array([[0, 1, 4], [9, 16, 25]], np.float32)},
               atol=0, rtol=0, why="exact", float16_atol=0, float16_rtol=0),
        Sample("int_int32", make("INT32"),
               {"ATensor": ew.int_array([-10, 17, 3, 0], "INT32"), "BTensor": ew.int_array([-12, 15, -4, 0], "INT32")},
               {"OutputTensor": ew.int_array([4, 4, 49, 0], "INT32")}, atol=0, rtol=0, why="exact"),
        # Wrapping: 65536^2 = 2**32 -> 0; (INT32_MIN - 1) wraps to INT32_MAX, squared = 1 (mod 2**32).
        Sample("int32_wrap", make("INT32", 2),
               {"ATensor": ew.int_array([65536, -2**31], "INT32"), "BTensor": ew.int_array([0, 1], "INT32")},
               {"OutputTensor": ew.int_array([0, 1], "INT32")}, atol=0, rtol=0, why="exact"),
        # UINT32: 2 - 3 wraps to 2**32 - 1, squared = 1; 7 - 2 = 5 -> 25; 65537^2 = 2**32 + 2**17 + 1 -> 131073.
        Sample("int_uint32", make("UINT32", 3),
               {"ATensor": ew.int_array([2, 7, 65537], "UINT32"), "BTensor": ew.int_array([3, 2, 0], "UINT32")},
               {"OutputTensor": ew.int_array([1, 25, 131073], "UINT32")}, atol=0, rtol=0, why="exact"),
    ]


SAMPLES = _samples()
