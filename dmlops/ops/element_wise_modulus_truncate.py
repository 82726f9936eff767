"""DML_OPERATOR_ELEMENT_WISE_MODULUS_TRUNCATE: f(a, b) = a - b * trunc(a / b), C's % (the dividend's sign).

Floats, from DirectML's vectors (float32_2x3x4x5, float16_3x4x5): the formula is evaluated literally in float32,
each operation rounded, which differs from C fmod / torch.fmod / ONNX Mod(fmod=1) in the last bits (case
float32_2x3x4x5 [12]: 1.7206758 mod 0.29743248 = 0.23351347, fmod 0.2335136) and at the specials: x mod ±0,
±inf mod y and x mod ±inf are NaN (fmod(1, inf) = 1; DirectML gives NaN). Integers: C's remainder, INT_MIN mod -1
= 0, and x mod 0 is DIVIDE's x / 0: -1 for x >= 0, 1 for x < 0, the type's maximum unsigned (DirectML's
sample_uint64_large: (2**63 + 1) mod 0 = 2**64 - 1; see dmlops.ops._arithmetic).
"""
from __future__ import annotations

import numpy as np

from ..sample import Sample
from . import _arithmetic as ar
from . import _elementwise as ew


def reference(desc, x):
    """The docs' formula in float32 for floats; C's remainder for integers."""
    return {"OutputTensor": ar.modulus(x["ATensor"], x["BTensor"], floor=False)}


def to_onnx(desc, g, x):
    """Div, trunc (Floor of |q| with q's sign), Mul, Sub for floats; a guarded truncating Div for integers."""
    return {"OutputTensor": ar.onnx_modulus(g, x["ATensor"], x["BTensor"], floor=False)}


def to_torch(desc, torch, x):
    """The same formula with torch ops (torch.fmod is not registered by torch-directml and rounds differently)."""
    return {"OutputTensor": ar.torch_modulus(torch, x["ATensor"], x["BTensor"], floor=False,
                                                    data_type=desc.a_tensor.data_type)}


def _samples():
    from ..descs import ElementWiseModulusTruncate as cls

    def make(t, n=6):
        return ew.binary_desc(cls, t, [n])

    return [
        # 5.5 mod 2 = 1.5, -5.5 mod 2 = -1.5, 5.5 mod -2 = 1.5, -5.5 mod -2 = -1.5 (the dividend's sign);
        # 7 mod 2.5 = 7 - 2.5 * 2 = 2; 0.75 mod 0.5 = 0.25. All exact in float32.
        Sample("basic", make("FLOAT32"),
               {"ATensor": np.array([5.5, -5.5, 5.5, -5.5, 7, 0.75], np.float32),
                "BTensor": np.array([2, 2, -2, -2, 2.5, 0.5], np.float32)},
               {"OutputTensor": np.array([1.5, -1.5, 1.5, -1.5, 2, 0.25], np.float32)},
               atol=0, rtol=0, why="exact: every step is exact here", float16_atol=0, float16_rtol=0),
        # The specials, as DirectML's vectors give them: x mod 0 = NaN, inf mod 2 = NaN (inf - 2 * inf),
        # 1 mod inf = NaN (inf * trunc(0) = inf * 0), 3 mod 1.5 = +0, -3 mod 1.5 = -3 - 1.5 * -2 = +0 (fmod: -0).
        Sample("specials", make("FLOAT32"),
               {"ATensor": np.array([1, 0, np.inf, 1, 3, -3], np.float32),
                "BTensor": np.array([0, -0.0, 2, np.inf, 1.5, 1.5], np.float32)},
               {"OutputTensor": np.array([np.nan, np.nan, np.nan, np.nan, 0, 0], np.float32)},
               atol=0, rtol=0, why="exact", float16_atol=0, float16_rtol=0),
        # Rounding of the literal formula: 1.7206758 / 0.29743248 = 5.785..., trunc 5, 0.29743248 * 5 = 1.4871624
        # (rounded), 1.7206758 - 1.4871624 = 0.23351347 (DirectML's vector float32_2x3x4x5 [12]; fmod: 0.2335136).
        Sample("literal_rounding", make("FLOAT32", 1),
               {"ATensor": np.array([1.7206758], np.float32), "BTensor": np.array([0.29743248], np.float32)},
               {"OutputTensor": np.array([0.23351347], np.float32)}, atol=0, rtol=0, why="exact", float16=False),
    ] + ew.integer_samples(
        # C's %: the dividend's sign; 0 mod 5 = 0; 9 mod 1 = 0.
        lambda t: make(t), ew.SIGNED, {"ATensor": [7, -7, 7, -7, 0, 9], "BTensor": [3, 3, -3, -3, 5, 1]},
        {"OutputTensor": [1, -1, 1, -1, 0, 0]}, why="exact") + ew.integer_samples(
        lambda t: make(t), ew.UNSIGNED, {"ATensor": [7, 8, 9, 0, 100, 255], "BTensor": [3, 3, 7, 1, 7, 16]},
        {"OutputTensor": [1, 2, 2, 0, 2, 15]}, why="exact") + [
        # INT32_MIN mod -1 = 0 (the quotient wraps; the remainder does not); 5 mod 0 = -1 and INT32_MIN mod 0 = 1
        # (DIVIDE's x / 0); INT32_MIN mod 3 = -2 (-2147483648 = 3 * -715827882 - 2); INT32_MAX mod -2 = 1.
        Sample("int32_edges", make("INT32", 5),
               {"ATensor": ew.int_array([-2**31, 5, -2**31, 2**31 - 1, -2**31], "INT32"),
                "BTensor": ew.int_array([-1, 0, 3, -2, 0], "INT32")},
               {"OutputTensor": ew.int_array([0, -1, -2, 1, 1], "INT32")}, atol=0, rtol=0, why="exact"),
        # Above 2**63: (2**64 - 1) mod 2**63 = 2**63 - 1; (2**64 - 1) mod 10 = 5; 7 mod (2**64 - 1) = 7; x mod 0 is
        # all ones, 2**64 - 1 (DirectML's sample_uint64_large).
        Sample("uint64_large", make("UINT64", 4),
               {"ATensor": ew.int_array([2**64 - 1, 2**64 - 1, 7, 2**63 + 1], "UINT64"),
                "BTensor": ew.int_array([2**63, 10, 2**64 - 1, 0], "UINT64")},
               {"OutputTensor": ew.int_array([2**63 - 1, 5, 7, 2**64 - 1], "UINT64")}, atol=0, rtol=0, why="exact"),
        # Narrow unsigned by zero: the type's maximum (0 mod 0 too).
        Sample("uint8_by_zero", make("UINT8", 3),
               {"ATensor": ew.int_array([5, 0, 255], "UINT8"), "BTensor": ew.int_array([0, 0, 0], "UINT8")},
               {"OutputTensor": ew.int_array([255, 255, 255], "UINT8")}, atol=0, rtol=0, why="exact"),
    ]


SAMPLES = _samples()
