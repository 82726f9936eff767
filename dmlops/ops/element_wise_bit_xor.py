"""DML_OPERATOR_ELEMENT_WISE_BIT_XOR: f(a, b) = a ^ b on the bit patterns of the elements (equal Sizes; zero strides
broadcast). Every DataType the tiers declare (FLOAT16/32/64 from DML_FEATURE_LEVEL_4_1) is a bit pattern of its
width: "the tensor data type is ignored except for determining the width of each element" (the page).

DirectML's vectors agree (BIT_XOR float32_2x3x4x5: 1.0 ^ NaN = 3.0, -inf ^ NaN = 0x80400000 = -5.877472e-39, 5.5 ^
2.0 = 1.6163047e-38). The float lowerings and what they cannot preserve (NaN payloads, FLOAT64 on ONNX) are described
in dmlops.ops._bits.
"""
from __future__ import annotations

import numpy as np

from ..sample import Sample
from . import _bits as B
from . import _elementwise as ew


def reference(desc, x):
    """a ^ b on the unsigned bit patterns (exact for every pattern, NaN payloads included)."""
    return B.reference_binary(desc, x, np.bitwise_xor)


def to_onnx(desc, g, x):
    """ONNX BitwiseXor (opset 18) on integers; FLOAT32/FLOAT16 through exact float32 decomposition into int32 bit
    patterns and back; FLOAT64 refused (dmlops.ops._bits)."""
    return B.onnx_binary(desc, g, x, "BitwiseXor")


def to_torch(desc, torch, x):
    """torch.bitwise_xor on the bit patterns (dmlops.ops._bits.torch_pattern)."""
    return B.torch_binary(desc, torch, x, torch.bitwise_xor)


def _bits32(values) -> np.ndarray:
    return np.array(values, np.uint32).view(np.float32)


def _samples():
    from ..descs import ElementWiseBitXor as cls

    def make(t):
        return ew.binary_desc(cls, t, [4])

    exact = dict(atol=0, rtol=0, why="bit operations: exact", float16_atol=0, float16_rtol=0)
    return [
        # 1.0 = 0x3F800000 ^ -1.0 = 0xBF800000 = 0x80000000 = -0.0; -1.0 ^ -1.0 = +0.0; 2.0 = 0x40000000 ^
        # 1.0 = 0x7F800000 = +inf; +0.0 ^ -0.0 = -0.0.
        Sample("float32_signs", make("FLOAT32"),
               {"ATensor": np.array([1.0, -1.0, 2.0, 0.0], np.float32),
                "BTensor": np.array([-1.0, -1.0, 1.0, -0.0], np.float32)},
               {"OutputTensor": np.array([-0.0, 0.0, np.inf, -0.0], np.float32)}, **exact),
        # 1.0 ^ NaN = 0x3F800000 ^ 0x7FC00000 = 0x40400000 = 3.0 (DirectML's vector); 5.5 = 0x40B00000 ^ 2.0 =
        # 0x00B00000 = 1.6163047e-38; 1.0 ^ (1 + 2**-23) = 0x00000001 = 2**-149; -inf ^ inf = -0.0.
        Sample("float32_specials", make("FLOAT32"),
               {"ATensor": np.array([1.0, 5.5, 1.0, -np.inf], np.float32),
                "BTensor": np.array([np.nan, 2.0, 1 + 2.0**-23, np.inf], np.float32)},
               {"OutputTensor": _bits32([0x40400000, 0x00B00000, 0x00000001, 0x80000000])}, **exact),
    ] + ew.integer_samples(make, ew.SIGNED, {"ATensor": [12, -1, -6, 0], "BTensor": [10, 7, -3, 5]},
                           {"OutputTensor": [6, -8, 7, 5]}, why="bit operations: exact") + \
        ew.integer_samples(make, ew.UNSIGNED, {"ATensor": [12, 255, 250, 0], "BTensor": [10, 7, 253, 5]},
                           {"OutputTensor": [6, 248, 7, 5]}, why="bit operations: exact") + [
        # B = [1, 2] per row through strides [1, 0] (a zero stride): each row against one pattern.
        Sample("uint8_broadcast_column", ew.binary_desc(cls, "UINT8", [2, 3], strides_b=[1, 0]),
               {"ATensor": ew.int_array([[1, 2, 3], [1, 2, 3]], "UINT8"), "BTensor": ew.int_array([1, 2], "UINT8")},
               {"OutputTensor": ew.int_array([[0, 3, 2], [3, 0, 1]], "UINT8")}, **exact),
    ]


SAMPLES = _samples()
