"""DML_OPERATOR_ELEMENT_WISE_BIT_SHIFT_RIGHT: f(a, b) = a >> b, a logical (zero-filling) shift of unsigned integers
(UINT8/16/32, UINT64 from DML_FEATURE_LEVEL_4_1), equal Sizes; zero strides broadcast.

Shift counts the page leaves open, from DirectML's vectors: the shift is done in a 32-bit register with the count
taken modulo 32, as HLSL's ``>>`` does (BIT_SHIFT_RIGHT uint32_3x4x5: 912 >> 33 = 456 and 831 >> 33 = 415: the count
modulo 32, not 0); narrower types are widened to that register and the result keeps the type's low bits
(uint16_3x4x5: 100 >> 16 = 0, 878 >> 18 = 0, 951 >> 3 = 118). There is no UINT8 or UINT64 vector: UINT8 is taken to
work as UINT16 does, and UINT64 to take the count modulo 64 (HLSL's rule for 64-bit shifts); both are inferences.
ONNX BitShift and torch leave counts >= the width undefined or 0, so every lowering masks the count first.
"""
from __future__ import annotations

import numpy as np

from ..sample import Sample
from . import _bits as B
from . import _elementwise as ew

_LEFT = False


def _mask(width: int) -> int:
    """The bits of the shift count DirectML uses: 5 (a 32-bit register), 6 for UINT64."""
    return 63 if width == 64 else 31


def reference(desc, x):
    """a >> (b mod 32) in a uint32 register (UINT64: b mod 64 in a uint64), kept to the type's width."""
    a, b = x["ATensor"], x["BTensor"]
    width = 8 * a.dtype.itemsize
    reg = np.uint64 if width == 64 else np.uint32
    s = b.astype(reg) & reg(_mask(width))
    r = np.left_shift(a.astype(reg), s) if _LEFT else np.right_shift(a.astype(reg), s)
    return {"OutputTensor": (r & reg(2**width - 1)).astype(a.dtype)}


def to_onnx(desc, g, x):
    """ONNX BitShift (opset 11) in uint32 (UINT8/UINT16 zero-extended, masked back to their width) or uint64, with the
    count masked to 5 (6) bits first."""
    a, b = x["ATensor"], x["BTensor"]
    dtype = g.dtype(a)
    width = 8 * dtype.itemsize
    if width < 32:
        a, b = g.cast(a, np.uint32), g.cast(b, np.uint32)
    s = g.node("BitwiseAnd", [b, g.scalar(_mask(width), b)])
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
        v, s = a.view(torch.int64), B.torch_and(torch, b.view(torch.int64), 63)
        high = torch.bitwise_left_shift(torch.ones_like(v), 64 - s) - 1  # the 64 - s low bits (s = 0: all)
        r = torch.bitwise_right_shift(v, s) & torch.where(s == 0, torch.full_like(v, -1), high)
        return {"OutputTensor": r.view(torch.uint64)}
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
        # 2**63 >> 63 = 1 (logical); 912 >> 65 = 912 >> 1 (the count modulo 64: an inference, no vector).
        shift("UINT64", [16, 2**63, 7, 912], [4, 63, 3, 65], [1, 1, 0, 456]),
        # B = [1, 2] per row through strides [1, 0] (a zero stride).
        Sample("uint32_broadcast_column", ew.binary_desc(cls, "UINT32", [2, 3], strides_b=[1, 0]),
               {"ATensor": ew.int_array([[1, 2, 12], [1, 2, 12]], "UINT32"),
                "BTensor": ew.int_array([1, 2], "UINT32")},
               {"OutputTensor": ew.int_array([[0, 1, 6], [0, 0, 3]], "UINT32")}, **exact),
    ]


SAMPLES = _samples()
