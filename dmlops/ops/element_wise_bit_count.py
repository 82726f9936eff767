"""DML_OPERATOR_ELEMENT_WISE_BIT_COUNT: the number of bits set in the bit pattern of each element (population count),
written as UINT8 or UINT32 whatever the input's DataType. Every input DataType the tiers declare (FLOAT16/32/64 from
DML_FEATURE_LEVEL_4_1) is a bit pattern of its width, as DirectML's vectors show (BIT_COUNT float32_2x3x4x5: NaN
(0x7FC00000) has 9 bits, -inf 9, -0 1; float16_3x4x5: NaN (0x7E00) 6; int32_3x4x5: -1 has 32, -2147483648 has 1).

ONNX and torch have no population count: ONNX looks each byte up in a 256-entry table (Gather), torch adds the bits
one mask at a time (torch-directml has no shift kernels). The float lowerings and what they cannot preserve (a NaN
input counts as the canonical quiet NaN; FLOAT64 on ONNX) are described in dmlops.ops._bits.
"""
from __future__ import annotations

import numpy as np

from ..sample import Sample, td
from . import _bits as B
from . import _elementwise as ew


def reference(desc, x):
    """The population count of each unsigned bit pattern."""
    dt = B.data_type(desc, "InputTensor")
    out = desc.output_tensor.data_type.numpy_dtype
    return {"OutputTensor": B.np_popcount(B.np_bits(x["InputTensor"], dt)).astype(out)}


def to_onnx(desc, g, x):
    """A byte-table population count of the integer pattern (FLOAT32/FLOAT16: the exact float32 decomposition into an
    int32 pattern); FLOAT64 refused."""
    B.onnx_refuse_float64(desc, "InputTensor")
    dt = B.data_type(desc, "InputTensor")
    count = B.onnx_popcount(g, B.onnx_pattern(g, x["InputTensor"], dt), B.WIDTH[dt])
    return {"OutputTensor": g.cast(count, desc.output_tensor.data_type.numpy_dtype)}


def to_torch(desc, torch, x):
    """The population count of the bit pattern (dmlops.ops._bits.torch_pattern), one bit mask at a time (int32)."""
    dt = B.data_type(desc, "InputTensor")
    p, _ = B.torch_pattern(torch, x["InputTensor"], dt)
    out = {"UINT8": torch.uint8, "UINT32": torch.uint32}[desc.output_tensor.data_type.name]
    return {"OutputTensor": B.torch_popcount(torch, p, B.WIDTH[dt]).to(out)}


def _samples():
    from ..descs import ElementWiseBitCount as cls

    def make(t, out="UINT8", sizes=(4,)):
        return cls(input_tensor=td(t, list(sizes)), output_tensor=td(out, list(sizes)))

    exact = dict(atol=0, rtol=0, why="bit counting: exact", float16_atol=0, float16_rtol=0)
    ints = []
    for t in ew.INTEGERS:  # -1 (or the unsigned maximum) has every bit of the width set
        width = 8 * np.dtype(t.lower()).itemsize
        first = -1 if t.startswith("INT") else 2**width - 1
        ints.append(Sample(f"int_{t.lower()}", make(t), {"InputTensor": ew.int_array([first, 0, 5, 127], t)},
                           {"OutputTensor": ew.int_array([width, 0, 2, 7], "UINT8")}, **exact))
    return [
        # The page's example: 0, 123 = 0b1111011, 456 = 0b111001000, 789 = 0b1100010101.
        Sample("uint32_page_example", make("UINT32", "UINT32", (2, 2)),
               {"InputTensor": ew.int_array([[0, 123], [456, 789]], "UINT32")},
               {"OutputTensor": ew.int_array([[0, 6], [4, 5]], "UINT32")}, **exact),
        # 1.0 = 0x3F800000 (7 bits), -0.0 = 0x80000000 (1), -inf = 0xFF800000 (9), 0.5 = 0x3F000000 (6);
        # DirectML's vector gives the same for 1.0, -0.0, -inf and 0.5.
        Sample("float32", make("FLOAT32"), {"InputTensor": np.array([1.0, -0.0, -np.inf, 0.5], np.float32)},
               {"OutputTensor": ew.int_array([7, 1, 9, 6], "UINT8")}, **exact),
        # NaN (0x7FC00000) 9 bits, the largest float32 (0x7F7FFFFF) 30, 2**-149 (0x00000001) 1, -(2**-126)
        # (0x80800000) 2: to UINT32.
        Sample("float32_specials_to_uint32", make("FLOAT32", "UINT32"),
               {"InputTensor": np.array([np.nan, np.finfo(np.float32).max, 2.0**-149, -(2.0**-126)], np.float32)},
               {"OutputTensor": ew.int_array([9, 30, 1, 2], "UINT32")}, **exact, float16=False),
    ] + ints


SAMPLES = _samples()
