"""DML_OPERATOR_ELEMENT_WISE_BIT_SHIFT_LEFT: f(a, b) = a << b, a logical shift of unsigned integers (UINT8/16/32, UINT64
from DML_FEATURE_LEVEL_4_1), equal Sizes; zero strides broadcast.

Shift counts the page leaves open, from DirectML's vectors: the shift is done in a 32-bit register with the count
taken modulo 32, as HLSL's ``<<`` does (BIT_SHIFT_LEFT uint32_3x4x5: 693 << 33 = 1386 and 555 << 34 = 2220: the
count modulo 32, not 0); narrower types are widened to that register and the result keeps the type's low bits
(uint16_3x4x5: 17 << 16 = 0, 846 << 18 = 0, 307 << 6 = 19648). UINT64 is shifted as two 32-bit halves (DirectML's
sample_uint64: 5 << 65 = 5 << 33 = 42949672960): a count below 32 shifts across the halves, any other count moves
one half into the other and shifts it by the count modulo 32, so the effective count is c for c < 32 and 32 + c mod
32 otherwise (64 acts as 32, 65 as 33, 96 as 32), c being the count's low 32 bits (_bits.np_shift_count64; the
count's high half is taken to be ignored, unverified). There is no UINT8 vector: UINT8 is taken to work as UINT16
does.
ONNX BitShift and torch leave counts >= the width undefined or 0, so every lowering reduces the count first.
"""
from __future__ import annotations

import numpy as np

from ..sample import Sample
from . import _bits as B
from . import _elementwise as ew

def reference(desc, x):
    """a << (b mod 32) in a uint32 register, kept to the type's width; UINT64: a << B.np_shift_count64(b)."""
    a, b = x["ATensor"], x["BTensor"]
    if a.dtype == np.uint64:
        return {"OutputTensor": np.left_shift(a, B.np_shift_count64(b))}
    width = 8 * a.dtype.itemsize
    r = np.left_shift(a.astype(np.uint32), b.astype(np.uint32) & np.uint32(31))
    return {"OutputTensor": (r & np.uint32(2**width - 1)).astype(a.dtype)}


def to_onnx(desc, g, x):
    """ONNX BitShift (opset 11) in uint32 (UINT8/UINT16 zero-extended, masked back to their width) with the count
    masked to 5 bits, or in uint64 with B.onnx_shift_count64."""
    a, b = x["ATensor"], x["BTensor"]
    dtype = g.dtype(a)
    width = 8 * dtype.itemsize
    if width < 32:
        a, b = g.cast(a, np.uint32), g.cast(b, np.uint32)
    s = B.onnx_shift_count64(g, b) if width == 64 else g.node("BitwiseAnd", [b, g.scalar(31, b)])
    r = g.node("BitShift", [a, s], direction="LEFT")
    if width < 32:
        r = g.cast(g.node("BitwiseAnd", [r, g.scalar(2**width - 1, r)]), dtype)
    return {"OutputTensor": r}


def to_torch(desc, torch, x):
    """UINT8 (the only one torch-directml runs, which has no shift kernels): an int32 multiply by 2**min(b mod 32, 8)
    from a table, masked to 8 bits; UINT16/UINT32: int64 shifts, masked; UINT64: int64 shifts on the same bits."""
    a, b = x["ATensor"], x["BTensor"]
    if a.dtype == torch.uint8:
        # shifting a byte by 8 or more leaves 0 either way, so the factor stays within 2**8
        s = B.torch_and(torch, b.to(torch.int32), 31).clamp(max=8)
        table = torch.tensor([2**i for i in range(9)], dtype=torch.int32, device=a.device)
        factor = torch.index_select(table, 0, s.reshape(-1)).reshape(s.shape)
        v = a.to(torch.int32)
        r = B.torch_and(torch, v * factor, 255)
        return {"OutputTensor": r.to(torch.uint8)}
    if a.dtype == torch.uint64:
        v, s = a.view(torch.int64), B.torch_shift_count64(torch, b)
        r = torch.bitwise_left_shift(v, s)
        return {"OutputTensor": r.view(torch.uint64)}
    width = 8 * a.element_size()
    v, s = a.to(torch.int64), B.torch_and(torch, b.to(torch.int64), 31)
    r = B.torch_and(torch, torch.bitwise_left_shift(v, s), 2**width - 1)
    return {"OutputTensor": r.to(a.dtype)}


def _samples():
    from ..descs import ElementWiseBitShiftLeft as cls

    def make(t):
        return ew.binary_desc(cls, t, [4])

    exact = dict(atol=0, rtol=0, why="shifts: exact")

    def shift(t, a, b, y):
        return Sample(t.lower(), make(t), {"ATensor": ew.int_array(a, t), "BTensor": ew.int_array(b, t)},
                      {"OutputTensor": ew.int_array(y, t)}, **exact)

    return [
        # 1 << 4 = 16; 3 << 31 = 0x180000000 keeps 0x80000000; 0x80000001 << 1 keeps 2; 5 << 33 = 5 << 1 = 10
        # (the count modulo 32, as DirectML's uint32 vector shows).
        shift("UINT32", [1, 3, 0x80000001, 5], [4, 31, 1, 33], [16, 0x80000000, 2, 10]),
        # 3 << 15 keeps 0x8000; 5 << 16 = 0 (DirectML's uint16 vector: not the count modulo 16).
        shift("UINT16", [1, 3, 0x8001, 5], [4, 15, 1, 16], [16, 0x8000, 2, 0]),
        shift("UINT8", [1, 3, 0x81, 5], [4, 7, 1, 8], [16, 0x80, 2, 0]),
        # 3 << 63 keeps 2**63; 5 << 65 = 5 << 33 (DirectML's sample_uint64: two 32-bit halves, module docstring).
        shift("UINT64", [1, 3, 2**63 + 1, 5], [4, 63, 1, 65], [16, 2**63, 2, 5 << 33]),
        # By that rule: 64 acts as 32, 96 as 32, 127 as 63, 32 + 2**32 as 32 (the count's low half).
        Sample("uint64_counts_above_63", make("UINT64"),
               {"ATensor": ew.int_array([3, 3, 3, 2**32 + 1], "UINT64"),
                "BTensor": ew.int_array([64, 96, 127, 32 + 2**32], "UINT64")},
               {"OutputTensor": ew.int_array([3 << 32, 3 << 32, 2**63, 2**32], "UINT64")}, **exact),
        # B = [1, 2] per row through strides [1, 0] (a zero stride).
        Sample("uint32_broadcast_column", ew.binary_desc(cls, "UINT32", [2, 3], strides_b=[1, 0]),
               {"ATensor": ew.int_array([[1, 2, 12], [1, 2, 12]], "UINT32"),
                "BTensor": ew.int_array([1, 2], "UINT32")},
               {"OutputTensor": ew.int_array([[2, 4, 24], [4, 8, 48]], "UINT32")}, **exact),
    ]


SAMPLES = _samples()
