"""DML_OPERATOR_ELEMENT_WISE_MODULUS_FLOOR: f(a, b) = a - b * floor(a / b), Python's % (the divisor's sign).

Floats, from DirectML's vectors (float32_2x3x4x5, float16_3x4x5): the formula is evaluated literally in float32,
each operation rounded, which differs from Python's % / torch.remainder in the last bits (14 of 120 elements of
float32_2x3x4x5 differ from an exact remainder) and at the specials: x mod ±0, ±inf mod y and x mod ±inf are
NaN (Python: 1 % inf = 1). ONNX Mod(fmod=0) is integer-only at opset 18, so floats are composed. Integers:
Python's remainder, INT_MIN mod -1 = 0, and x mod 0 is DIVIDE's x / 0: -1 for x >= 0, 1 for x < 0, the type's
maximum unsigned (DirectML's sample_int8_edges: 5 mod 0 = -1, -5 mod 0 = 1; see dmlops.ops._arithmetic).
"""
from __future__ import annotations

import numpy as np

from ..sample import Sample
from . import _arithmetic as ar
from . import _elementwise as ew


def reference(desc, x):
    """The docs' formula in float32 for floats; Python's remainder for integers."""
    return {"OutputTensor": ar.modulus(x["ATensor"], x["BTensor"], floor=True)}


def to_onnx(desc, g, x):
    """Div, Floor, Mul, Sub for floats; a guarded truncating Div, then the divisor's sign, for integers."""
    return {"OutputTensor": ar.onnx_modulus(g, x["ATensor"], x["BTensor"], floor=True)}


def to_torch(desc, torch, x):
    """The same formula with torch ops (torch.remainder rounds differently for floats)."""
    return {"OutputTensor": ar.torch_modulus(torch, x["ATensor"], x["BTensor"], floor=True,
                                                    data_type=desc.a_tensor.data_type)}


def _samples():
    from ..descs import ElementWiseModulusFloor as cls

    def make(t, n=6):
        return ew.binary_desc(cls, t, [n])

    return [
        # 5.5 mod 2 = 1.5, -5.5 mod 2 = 0.5, 5.5 mod -2 = -0.5, -5.5 mod -2 = -1.5 (the divisor's sign);
        # -7 mod 2.5 = -7 - 2.5 * -3 = 0.5; 0.75 mod -0.5 = 0.75 - -0.5 * -2 = -0.25. All exact in float32.
        Sample("basic", make("FLOAT32"),
               {"ATensor": np.array([5.5, -5.5, 5.5, -5.5, -7, 0.75], np.float32),
                "BTensor": np.array([2, 2, -2, -2, 2.5, -0.5], np.float32)},
               {"OutputTensor": np.array([1.5, 0.5, -0.5, -1.5, 0.5, -0.25], np.float32)},
               atol=0, rtol=0, why="exact: every step is exact here", float16_atol=0, float16_rtol=0),
        # x mod 0 = NaN, inf mod 2 = NaN, 1 mod inf = NaN (inf * floor(0)), -1 mod inf = NaN (inf * floor(-0));
        # 3 mod -1.5 = 3 - -1.5 * -2 = +0; -3 mod 1.5 = +0.
        Sample("specials", make("FLOAT32"),
               {"ATensor": np.array([1, np.inf, 1, -1, 3, -3], np.float32),
                "BTensor": np.array([0, 2, np.inf, np.inf, -1.5, 1.5], np.float32)},
               {"OutputTensor": np.array([np.nan, np.nan, np.nan, np.nan, 0, 0], np.float32)},
               atol=0, rtol=0, why="exact", float16_atol=0, float16_rtol=0),
    ] + ew.integer_samples(
        # Python's %: the divisor's sign; 0 mod -5 = 0; -9 mod 1 = 0.
        lambda t: make(t), ew.SIGNED, {"ATensor": [7, -7, 7, -7, 0, -9], "BTensor": [3, 3, -3, -3, -5, 1]},
        {"OutputTensor": [1, 2, -2, -1, 0, 0]}, why="exact") + ew.integer_samples(
        lambda t: make(t), ew.UNSIGNED, {"ATensor": [7, 8, 9, 0, 100, 255], "BTensor": [3, 3, 7, 1, 7, 16]},
        {"OutputTensor": [1, 2, 2, 0, 2, 15]}, why="exact") + [
        # INT8: -128 mod -1 = 0; -128 mod 127 = 126 (-128 = 127 * -2 + 126); 127 mod -128 = -1; 5 mod 0 = -1 and
        # -5 mod 0 = 1, DIVIDE's x / 0 (DirectML's sample_int8_edges).
        Sample("int8_edges", make("INT8", 5),
               {"ATensor": ew.int_array([-128, -128, 127, 5, -5], "INT8"),
                "BTensor": ew.int_array([-1, 127, -128, 0, 0], "INT8")},
               {"OutputTensor": ew.int_array([0, 126, -1, -1, 1], "INT8")}, atol=0, rtol=0, why="exact"),
        # By zero elsewhere: 0 mod 0 = -1 and -128 mod 0 = 1 (INT16 alike); UINT32 gives its maximum.
        Sample("int16_by_zero", make("INT16", 3),
               {"ATensor": ew.int_array([0, -32768, 32767], "INT16"), "BTensor": ew.int_array([0, 0, 0], "INT16")},
               {"OutputTensor": ew.int_array([-1, 1, -1], "INT16")}, atol=0, rtol=0, why="exact"),
        Sample("uint32_by_zero", make("UINT32", 2),
               {"ATensor": ew.int_array([0, 7], "UINT32"), "BTensor": ew.int_array([0, 0], "UINT32")},
               {"OutputTensor": ew.int_array([2**32 - 1, 2**32 - 1], "UINT32")}, atol=0, rtol=0, why="exact"),
        # INT64 extremes: INT64_MIN mod -1 = 0; INT64_MIN mod 3 = 1 (-2**63 = 3 * -3074457345618258603 + 1).
        Sample("int64_edges", make("INT64", 2),
               {"ATensor": ew.int_array([-2**63, -2**63], "INT64"), "BTensor": ew.int_array([-1, 3], "INT64")},
               {"OutputTensor": ew.int_array([0, 1], "INT64")}, atol=0, rtol=0, why="exact"),
    ]


SAMPLES = _samples()
