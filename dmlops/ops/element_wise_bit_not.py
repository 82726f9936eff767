"""DML_OPERATOR_ELEMENT_WISE_BIT_NOT: f(x) = ~x on the bit pattern of each element. Every DataType the tiers declare
(FLOAT16/32/64 from DML_FEATURE_LEVEL_4_1) is a bit pattern of its width, as the page says and DirectML's vectors
show (BIT_NOT float32_2x3x4x5: ~NaN = 0x803FFFFF = -5.877470e-39, ~-inf = 0x007FFFFF = 1.1754942e-38, ~+0 and ~-0 are
NaNs: 0xFFFFFFFF and 0x7FFFFFFF; int32: ~-2147483648 = 2147483647).

The float lowerings and what they cannot preserve (NaN payloads: ~+0 comes out as a NaN, not 0xFFFFFFFF; FLOAT64 on
ONNX) are described in dmlops.ops._bits.
"""
from __future__ import annotations

import numpy as np

from ..sample import Sample
from . import _bits as B
from . import _elementwise as ew


def reference(desc, x):
    """~x on the unsigned bit pattern (exact for every pattern)."""
    dt = B.data_type(desc, "InputTensor")
    return {"OutputTensor": B.np_value(np.invert(B.np_bits(x["InputTensor"], dt)), dt)}


def to_onnx(desc, g, x):
    """ONNX BitwiseNot (opset 18) on integers; FLOAT32/FLOAT16 through exact float32 decomposition into int32 bit
    patterns (a FLOAT16 pattern is flipped with BitwiseXor 0xFFFF) and back; FLOAT64 refused."""
    B.onnx_refuse_float64(desc, "InputTensor")
    dt = B.data_type(desc, "InputTensor")
    return {"OutputTensor": B.onnx_value(g, B.onnx_not(g, B.onnx_pattern(g, x["InputTensor"], dt), dt), dt)}


def to_torch(desc, torch, x):
    """torch.bitwise_not on the bit pattern (dmlops.ops._bits.torch_pattern)."""
    dt = B.data_type(desc, "InputTensor")
    p, back = B.torch_pattern(torch, x["InputTensor"], dt)
    return {"OutputTensor": back(B.torch_not(torch, p, dt))}


def _samples():
    from ..descs import ElementWiseBitNot as cls

    def make(t):
        return ew.unary_desc(cls, t, [4])

    exact = dict(atol=0, rtol=0, why="bit operations: exact", float16_atol=0, float16_rtol=0)
    unsigned = []
    for t in ew.UNSIGNED:  # ~v = 2**width - 1 - v
        top = 2 ** (8 * np.dtype(t.lower()).itemsize) - 1
        unsigned.append(Sample(f"int_{t.lower()}", make(t), {"InputTensor": ew.int_array([0, top, 5, 250], t)},
                               {"OutputTensor": ew.int_array([top, 0, top - 5, top - 250], t)}, **exact))
    return [
        # ~1.0 = ~0x3F800000 = 0xC07FFFFF = -(2 - 2**-23) * 2 = -3.9999998; ~-inf = ~0xFF800000 = 0x007FFFFF, the
        # largest subnormal (1 - 2**-23) * 2**-126; ~-2.0 = ~0xC0000000 = 0x3FFFFFFF = 2 - 2**-23; ~-(2**-149) =
        # ~0x80000001 = 0x7FFFFFFE, a NaN.
        Sample("float32", make("FLOAT32"),
               {"InputTensor": np.array([1.0, -np.inf, -2.0, -(2.0**-149)], np.float32)},
               {"OutputTensor": np.array([-(4 - 2.0**-22), (1 - 2.0**-23) * 2.0**-126, 2 - 2.0**-23, np.nan],
                                         np.float32)}, **exact),
        # ~+0 = 0xFFFFFFFF and ~-0 = 0x7FFFFFFF are NaNs (DirectML's vector); ~NaN = ~0x7FC00000 = 0x803FFFFF =
        # -(2**-127 - 2**-149); ~(2**-126) = ~0x00800000 = 0xFF7FFFFF = -float32 max.
        Sample("float32_specials", make("FLOAT32"),
               {"InputTensor": np.array([0.0, -0.0, np.nan, 2.0**-126], np.float32)},
               {"OutputTensor": np.array([np.nan, np.nan, -(2.0**-127 - 2.0**-149), -np.finfo(np.float32).max],
                                         np.float32)}, **exact, float16=False),  # 2**-126 is 0 in float16
    ] + ew.integer_samples(make, ew.SIGNED, {"InputTensor": [0, -1, 5, -128]}, {"OutputTensor": [-1, 0, -6, 127]},
                           why="bit operations: exact") + unsigned


SAMPLES = _samples()
