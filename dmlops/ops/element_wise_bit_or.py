"""DML_OPERATOR_ELEMENT_WISE_BIT_OR: f(a, b) = a | b on the bit patterns of the elements (equal Sizes; zero strides
broadcast). Every DataType the tiers declare (FLOAT16/32/64 from DML_FEATURE_LEVEL_4_1) is a bit pattern of its
width: "the tensor data type is ignored except for determining the width of each element" (the page).

DirectML's vectors agree (BIT_OR float32_2x3x4x5: -inf | NaN = 0xFFC00000, a NaN; +0 | -0 = -0). The float lowerings
and what they cannot preserve (NaN payloads, FLOAT64 on ONNX) are described in dmlops.ops._bits.
"""
from __future__ import annotations

import numpy as np

from ..sample import Sample
from . import _bits as B
from . import _elementwise as ew


def reference(desc, x):
    """a | b on the unsigned bit patterns (exact for every pattern, NaN payloads included)."""
    return B.reference_binary(desc, x, np.bitwise_or)


def to_onnx(desc, g, x):
    """ONNX BitwiseOr (opset 18) on integers; FLOAT32/FLOAT16 through exact float32 decomposition into int32 bit
    patterns and back; FLOAT64 refused (dmlops.ops._bits)."""
    return B.onnx_binary(desc, g, x, "BitwiseOr")


def to_torch(desc, torch, x):
    """torch.bitwise_or on the bit patterns (dmlops.ops._bits.torch_pattern)."""
    return B.torch_binary(desc, torch, x, torch.bitwise_or)


def _samples():
    from ..descs import ElementWiseBitOr as cls

    def make(t):
        return ew.binary_desc(cls, t, [4])

    exact = dict(atol=0, rtol=0, why="bit operations: exact", float16_atol=0, float16_rtol=0)
    return [
        # 1.0 = 0x3F800000 | 0.5 = 0x3F000000 = 1.0; 2.0 = 0x40000000 | 1.0 = 0x7F800000 = +inf;
        # -0.0 = 0x80000000 | +0.0 = -0.0; 1.0 | 3.0 = 0x40400000 gives 0x7FC00000, a NaN.
        Sample("float32_exponents", make("FLOAT32"),
               {"ATensor": np.array([1.0, 2.0, -0.0, 1.0], np.float32),
                "BTensor": np.array([0.5, 1.0, 0.0, 3.0], np.float32)},
               {"OutputTensor": np.array([1.0, np.inf, -0.0, np.nan], np.float32)}, **exact),
        # 2**-149 = 0x00000001 | 2**-148 = 0x00000002 = 3 * 2**-149 (subnormals stay subnormal); -1.0 | 2**-149 =
        # 0xBF800001 = -(1 + 2**-23).
        Sample("float32_subnormals", make("FLOAT32"),
               {"ATensor": np.array([2.0**-149, -1.0, 0.0, -np.inf], np.float32),
                "BTensor": np.array([2.0**-148, 2.0**-149, 0.0, 0.0], np.float32)},
               {"OutputTensor": np.array([3 * 2.0**-149, -(1 + 2.0**-23), 0.0, -np.inf], np.float32)},
               **exact),
    ] + ew.integer_samples(make, ew.SIGNED, {"ATensor": [12, -1, -6, 0], "BTensor": [10, 7, -3, 5]},
                           {"OutputTensor": [14, -1, -1, 5]}, why="bit operations: exact") + \
        ew.integer_samples(make, ew.UNSIGNED, {"ATensor": [12, 255, 250, 0], "BTensor": [10, 7, 253, 5]},
                           {"OutputTensor": [14, 255, 255, 5]}, why="bit operations: exact") + [
        # B = [1, 2] per row through strides [1, 0] (a zero stride): each row against one pattern.
        Sample("uint8_broadcast_column", ew.binary_desc(cls, "UINT8", [2, 3], strides_b=[1, 0]),
               {"ATensor": ew.int_array([[1, 2, 3], [1, 2, 3]], "UINT8"), "BTensor": ew.int_array([1, 2], "UINT8")},
               {"OutputTensor": ew.int_array([[1, 3, 3], [3, 2, 3]], "UINT8")}, **exact),
    ]


SAMPLES = _samples()
