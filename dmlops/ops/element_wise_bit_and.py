"""DML_OPERATOR_ELEMENT_WISE_BIT_AND: f(a, b) = a & b on the bit patterns of the elements (equal Sizes; zero strides
broadcast). Every DataType the tiers declare (FLOAT16/32/64 from DML_FEATURE_LEVEL_4_1) is a bit pattern of its
width: "the tensor data type is ignored except for determining the width of each element" (the page).

DirectML's vectors agree (BIT_AND float32_2x3x4x5: NaN (0x7FC00000) & 1.0 = 1.0, -inf & NaN = +inf, and two normals
can give a subnormal: -2.2431133 & 2.7960665 = 1.5038973e-39). The float lowerings and what they cannot preserve (NaN
payloads, FLOAT64 on ONNX) are described in dmlops.ops._bits.
"""
from __future__ import annotations

import numpy as np

from ..sample import Sample
from . import _bits as B
from . import _elementwise as ew


def reference(desc, x):
    """a & b on the unsigned bit patterns (exact for every pattern, NaN payloads included)."""
    return B.reference_binary(desc, x, np.bitwise_and)


def to_onnx(desc, g, x):
    """ONNX BitwiseAnd (opset 18) on integers; FLOAT32/FLOAT16 through exact float32 decomposition into int32 bit
    patterns and back; FLOAT64 refused (dmlops.ops._bits)."""
    return B.onnx_binary(desc, g, x, "BitwiseAnd")


def to_torch(desc, torch, x):
    """torch.bitwise_and on the bit patterns (dmlops.ops._bits.torch_pattern)."""
    return B.torch_binary(desc, torch, x, torch.bitwise_and)


def _samples():
    from ..descs import ElementWiseBitAnd as cls

    def make(t):
        return ew.binary_desc(cls, t, [4])

    exact = dict(atol=0, rtol=0, why="bit operations: exact", float16_atol=0, float16_rtol=0)
    return [
        # 1.0 = 0x3F800000, -1.0 = 0xBF800000: & = 0x3F800000 = 1.0; -2.5 = 0xC0200000 & 2.5 = 0x40200000 =
        # 2.5; 3.0 = 0x40400000 & 0.5 = 0x3F000000 = 0; -0.0 = 0x80000000 & 1.0 = +0.0.
        Sample("float32_sign_and_exponent", make("FLOAT32"),
               {"ATensor": np.array([1.0, -2.5, 3.0, -0.0], np.float32),
                "BTensor": np.array([-1.0, 2.5, 0.5, 1.0], np.float32)},
               {"OutputTensor": np.array([1.0, 2.5, 0.0, 0.0], np.float32)}, **exact),
        # -inf = 0xFF800000 & NaN = 0x7FC00000 gives 0x7F800000 = +inf (DirectML's vector); 1.5 = 0x3FC00000 &
        # 2**-127 = 0x00400000 (a subnormal) = 2**-127; -0.0 & -0.0 = -0.0; inf & -1.0 = 0x3F800000 = 1.0.
        Sample("float32_specials", make("FLOAT32"),
               {"ATensor": np.array([-np.inf, 1.5, -0.0, np.inf], np.float32),
                "BTensor": np.array([np.nan, 2.0**-127, -0.0, -1.0], np.float32)},
               {"OutputTensor": np.array([np.inf, 2.0**-127, -0.0, 1.0], np.float32)}, **exact),
    ] + ew.integer_samples(make, ew.SIGNED, {"ATensor": [12, -1, -6, 0], "BTensor": [10, 7, -3, 5]},
                           {"OutputTensor": [8, 7, -8, 0]}, why="bit operations: exact") + \
        ew.integer_samples(make, ew.UNSIGNED, {"ATensor": [12, 255, 250, 0], "BTensor": [10, 7, 253, 5]},
                           {"OutputTensor": [8, 7, 248, 0]}, why="bit operations: exact") + [
        # B = [1, 2] per row through strides [1, 0] (a zero stride): each row against one pattern.
        Sample("uint8_broadcast_column", ew.binary_desc(cls, "UINT8", [2, 3], strides_b=[1, 0]),
               {"ATensor": ew.int_array([[1, 2, 3], [1, 2, 3]], "UINT8"), "BTensor": ew.int_array([1, 2], "UINT8")},
               {"OutputTensor": ew.int_array([[1, 0, 1], [0, 2, 2]], "UINT8")}, **exact),
    ]


SAMPLES = _samples()
