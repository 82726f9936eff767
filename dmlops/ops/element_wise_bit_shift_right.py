"""DML_OPERATOR_ELEMENT_WISE_BIT_SHIFT_RIGHT: f(a, b) = a >> b, a logical (zero-filling) shift of unsigned integers
(UINT8/16/32, UINT64 from DML_FEATURE_LEVEL_4_1), equal Sizes; zero strides broadcast.

Shift counts the page leaves open, from DirectML's vectors: the shift is done in a 32-bit register with the count
taken modulo 32, as HLSL's ``>>`` does (BIT_SHIFT_RIGHT uint32_3x4x5: 912 >> 33 = 456 and 831 >> 33 = 415: the count
modulo 32, not 0); narrower types are widened to that register and the result keeps the type's low bits
(uint16_3x4x5: 100 >> 16 = 0, 878 >> 18 = 0, 951 >> 3 = 118). UINT64 is shifted as two 32-bit halves (DirectML's
sample_uint64: 912 >> 65 = 0 (912 >> 1 would be 456)): a count below 32 shifts across the halves, any other count
moves one half into the other and shifts it by the count modulo 32, so the effective count is c for c < 32 and 32 +
c mod 32 otherwise (64 acts as 32, 65 as 33, 96 as 32), c being the count's low 32 bits (_bits.np_shift_count64; the
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
    """a >> (b mod 32) in a uint32 register, kept to the type's width; UINT64: a >> B.np_shift_count64(b)."""
    a, b = x["ATensor"], x["BTensor"]
    if a.dtype == np.uint64:
        return {"OutputTensor": np.right_shift(a, B.np_shift_count64(b))}
    width = 8 * a.dtype.itemsize
    r = np.right_shift(a.astype(np.uint32), b.astype(np.uint32) & np.uint32(31))
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
    r = g.node("BitShift", [a, s], direction="RIGHT")
    if width < 32:
        r = g.cast(r, dtype)
    return {"OutputTensor": r}


def to_torch(desc, torch, x):
    """UINT8 (the only one torch-directml runs, which has no shift kernels): an int32 floor-divide by
    2**min(b mod 32, 8) from a table; UINT16/UINT32: int64 shifts; UINT64: int64 shifts on the same bits, made logical
    with a mask."""
    a, b = x["ATensor"], x["BTensor"]
    if a.dtype == torch.uint8:
        # shifting a byte by 8 or more leaves 0 either way, so the factor stays within 2**8
        s = B.torch_and(torch, b.to(torch.int32), 31).clamp(max=8)
        table = torch.tensor([2**i for i in range(9)], dtype=torch.int32, device=a.device)
        factor = torch.index_select(table, 0, s.reshape(-1)).reshape(s.shape)
        v = a.to(torch.int32)
        r = torch.div(v, factor, rounding_mode="floor")
        return {"OutputTensor": r.to(torch.uint8)}
    if a.dtype == torch.uint64:
        v, s = a.view(torch.int64), B.torch_shift_count64(torch, b)
        high = torch.bitwise_left_shift(torch.ones_like(v), 64 - s) - 1  # the 64 - s low bits (s = 0: all)
        r = torch.bitwise_right_shift(v, s) & torch.where(s == 0, torch.full_like(v, -1), high)
        return {"OutputTensor": r.view(torch.uint64)}
    if a.dtype == torch.int32:  # UINT16/UINT32 in their int32 carrier (torch-directml): a logical shift of the bits
        s = B.torch_and(torch, b, 31)
        # the 32 - s low bits: 2**(32 - s) - 1 as int32 bits (s = 0: all of them, -1)
        table = torch.tensor([2**(32 - k) - 1 - (2**32 if k == 0 else 0) for k in range(32)], dtype=torch.int32,
                             device=a.device)
        keep = torch.index_select(table, 0, s.reshape(-1)).reshape(s.shape)
        return {"OutputTensor": torch.bitwise_and(torch.bitwise_right_shift(a, s), keep)}
    v, s = a.to(torch.int64), B.torch_and(torch, b.to(torch.int64), 31)
    r = torch.bitwise_right_shift(v, s)
    return {"OutputTensor": r.to(a.dtype)}


def _samples():
    from ..descs import ElementWiseBitShiftRight as cls

    def make(t):
        return ew.binary_desc(cls, t, [4])

    exact = dict(atol=0, rtol=0, why="shifts: exact")

    def shift(t, a, b, y):
        return Sample(t.lower(), make(t), {"ATensor": ew.int_array(a, t), "BTensor": ew.int_array(b, t)},
                      {"OutputTensor": ew.int_array(y, t)}, **exact)

    return [
        # 16 >> 4 = 1; 2**31 >> 31 = 1 (logical: no sign); 7 >> 3 = 0; 912 >> 33 = 912 >> 1 = 456 (DirectML's
        # uint32 vector: the count modulo 32).
        shift("UINT32", [16, 2**31, 7, 912], [4, 31, 3, 33], [1, 1, 0, 456]),
        # 100 >> 16 = 0 (DirectML's uint16 vector).
        shift("UINT16", [16, 0x8000, 7, 100], [4, 15, 3, 16], [1, 1, 0, 0]),
        shift("UINT8", [16, 0x80, 7, 100], [4, 7, 3, 8], [1, 1, 0, 0]),
        # 2**63 >> 63 = 1 (logical); 912 >> 65 = 912 >> 33 = 0 (DirectML's sample_uint64: two 32-bit halves).
        shift("UINT64", [16, 2**63, 7, 912], [4, 63, 3, 65], [1, 1, 0, 0]),
        # By that rule: 64 acts as 32, 96 as 32, 127 as 63, 33 + 2**32 as 33 (the count's low half).
        Sample("uint64_counts_above_63", make("UINT64"),
               {"ATensor": ew.int_array([3 << 32, 3 << 32, 2**63, 2**63], "UINT64"),
                "BTensor": ew.int_array([64, 96, 127, 33 + 2**32], "UINT64")},
               {"OutputTensor": ew.int_array([3, 3, 1, 2**30], "UINT64")}, **exact),
        # B = [1, 2] per row through strides [1, 0] (a zero stride).
        Sample("uint32_broadcast_column", ew.binary_desc(cls, "UINT32", [2, 3], strides_b=[1, 0]),
               {"ATensor": ew.int_array([[1, 2, 12], [1, 2, 12]], "UINT32"),
                "BTensor": ew.int_array([1, 2], "UINT32")},
               {"OutputTensor": ew.int_array([[0, 1, 6], [0, 0, 3]], "UINT32")}, **exact),
    ]


SAMPLES = _samples()
