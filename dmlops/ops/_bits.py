"""Shared pieces of the bitwise operators (ELEMENT_WISE_BIT_AND/OR/XOR/NOT/COUNT, BIT_SHIFT_LEFT/RIGHT).

DirectML applies them to "tensor data in its native encoding ... the tensor data type is ignored except for
determining the width of each element" (the operator pages): FLOAT16/32/64 and signed tensors are bit patterns
here, as DirectML's vectors show (BIT_AND float32_2x3x4x5: NaN & 1.0 = 1.0, -2.2431133 & 2.7960665 = the subnormal
1.5038973e-39; BIT_NOT float32: ~0.0 = 0xFFFFFFFF, a NaN; BIT_COUNT int32: -1 has 32 bits set).

* **NumPy** (the reference) views every tensor as the unsigned integer of its width: exact for every bit pattern,
  NaN payloads and signs included.
* **torch** uses the same exact float32 decomposition for FLOAT32 / FLOAT16 as ONNX (below), because
  ``Tensor.view(dtype)`` (``aten::view.dtype``) is not among torch-directml's own kernels, is unverified on a DirectML
  device, and dmlops' dispatch recorder cannot follow it (its composite kernel re-enters itself). FLOAT64 (refused
  on ONNX; rare on DirectML GPUs) and UINT16/32/64 (which torch-directml refuses) are viewed as signed integers of
  their width (FLOAT64 as pairs of int32), which is exact for every pattern.
* **ONNX** has no bit reinterpretation before BitCast (opset 26, which ONNX Runtime does not run), so a FLOAT32 or
  FLOAT16 value is taken apart with exact float32 arithmetic (:func:`onnx_float_pattern`: the sign from ``x < 0`` or
  ``1 / x < 0`` for -0; the exponent by comparisons against powers of two and exact scaling; the mantissa from the
  scaled value) into an int32 holding its pattern, and rebuilt the same way (:func:`onnx_pattern_float`).
  Exact for ±0, subnormals, normals and ±inf, on an IEEE device that keeps float32 subnormals (ONNX Runtime's CPU
  provider and torch's CPU kernels do). What cannot be preserved, on ONNX and on torch for FLOAT32 / FLOAT16:

  - **NaN inputs** are read as the canonical quiet NaN (0x7FC00000, FLOAT16 0x7E00): float arithmetic cannot see a
    NaN's sign or payload. DirectML's vectors use only that NaN, so they are reproduced (BIT_COUNT float32 NaN = 9
    bits, float16 NaN = 6 bits);
  - **NaN outputs** come out as some NaN: the payload and the sign of a result whose exponent is all ones and whose
    mantissa is not 0 cannot be written by float arithmetic (BIT_NOT float32: ~+0 = 0xFFFFFFFF and ~-0 =
    0x7FFFFFFF both come out as a NaN; DirectML's answers compare NaN to NaN, so the vectors pass);
  - on a device that flushes float32 subnormals to zero in arithmetic (D3D lets a GPU do so), subnormal inputs
    and outputs would read and be written as ±0: the lowering is exact only where float32 subnormals are kept.

  FLOAT64 is refused at compile time (:func:`onnx_refuse_float64`): ONNX Runtime's DirectML provider registers no
  float64 arithmetic or comparison kernel (only data movement, Cast and Where) to take a float64 apart with.
"""
from __future__ import annotations

import numpy as np

from ..errors import DmlOpsError
from . import _elementwise as ew

FLOATS = ("FLOAT64", "FLOAT32", "FLOAT16")
WIDTH = {"FLOAT64": 64, "FLOAT32": 32, "FLOAT16": 16, "INT64": 64, "INT32": 32, "INT16": 16, "INT8": 8,
         "UINT64": 64, "UINT32": 32, "UINT16": 16, "UINT8": 8}
# FLOAT32 / FLOAT16: (exponent bits, mantissa bits)
_FORMAT = {"FLOAT32": (8, 23), "FLOAT16": (5, 10)}


def data_type(desc, field: str) -> str:
    """The DataType name of tensor ``field`` of ``desc``."""
    return desc.tensors()[field].data_type.name


# ----------------------------------------------------------------------------------------------- NumPy
def np_bits(v: np.ndarray, dt: str) -> np.ndarray:
    """The bit patterns of a logical array of DataType ``dt`` as the unsigned integers of its width (a FLOAT16
    tensor arrives in float32, exactly: dmlops.lower widens FLOAT16 inputs)."""
    if dt in FLOATS:
        v = v.astype(np.dtype(dt.lower()))
    return np.ascontiguousarray(v).view(np.dtype(f"u{WIDTH[dt] // 8}"))


def np_value(bits: np.ndarray, dt: str) -> np.ndarray:
    """Unsigned bit patterns read as DataType ``dt``."""
    return np.ascontiguousarray(bits.astype(np.dtype(f"u{WIDTH[dt] // 8}"))).view(np.dtype(dt.lower()))


def np_popcount(bits: np.ndarray) -> np.ndarray:
    """The number of set bits of each unsigned element (int64)."""
    u8 = np.ascontiguousarray(bits).view(np.uint8).reshape(bits.shape + (bits.dtype.itemsize,))
    return np.unpackbits(u8, axis=-1).sum(axis=-1).astype(np.int64)


# ----------------------------------------------------------------------------------------------- ONNX
def onnx_refuse_float64(desc, field: str) -> None:
    """Raise for a FLOAT64 tensor: there is no exact ONNX lowering (see the module docstring)."""
    if data_type(desc, field) == "FLOAT64":
        raise DmlOpsError(
            f"{desc.OPERATOR_TYPE}.{field}: DataType FLOAT64 has no exact ONNX lowering: ONNX has no bit "
            "reinterpretation before BitCast (opset 26, which ONNX Runtime does not run), and ONNX Runtime's "
            "DirectML provider registers no float64 arithmetic or comparison kernel to take a float64 apart with. "
            "The torch and reference backends run it.")


def _f32(g, value) -> str:
    return ew.onnx_const(g, value, np.float32)


def _i32(g, value) -> str:
    return ew.onnx_const(g, value, np.int32)


def _bool(g, op: str, inputs) -> str:
    return g.node(op, inputs, dtype=np.bool_)


def _where(g, cond: str, a: str, b: str) -> str:
    return g.node("Where", [cond, a, b], dtype=g.dtype(a))


def onnx_float_pattern(g, x: str, dt: str) -> str:
    """The bit pattern of each FLOAT32 / FLOAT16 value of ``x`` (computed in float32) as an int32 (a FLOAT16
    pattern in its low 16 bits), with exact float32 arithmetic: NaN gives the canonical quiet NaN."""
    ebits, mbits = _FORMAT[dt]
    bias, emax = 2 ** (ebits - 1) - 1, 2**ebits - 1
    x = g.cast(x, np.float32)
    nan = _bool(g, "IsNaN", [x])
    inf = _bool(g, "IsInf", [x])
    zero = _f32(g, 0.0)
    negative = _bool(g, "Or", [_bool(g, "Less", [x, zero]),
                               _bool(g, "Less", [g.node("Reciprocal", [x]), zero])])  # 1 / -0 = -inf
    a = g.node("Abs", [x])
    # s = a / 2**e in [1, 2) and e = floor(log2 a) for every normal a, by exact power-of-two scaling: first down
    # (a >= 2), then up (a < 1); each step count is a power of two, their sum reaches the format's exponent range.
    steps = [2**i for i in reversed(range(ebits - 1))]  # FLOAT32: 64 ... 1 (sum 127); FLOAT16: 8 ... 1 (sum 15)
    s, terms = a, []
    for k in steps:
        t = _bool(g, "GreaterOrEqual", [s, _f32(g, 2.0**k)])
        s = _where(g, t, g.node("Mul", [s, _f32(g, 2.0**-k)]), s)
        terms.append(_where(g, t, _f32(g, k), zero))
    for k in steps:
        t = _bool(g, "Less", [s, _f32(g, 2.0 ** (1 - k))])
        s = _where(g, t, g.node("Mul", [s, _f32(g, 2.0**k)]), s)
        terms.append(_where(g, t, _f32(g, -k), zero))
    e = g.node("Sum", terms)
    sub = _bool(g, "Less", [a, _f32(g, 2.0 ** (1 - bias))])  # subnormals and zeros: exponent field 0
    m_normal = g.node("Mul", [g.node("Sub", [s, _f32(g, 1.0)]), _f32(g, 2.0**mbits)])
    m_sub = g.node("Mul", [g.node("Mul", [a, _f32(g, 2.0 ** (bias - 1))]), _f32(g, 2.0**mbits)])
    special = _bool(g, "Or", [nan, inf])
    e_field = _where(g, special, _f32(g, emax), _where(g, sub, zero, g.node("Add", [e, _f32(g, bias)])))
    m_field = _where(g, nan, _f32(g, 2.0 ** (mbits - 1)),
                     _where(g, inf, zero, _where(g, sub, m_sub, m_normal)))
    pattern = g.node("Add", [g.node("Mul", [g.cast(e_field, np.int32), _i32(g, 2**mbits)]),
                             g.cast(m_field, np.int32)])
    sign = -(2**31) if dt == "FLOAT32" else 2**15  # FLOAT32: the int32's own sign bit
    return g.node("Add", [pattern, _where(g, negative, _i32(g, sign), _i32(g, 0))])


def onnx_pattern_float(g, p: str, dt: str) -> str:
    """The float32 value of each FLOAT32 / FLOAT16 bit pattern held in the int32 ``p`` (exact; a NaN pattern gives
    a NaN, its payload and sign not kept)."""
    ebits, mbits = _FORMAT[dt]
    bias, emax = 2 ** (ebits - 1) - 1, 2**ebits - 1
    if dt == "FLOAT32":
        negative = _bool(g, "Less", [p, _i32(g, 0)])
    else:
        negative = _bool(g, "Not", [_bool(g, "Equal", [g.node("BitwiseAnd", [p, _i32(g, 2**15)]), _i32(g, 0)])])
    # the exponent field in place (E * 2**mbits < 2**31) is exact in float32; so is the mantissa (< 2**23)
    e = g.node("Mul", [g.cast(g.node("BitwiseAnd", [p, _i32(g, emax << mbits)]), np.float32), _f32(g, 2.0**-mbits)])
    frac = g.node("Mul", [g.cast(g.node("BitwiseAnd", [p, _i32(g, 2**mbits - 1)]), np.float32),
                          _f32(g, 2.0**-mbits)])
    # normal: (1 + frac) * 2**(1 - bias), then times 2**(E - 1) one power of two at a time: every partial product
    # lies between the first factor and the (finite) result, so each multiplication is exact.
    v = g.node("Mul", [g.node("Add", [frac, _f32(g, 1.0)]), _f32(g, 2.0 ** (1 - bias))])
    n = g.node("Sub", [e, _f32(g, 1.0)])
    one = _f32(g, 1.0)
    for k in [2**i for i in reversed(range(ebits))]:  # FLOAT32: 128 ... 1 (E - 1 <= 253); FLOAT16: 16 ... 1
        t = _bool(g, "GreaterOrEqual", [n, _f32(g, k)])
        n = g.node("Sub", [n, _where(g, t, _f32(g, k), _f32(g, 0.0))])
        for part in ([64, 64] if k == 128 else [k]):  # 2**128 is beyond float32
            v = g.node("Mul", [v, _where(g, t, _f32(g, 2.0**part), one)])
    sub = g.node("Mul", [frac, _f32(g, 2.0 ** (1 - bias))])  # an exact subnormal (or 0)
    top = _where(g, _bool(g, "Equal", [frac, _f32(g, 0.0)]), _f32(g, np.inf), _f32(g, np.nan))
    mag = _where(g, _bool(g, "Equal", [e, _f32(g, 0.0)]), sub,
                 _where(g, _bool(g, "Equal", [e, _f32(g, emax)]), top, v))
    # the sign by a multiplication: ONNX Runtime's CPU Where (1.32) returns +0 for a -0 taken from its X input
    return g.node("Mul", [mag, _where(g, negative, _f32(g, -1.0), one)])


def onnx_pattern(g, v: str, dt: str) -> str:
    """``v`` as integer bit patterns: integers as they are, FLOAT32 / FLOAT16 through :func:`onnx_float_pattern`."""
    return onnx_float_pattern(g, v, dt) if dt in _FORMAT else v


def onnx_value(g, p: str, dt: str) -> str:
    """The inverse of :func:`onnx_pattern`."""
    return onnx_pattern_float(g, p, dt) if dt in _FORMAT else p


def onnx_not(g, p: str, dt: str) -> str:
    """~pattern (a FLOAT16 pattern stays in the low 16 bits of its int32)."""
    if dt == "FLOAT16":
        return g.node("BitwiseXor", [p, _i32(g, 0xFFFF)])
    return g.node("BitwiseNot", [p])


_POPCOUNT = np.array([bin(i).count("1") for i in range(256)], np.int32)


def onnx_popcount(g, p: str, width: int) -> str:
    """The number of set bits among the low ``width`` bits of each integer of ``p`` (int32): one byte at a time
    through a 256-entry table. Bits are moved with BitShift on the unsigned type of the same width (same-width
    Casts keep the bits on ONNX Runtime's CPU and DirectML providers); 8/16-bit patterns are zero-extended to 32."""
    dtype = g.dtype(p)
    unsigned = np.dtype(f"u{dtype.itemsize}")
    u = g.cast(p, unsigned)
    if unsigned.itemsize < 4:
        u = g.cast(u, np.uint32)
    table = g.const(_POPCOUNT)
    count: str | None = None
    for k in range(width // 8):
        byte = u if k == 0 else g.node("BitShift", [u, g.scalar(8 * k, u)], direction="RIGHT")
        byte = g.node("BitwiseAnd", [byte, g.scalar(255, u)])
        c = g.node("Gather", [table, g.cast(byte, np.int64)], dtype=np.int32, axis=0)
        count = c if count is None else g.node("Add", [count, c])
    assert count is not None  # width >= 8: at least one byte
    return count


# ----------------------------------------------------------------------------------------------- torch
def torch_const(torch, like, value):
    """A 0-d tensor of ``like``'s dtype and device (bitwise ops take tensors: the Scalar overloads are composites that
    dmlops' dispatch recorder cannot follow)."""
    return torch.full((), value, dtype=like.dtype, device=like.device)


def torch_and(torch, v, mask: int):
    """``v & mask`` with a tensor operand."""
    return torch.bitwise_and(v, torch_const(torch, v, mask))


def torch_float_pattern(torch, x, dt: str):
    """:func:`onnx_float_pattern` in float32 torch ops: the int32 bit pattern of each FLOAT32 / FLOAT16 value."""
    ebits, mbits = _FORMAT[dt]
    bias, emax = 2 ** (ebits - 1) - 1, 2**ebits - 1
    x = x.to(torch.float32)
    nan, inf = torch.isnan(x), torch.isinf(x)
    negative = (x < 0) | (torch.reciprocal(x) < 0)  # 1 / -0 = -inf
    a = x.abs()
    steps = [2**i for i in reversed(range(ebits - 1))]
    s, e = a, torch.zeros_like(a)
    for k in steps:
        t = s >= 2.0**k
        s = torch.where(t, s * 2.0**-k, s)
        e = e + t.to(torch.float32) * k
    for k in steps:
        t = s < 2.0 ** (1 - k)
        s = torch.where(t, s * 2.0**k, s)
        e = e - t.to(torch.float32) * k
    sub = a < 2.0 ** (1 - bias)
    m_normal = (s - 1) * 2.0**mbits
    m_sub = a * 2.0 ** (bias - 1) * 2.0**mbits
    full = lambda value: torch.full_like(a, value)  # noqa: E731
    e_field = torch.where(nan | inf, full(emax), torch.where(sub, full(0.0), e + bias))
    m_field = torch.where(nan, full(2.0 ** (mbits - 1)), torch.where(inf, full(0.0), torch.where(sub, m_sub, m_normal)))
    pattern = e_field.to(torch.int32) * 2**mbits + m_field.to(torch.int32)
    sign = -(2**31) if dt == "FLOAT32" else 2**15
    return pattern + torch.where(negative, torch.full_like(pattern, sign), torch.zeros_like(pattern))


def torch_pattern_float(torch, p, dt: str):
    """:func:`onnx_pattern_float` in float32 torch ops: the float32 value of each int32 FLOAT32 / FLOAT16 pattern."""
    ebits, mbits = _FORMAT[dt]
    bias, emax = 2 ** (ebits - 1) - 1, 2**ebits - 1
    negative = p < 0 if dt == "FLOAT32" else torch_and(torch, p, 2**15) != 0
    e = torch_and(torch, p, emax << mbits).to(torch.float32) * 2.0**-mbits
    frac = torch_and(torch, p, 2**mbits - 1).to(torch.float32) * 2.0**-mbits
    v = (frac + 1) * 2.0 ** (1 - bias)
    n = e - 1
    for k in [2**i for i in reversed(range(ebits))]:
        t = n >= k
        n = n - t.to(torch.float32) * k
        for part in ([64, 64] if k == 128 else [k]):
            v = v * torch.where(t, torch.full_like(v, 2.0**part), torch.ones_like(v))
    sub = frac * 2.0 ** (1 - bias)
    top = torch.where(frac == 0, torch.full_like(v, float("inf")), torch.full_like(v, float("nan")))
    mag = torch.where(e == 0, sub, torch.where(e == emax, top, v))
    return torch.where(negative, -mag, mag)


def torch_pattern(torch, v, dt: str):
    """``(pattern, back)``: the bit patterns of ``v`` as integers torch has bitwise kernels for, and the inverse.

    FLOAT32 / FLOAT16: an int32 pattern by exact float32 arithmetic (:func:`torch_float_pattern`), as on ONNX:
    ``Tensor.view(dtype)`` is not among torch-directml's own kernels. FLOAT64 (which torch-directml devices rarely
    have): a view as pairs of int32 along the last dimension (exact, NaN payloads included). UINT16/32/64 (which
    torch-directml refuses): a view as the signed type of the width (torch has no bitwise kernels for them).
    Other integers: as they are."""
    if dt in _FORMAT:
        return torch_float_pattern(torch, v, dt), lambda r: torch_pattern_float(torch, r, dt)
    if dt == "FLOAT64":
        v = v.to(torch.float64).contiguous()
        return v.view(torch.int32), lambda r: r.contiguous().view(torch.float64)
    if dt in ("UINT16", "UINT32", "UINT64"):
        original = v.dtype
        signed = {16: torch.int16, 32: torch.int32, 64: torch.int64}[WIDTH[dt]]
        return v.contiguous().view(signed), lambda r: r.contiguous().view(original)
    return v, lambda r: r


def torch_not(torch, p, dt: str):
    """~pattern (a FLOAT16 pattern stays in the low 16 bits of its int32)."""
    return torch.bitwise_xor(p, torch_const(torch, p, 0xFFFF)) if dt == "FLOAT16" else torch.bitwise_not(p)


def torch_popcount(torch, p, width: int):
    """The number of set bits among the low ``width`` bits of each element of a :func:`torch_pattern` (int32; FLOAT64's
    int32 pairs summed)."""
    if p.dtype == torch.int64:  # INT64 / UINT64 (never on torch-directml): the two halves as int32 pairs
        p = p.contiguous().view(torch.int32)
    w = min(width, 32)
    q = p.to(torch.int32)  # sign-extended: only the low w bits are counted
    count = torch.zeros(q.shape, dtype=torch.int32, device=q.device)
    for i in range(w):
        mask = -(2**31) if i == 31 else 1 << i
        count = count + (torch_and(torch, q, mask) != 0).to(torch.int32)
    if width == 64:  # the two int32 halves sit side by side in the last dimension (no extra dimension)
        count = count[..., 0::2] + count[..., 1::2]
    return count


# ----------------------------------------------------------------------------------------------- binary AND/OR/XOR
def reference_binary(desc, x, fn) -> dict:
    """``fn`` on the unsigned bit patterns of ATensor and BTensor, read back as OutputTensor's DataType."""
    dt = data_type(desc, "ATensor")
    return {"OutputTensor": np_value(fn(np_bits(x["ATensor"], dt), np_bits(x["BTensor"], dt)), dt)}


def onnx_binary(desc, g, x, op: str) -> dict:
    """ONNX ``op`` (BitwiseAnd/Or/Xor) on the bit patterns; FLOAT64 refused."""
    for field in ("ATensor", "BTensor"):
        onnx_refuse_float64(desc, field)
    dt = data_type(desc, "ATensor")
    r = g.node(op, [onnx_pattern(g, x["ATensor"], dt), onnx_pattern(g, x["BTensor"], dt)])
    return {"OutputTensor": onnx_value(g, r, dt)}


def torch_binary(desc, torch, x, fn) -> dict:
    """``fn`` (torch.bitwise_and/or/xor) on the signed views of the bit patterns."""
    dt = data_type(desc, "ATensor")
    a, back = torch_pattern(torch, x["ATensor"], dt)
    b, _ = torch_pattern(torch, x["BTensor"], dt)
    return {"OutputTensor": back(fn(a, b))}


# ----------------------------------------------------------------------------------------------- UINT64 shift counts
# DirectML shifts a UINT64 as two 32-bit halves (BIT_SHIFT_LEFT/RIGHT sample_uint64: 5 << 65 = 5 << 33 and
# 912 >> 65 = 0): a count below 32 shifts across the halves; any other count moves one half into the other and shifts
# it by the count modulo 32 (HLSL's 32-bit << and >>). So the effective count is c for c < 32 and 32 + c mod 32
# otherwise, c being the count's low 32 bits (the high half of the count is taken to be ignored: unverified).
def np_shift_count64(b: np.ndarray) -> np.ndarray:
    """The effective UINT64 shift count (0 to 63) of each count in ``b`` (uint64)."""
    c = b.astype(np.uint64) & np.uint64(0xFFFFFFFF)
    return np.where(c < 32, c, np.uint64(32) + (c & np.uint64(31))).astype(np.uint64)


def onnx_shift_count64(g, b: str) -> str:
    """:func:`np_shift_count64` in ONNX ops (uint64 in and out; the select in int64, which every provider compares)."""
    c = g.cast(g.node("BitwiseAnd", [b, g.const(np.asarray(0xFFFFFFFF, np.uint64))]), np.int64)
    i64 = lambda value: g.const(np.asarray(value, np.int64))  # noqa: E731
    high = g.node("Add", [g.node("BitwiseAnd", [c, i64(31)]), i64(32)])
    low = g.node("Less", [c, i64(32)], dtype=np.bool_)
    return g.cast(g.node("Where", [low, c, high], dtype=np.int64), np.uint64)


def torch_shift_count64(torch, b):
    """:func:`np_shift_count64` on the int64 view of a UINT64 count tensor (an int64 tensor, 0 to 63)."""
    c = torch_and(torch, b.view(torch.int64), 0xFFFFFFFF)
    return torch.where(c < 32, c, torch_and(torch, c, 31) + 32)
