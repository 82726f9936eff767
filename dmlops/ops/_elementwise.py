"""Shared pieces of the element-wise lowerings (ELEMENT_WISE_*, CAST, FILL_VALUE_CONSTANT).

* Integer semantics: DirectML integer arithmetic wraps (two's complement), integer division truncates toward
  zero (the DIVIDE page says so), and a FLOAT attribute applied to an integer tensor (CLIP Min/Max) is "cast to
  the tensor data type ... truncating toward zero" (the CLIP page); values outside the type saturate.
* FLOAT16 (DirectML's vectors): a FLOAT16 tensor is read into float32, the operator computes in float32, and the
  result is stored rounded toward zero: 2051 -> 2050, 65520 -> 65504, 1e5 -> 65504 (not inf), ties never round
  up (CAST edge_int32_to_float16_ties_overflow, edge_float32_to_float16_overflow_ties_subnormal; every FLOAT16
  case of the element-wise, activation and reduce operators agrees). dmlops.lower applies
  :func:`float16_toward_zero` to every FLOAT16 output on every backend and device, once, at the end.
  A decision, not a certainty: the vectors come from a CPU device (D3D12 over Vulkan), whose float16 conversion
  may be its own (Vulkan leaves the rounding of a narrowing conversion to the implementation); a GPU may round to
  nearest and give ±inf for overflow. ±inf computed in float32 (1 / 0, log 0) stays ±inf, as the vectors show.
  DirectML's answers are the project's judge, so dmlops follows them until a GPU's answers say otherwise.
* NaN and signed zeros in min/max (DirectML's vectors: ELEMENT_WISE_MAX/MIN edge_nan_signed_zero, ACTIVATION_RELU,
  CLIP, THRESHOLD, HARD_SIGMOID): min and max return the non-NaN operand, as D3D requires, unlike NaN-propagating
  ONNX Max/Min and torch.maximum/minimum. Between equal operands FLOAT32 returns the second (so max(+0, -0) is -0),
  FLOAT16 orders the zeros (max gives +0, min gives -0): :func:`float_max` / :func:`float_min`.
* ONNX Runtime's CPU ``Where`` returns +0.0 where it selects a -0.0 from its X (true-branch) input; a -0.0 from
  its Y input is kept (ORT 1.32: Where([1, 0, 1], [-0, 1, -0], [5, -0, 5]) = [0, -0, 0], float32 and float16 alike).
  Its DirectML provider runs Where as ELEMENT_WISE_IF, which keeps the bits. :func:`onnx_where` is a float select
  that is exact on both; every float select whose true branch can hold -0.0 goes through it (DirectML's vectors
  that showed it: ELEMENT_WISE_CLIP edge_min_-1.0_max_1.0_float16, CLIP1 float16_min_-0.5_max_2.0,
  MIN edge_nan_signed_zero_float16; also ELEMENT_WISE_CLIP edge_min_-1.0_max_1.0 and CLIP1 float32_min_-1.0_max_1.5).
* ONNX Runtime's graph optimizer (NoopElimination) removes Add(x, 0), Add(0, x), Sub(x, 0), Mul(x, 1), Mul(1, x)
  and Div(x, 1) with a constant 0 or 1, and so the +0.0 that x + 0 makes of x = -0.0 (ELEMENT_WISE_CLIP
  edge_min_0.0_max_0.0_float16: max(-0, +0) in FLOAT16). Where a zero's sign matters, sums with a constant are
  written as Sum or as ``c - y``, which it keeps.
* Gaps in the backends, worked around here once: torch has no arithmetic or comparison kernels for
  uint16/uint32/uint64 (limited-support dtypes since torch 2.3; still none in 2.13), and ONNX Runtime's CPU
  provider has no Max/Min/Clip/Where kernels for int16/uint16 (and no Where for uint64). The workarounds are
  exact: a wider type holds every value, or uint64 is reinterpreted as int64 bits (wrapping arithmetic gives
  the same bits) or mapped to an order-preserving int64 (``x ^ 2**63``) for comparisons.
"""
from __future__ import annotations

import numpy as np

from ..sample import Sample, td

# Integer DataTypes, widest first, as the descriptor tiers list them.
SIGNED = ("INT64", "INT32", "INT16", "INT8")
UNSIGNED = ("UINT64", "UINT32", "UINT16", "UINT8")
INTEGERS = SIGNED + UNSIGNED

_INT64_MIN = -(2**63)


# ----------------------------------------------------------------------------------------------- NumPy
def int_range(dtype) -> tuple[int, int]:
    """(lowest, highest) value of an integer NumPy dtype, as Python ints."""
    info = np.iinfo(np.dtype(dtype))
    return int(info.min), int(info.max)


def is_integer(dtype) -> bool:
    """Whether a NumPy dtype is an integer type."""
    return np.dtype(dtype).kind in "iu"


def attribute_value(value: float, dtype):
    """A FLOAT attribute (CLIP Min/Max, THRESHOLD Min) as a value of the tensor's dtype.

    The DML field is a 32-bit FLOAT, so the value is first rounded to float32. Floats keep it (the
    tensor's float type rounds it on use); integers truncate it toward zero, as the CLIP page says, and
    saturate to the type's range (NaN becomes 0).
    """
    with np.errstate(over="ignore"):  # beyond float32: ±inf, as the FLOAT field would hold
        value = float(np.float32(value))
    if not is_integer(dtype):
        return value
    lo, hi = int_range(dtype)
    if np.isnan(value):
        return 0
    if value <= lo:
        return lo
    if value >= hi:
        return hi
    return int(value)  # int() truncates toward zero


def _register_bits(src, dst) -> int:
    """The width DirectML converts an integer in: 32-bit registers, 64 bits when either type has 64."""
    return 64 if max(np.dtype(src).itemsize, np.dtype(dst).itemsize) == 8 else 32


def convert(v: np.ndarray, dtype) -> np.ndarray:
    """``v`` converted to ``dtype`` as DirectML's CAST does (DirectML's vectors, CAST edge_*):

    * float to float: IEEE nearest (a FLOAT16 target is then stored toward zero by dmlops.lower);
    * float to integer: truncation toward zero, saturated to the type's range, NaN giving 0;
    * integer to integer: the value is held in a register of 32 bits (64 when either type has 64), sign- or
      zero-extended by the source's signedness, read with the target's signedness, and saturated to the target's
      range: UINT32 0xFFFFFFFF -> INT32 -1 and INT8 -1; INT8 -1 -> UINT8 255 and UINT32 4294967295; UINT16 65535
      -> INT16 32767; INT32 -1 -> UINT64 2**64 - 1; INT32 300 -> INT8 127.
    """
    dtype = np.dtype(dtype)
    if dtype.kind == "f":
        with np.errstate(over="ignore"):
            return v.astype(dtype)
    lo, hi = int_range(dtype)
    if v.dtype.kind == "f":
        x = np.trunc(np.nan_to_num(v.astype(np.float64), nan=0.0, posinf=np.inf, neginf=-np.inf))
        out = np.zeros(v.shape, dtype)
        below, above = x <= lo, x >= hi  # float(hi) rounds up for 64-bit types: x >= 2**63 saturates
        inside = ~(below | above)
        out[below], out[above], out[inside] = lo, hi, x[inside].astype(dtype)
        return out
    bits = _register_bits(v.dtype, dtype)
    held = v.astype(np.dtype(f"{v.dtype.kind}{bits // 8}"))  # extended by the source's signedness
    read = held.view(np.dtype(f"{dtype.kind}{bits // 8}"))   # the same bits, the target's signedness
    return np.clip(read, lo, hi).astype(dtype)


def binary_reference(a: np.ndarray, b: np.ndarray, fn) -> np.ndarray:
    """``fn(a, b)``: floats in float64 (the caller rounds once), integers in their own type (wrapping)."""
    with np.errstate(all="ignore"):  # inf - inf, 0 / 0 and integer wrap-around are intended here
        if a.dtype.kind == "f":
            return fn(a.astype(np.float64), b.astype(np.float64))
        return fn(a, b)


def truncating_divide(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Integer a / b truncated toward zero (NumPy's // floors), with DirectML's answer for b = 0: the quotient of
    the magnitudes by zero is all ones, negated when the signs differ, so unsigned x / 0 is the type's maximum and
    signed x / 0 is -1 for x >= 0 and 1 for x < 0 (DirectML's vectors: DIVIDE
    edge_int32_divide_truncation_and_by_zero gives 5 / 0 = -1 and INT32_MIN / -1 = INT32_MIN, wrapped)."""
    zero = b == 0
    safe = np.where(zero, np.ones_like(b), b)
    with np.errstate(over="ignore"):
        q = a // safe
        if a.dtype.kind == "i":
            q = np.where((a % safe != 0) & ((a < 0) != (safe < 0)), q + 1, q).astype(a.dtype)
            fill = np.where(a < 0, np.ones_like(a), -np.ones_like(a))
        else:
            fill = np.full_like(a, int_range(a.dtype)[1])
    return np.where(zero, fill, q).astype(a.dtype)


# ----------------------------------------------------------------------------------------------- float rules
F16_MAX = 65504.0
F16_PRED = 1.0 - 2.0**-11  # |r| * F16_PRED, rounded to float16, is the float16 below |r| (r normal, 11 bits)
F16_TINY = 2.0**-24        # the float16 step among subnormals


def float16_toward_zero(v) -> np.ndarray:
    """``v`` stored in a FLOAT16 tensor as DirectML stores it: rounded to float32 (the shader's precision), then to
    float16 toward zero (finite values never become inf; ±inf and NaN stay)."""
    with np.errstate(all="ignore"):
        f = np.asarray(v).astype(np.float32)
        r = f.astype(np.float16)  # nearest
        over = np.abs(r.astype(np.float32)) > np.abs(f)  # rounded away from zero (NaN: False)
        bits = r.view(np.uint16)
        return np.where(over, (bits - np.uint16(1)).view(np.float16), r)  # one step toward zero (sign-magnitude)


def float_max(a: np.ndarray, b: np.ndarray | np.floating, float16: bool = False) -> np.ndarray:
    """DirectML's max of two float arrays (see the module docstring): the non-NaN operand; ``b`` when equal in
    FLOAT32, +0 over -0 in FLOAT16."""
    with np.errstate(invalid="ignore"):
        r = np.where((a > b) | np.isnan(b), a, b)
        if float16:
            r = np.where((a == 0) & (b == 0), a + b, r)  # -0 + +0 = +0: the larger zero
    return r


def float_min(a: np.ndarray, b: np.ndarray | np.floating, float16: bool = False) -> np.ndarray:
    """DirectML's min of two float arrays: the non-NaN operand; ``b`` when equal in FLOAT32, -0 under +0 in FLOAT16."""
    with np.errstate(invalid="ignore"):
        r = np.where((a < b) | np.isnan(b), a, b)
        if float16:
            r = np.where((a == 0) & (b == 0), -(-a + -b), r)  # the smaller zero
    return r


def is_float16(desc, field: str = "OutputTensor") -> bool:
    """Whether ``field`` of ``desc`` is a FLOAT16 tensor (False for a nested activation, whose tensors are null)."""
    t = desc.tensors().get(field)
    return t is not None and t.data_type.name == "FLOAT16"


SUBNORMAL = 2.0**-126  # below this, DirectML's log2 reads a float32 as 2**-127 * (1 + mantissa * 2**-23)
LN2 = float(np.log(2.0))


def log2_directml(ax: np.ndarray) -> np.ndarray:
    """log2 of non-negative float32 values as DirectML's shaders compute it: a subnormal x is read as
    2**-127 * (1 + x * 2**126) (DirectML's vectors: LOG edge_specials gives log(2**-149) = -88.02969 = ln 2**-127,
    not -103.28; CONSTANT_POW edge_constant_pow_0_5_domain gives (2**-149)**0.5 = 2**-63.5), not flushed to 0."""
    ax = ax.astype(np.float32)
    with np.errstate(all="ignore"):
        sub = (ax > 0) & (ax < np.float32(SUBNORMAL))
        mantissa = np.float32(1) + np.where(sub, ax, np.float32(0)) * np.float32(2.0**126)
        return np.where(sub, np.log2(mantissa) - np.float32(127), np.log2(ax)).astype(np.float32)


def log_directml(x: np.ndarray) -> np.ndarray:
    """Natural log as DirectML computes it (subnormals as in :func:`log2_directml`; NaN below 0, -inf at ±0)."""
    x = x.astype(np.float32)
    with np.errstate(all="ignore"):
        sub = (x > 0) & (x < np.float32(SUBNORMAL))
        mantissa = np.float32(1) + np.where(sub, x, np.float32(0)) * np.float32(2.0**126)
        return np.where(sub, np.log(mantissa) - np.float32(127 * LN2), np.log(x)).astype(np.float32)


def odd_integer(y: np.ndarray) -> np.ndarray:
    """Whether each float is an odd integer (±inf count as even)."""
    with np.errstate(invalid="ignore"):
        half = y * y.dtype.type(0.5)
        return (np.floor(y) == y) & (np.floor(half) != half)


def pow_directml(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """pow in float32 as DirectML computes it (DirectML's vectors: POW basic, edge_pow_domain): exp2(y * log2|x|),
    negated for x < 0 and an odd integral y, NaN for x < 0 and a non-integral y. Unlike IEEE pow: 0 ** 0, NaN ** 0,
    inf ** 0, 1 ** NaN and (-1) ** ±inf are NaN (0 * inf), and (-0) ** -1 is +inf."""
    x, y = x.astype(np.float32), y.astype(np.float32)
    with np.errstate(all="ignore"):
        m = np.exp2(y * log2_directml(np.abs(x))).astype(np.float32)
        integral = np.floor(y) == y
        return np.where((x < 0) & ~integral, np.float32(np.nan), np.where((x < 0) & odd_integer(y), -m, m))


def integer_power(a: np.ndarray, e: np.ndarray, dtype) -> np.ndarray:
    """a ** e for integer tensors, exact ("this operator guarantees exact results"): repeated squaring, wrapping
    modulo 2**bits as MULTIPLY does where the result does not fit (unverified: DirectML's vectors stay in range).
    Negative exponents give 1 / a**n truncated: ±1 for a = ±1, 0 for |a| > 1, the type's maximum for a = 0."""
    base, n = a.astype(np.int64), e.astype(np.int64)
    negative = n < 0
    n = np.abs(n)
    result = np.ones(np.broadcast(base, n).shape, np.int64)
    with np.errstate(over="ignore"):
        while np.any(n > 0):
            result = np.where(n % 2 == 1, result * base, result)
            base = base * base
            n = n // 2
    a64 = np.broadcast_to(a.astype(np.int64), result.shape)
    hi = int_range(dtype)[1]
    result = np.where(negative, np.where(np.abs(a64) == 1, result, np.where(a64 == 0, hi, 0)), result)
    return result.astype(dtype)


# ----------------------------------------------------------------------------------------------- ONNX
_ORT_NARROW = (np.dtype(np.int16), np.dtype(np.uint16))  # no Max/Min/Clip/Where kernels on the CPU EP


def onnx_ordered(g, v: str):
    """``(value, back)``: ``v`` in a dtype ONNX Runtime compares/clips (int16/uint16 → int32), and the inverse."""
    dtype = g.dtype(v)
    if dtype in _ORT_NARROW:
        return g.cast(v, np.int32), lambda r: g.cast(r, dtype)
    return v, lambda r: r


def onnx_const(g, value, dtype) -> str:
    """A scalar constant of ``dtype``."""
    return g.const(np.asarray(value, dtype=dtype))


def _onnx_negative_zero(g, v: str) -> str:
    """Bool: ``v`` is -0.0 (v == 0 and 1 / v < 0)."""
    dtype = g.dtype(v)
    zero = onnx_const(g, 0, dtype)
    return g.node("And", [g.node("Equal", [v, zero], dtype=np.bool_),
                          g.node("Less", [g.node("Div", [onnx_const(g, 1, dtype), v]), zero], dtype=np.bool_)],
                  dtype=np.bool_)


def onnx_where(g, cond: str, x: str, y: str) -> str:
    """``cond ? x : y``, bit exact for floats on every ONNX Runtime provider (integers: a plain Where).

    ONNX Runtime's CPU Where turns a -0.0 taken from its X input into +0.0 (module docstring), so the select is
    made, then every element meant to be -0.0 (taken from an x or y that is -0.0) is taken from a -0.0 constant
    in the Y position; the values left in the X position are then never -0.0. An x that is a constant holding no
    -0.0 needs none of it. A plain Where whose condition is a Not node is not safe either, even with a -0.0 only
    in Y: ONNX Runtime's graph optimizer (NotWhereFusion) swaps X and Y and drops the Not. INT16 / UINT16 go
    through int32 (the CPU provider has no Where kernel for them)."""
    dtype = g.dtype(x)
    if dtype in _ORT_NARROW:
        return g.cast(g.node("Where", [cond, g.cast(x, np.int32), g.cast(y, np.int32)], dtype=np.int32), dtype)
    r = g.node("Where", [cond, x, y], dtype=dtype)
    if dtype.kind != "f":
        return r
    known = g.constant_value(x)
    if known is not None and not np.any((known == 0) & np.signbit(known)):
        return r
    no = lambda v: g.node("Not", [v], dtype=np.bool_)  # noqa: E731
    # keep r unless (cond and x is -0) or (not cond and y is -0), written as an And of Ors: ONNX Runtime's
    # NotWhereFusion rewrites Where(Not(m), a, b) as Where(m, b, a), which would move the -0.0 into X.
    keep = g.node("And", [g.node("Or", [no(cond), no(_onnx_negative_zero(g, x))], dtype=np.bool_),
                          g.node("Or", [cond, no(_onnx_negative_zero(g, y))], dtype=np.bool_)], dtype=np.bool_)
    return g.node("Where", [keep, r, onnx_const(g, -0.0, dtype)], dtype=dtype)


def onnx_select(g, keep: str, value: str) -> str:
    """``keep ? value : 0`` as a select (NaN or inf where ``keep`` is false still give 0; -0.0 kept)."""
    dtype = g.dtype(value)
    if dtype.kind == "f":
        return onnx_where(g, keep, value, onnx_const(g, 0, dtype))
    # ORT has no Where for int16/uint16/uint64; integers have no NaN, so a multiply by 0/1 is the same select.
    return g.node("Mul", [value, g.cast(keep, dtype)])


def _largest_float_below(limit: int, ftype) -> float:
    """The largest value of float type ``ftype`` that is <= ``limit``."""
    f = ftype(limit)
    return float(f) if int(f) <= limit else float(np.nextafter(f, ftype(0)))


def onnx_convert(g, v: str, dtype) -> str:
    """``v`` converted to ``dtype`` with the rules of :func:`convert`, in the input's float type (float32 on a GPU)
    or in integer types (ONNX Cast leaves out-of-range conversions undefined)."""
    dtype = np.dtype(dtype)
    src = g.dtype(v)
    if dtype.kind == "f":
        return g.cast(v, dtype)
    lo, hi = int_range(dtype)
    if src.kind == "f":
        ftype = src.type
        x = g.node("Where", [g.node("IsNaN", [v], dtype=np.bool_), onnx_const(g, 0.0, src), v], dtype=src)
        hi_f = _largest_float_below(hi, ftype)
        r = g.node("Cast", [g.node("Clip", [x, onnx_const(g, float(lo), src), onnx_const(g, hi_f, src)])],
                   dtype=dtype, to=g.elem_type(dtype))
        if hi_f != hi:  # values >= hi + 1 (a power of two, exact in every float type) saturate to hi
            top = g.node("GreaterOrEqual", [x, onnx_const(g, float(hi + 1), src)], dtype=np.bool_)
            r = g.node("Add", [r, g.node("Mul", [g.cast(top, dtype), onnx_const(g, hi - int(hi_f), dtype)])])
        return r
    bits = _register_bits(src, dtype)
    held = g.cast(v, np.dtype(f"{src.kind}{bits // 8}"))
    read = g.cast(held, np.dtype(f"{dtype.kind}{bits // 8}"))  # ONNX Cast between equal widths keeps the bits
    if dtype.itemsize < bits // 8:
        rtype = g.dtype(read)
        if rtype.kind == "i":
            read = g.node("Max", [read, onnx_const(g, lo, rtype)])
        read = g.node("Min", [read, onnx_const(g, hi, rtype)])
    return g.cast(read, dtype)


def onnx_int_select(g, keep: str, x: str, y: str) -> str:
    """``keep ? x : y`` for integer values as y + keep * (x - y) (wrapping: exact; ORT has no Where for int16,
    uint16 or uint64)."""
    dtype = g.dtype(y)
    return g.node("Add", [y, g.node("Mul", [g.cast(keep, dtype), g.node("Sub", [x, y])])])


def onnx_integer_divide(g, a: str, b: str) -> str:
    """:func:`truncating_divide` in ONNX ops: the divisor is guarded (ONNX Runtime raises on integer division by
    zero, and INT_MIN / -1 traps on x86), then DirectML's answers are selected."""
    dtype = g.dtype(a)
    c = lambda v: onnx_const(g, v, dtype)  # noqa: E731
    zero = g.node("Equal", [b, c(0)], dtype=np.bool_)
    bad = zero
    if dtype.kind == "i":
        minus_one = g.node("Equal", [b, c(-1)], dtype=np.bool_)
        bad = g.node("Or", [zero, minus_one], dtype=np.bool_)
    q = g.node("Div", [a, onnx_int_select(g, bad, c(1), b)])
    if dtype.kind == "i":
        q = onnx_int_select(g, minus_one, g.node("Neg", [a]), q)  # -INT_MIN wraps to INT_MIN
        fill = onnx_int_select(g, g.node("Less", [a, c(0)], dtype=np.bool_), c(1), c(-1))
    else:
        fill = c(int_range(dtype)[1])
    return onnx_int_select(g, zero, fill, q)


def onnx_float16_toward_zero(g, v: str) -> str:
    """:func:`float16_toward_zero` in float32 ONNX ops (ONNX has no bit casts: the float16 below |r| is computed)."""
    f32 = np.float32
    x = g.cast(v, f32)
    r = g.cast(g.cast(x, np.float16), f32)
    ar = g.node("Abs", [r])
    over = g.node("Greater", [ar, g.node("Abs", [x])], dtype=np.bool_)
    below = g.node("Min", [g.cast(g.cast(g.node("Mul", [ar, onnx_const(g, F16_PRED, f32)]), np.float16), f32),
                           g.node("Sub", [ar, onnx_const(g, F16_TINY, f32)])])  # normal / subnormal step
    below = g.node("Where", [g.node("IsInf", [r], dtype=np.bool_), onnx_const(g, F16_MAX, f32), below], dtype=f32)
    # toward is -0.0 for -2**-24 < x < -2**-25 (r is the smallest negative subnormal): onnx_where keeps it.
    toward = onnx_where(g, g.node("Less", [r, onnx_const(g, 0, f32)], dtype=np.bool_), g.node("Neg", [below]), below)
    return onnx_where(g, over, toward, r)


def onnx_float_max(g, a: str, b: str, float16: bool = False) -> str:
    """:func:`float_max` in ONNX ops (ONNX Max propagates NaN)."""
    keep_a = g.node("Or", [g.node("Greater", [a, b], dtype=np.bool_), g.node("IsNaN", [b], dtype=np.bool_)],
                    dtype=np.bool_)
    r = onnx_where(g, keep_a, a, b)  # max(-0, -1) is -0
    if float16:
        zero = onnx_const(g, 0, g.dtype(a))
        both = g.node("And", [g.node("Equal", [a, zero], dtype=np.bool_), g.node("Equal", [b, zero], dtype=np.bool_)],
                      dtype=np.bool_)
        r = onnx_where(g, both, g.node("Sum", [a, b]), r)  # Sum: ORT's NoopElimination drops an Add of a 0 constant
    return r


def onnx_float_min(g, a: str, b: str, float16: bool = False) -> str:
    """:func:`float_min` in ONNX ops."""
    keep_a = g.node("Or", [g.node("Less", [a, b], dtype=np.bool_), g.node("IsNaN", [b], dtype=np.bool_)],
                    dtype=np.bool_)
    r = onnx_where(g, keep_a, a, b)  # min(-0, 1) is -0
    if float16:
        zero = onnx_const(g, 0, g.dtype(a))
        both = g.node("And", [g.node("Equal", [a, zero], dtype=np.bool_), g.node("Equal", [b, zero], dtype=np.bool_)],
                      dtype=np.bool_)
        r = onnx_where(g, both, g.node("Neg", [g.node("Sum", [g.node("Neg", [a]), g.node("Neg", [b])])]), r)
    return r


def _onnx_f32(g, value) -> str:
    return onnx_const(g, value, np.float32)


def onnx_log2_directml(g, ax: str) -> str:
    """:func:`log2_directml` in float32 ONNX ops (ONNX has no Log2: ax = m * 2**e is split exactly, then
    log2 = e + ln(m) / ln 2, which keeps log2 as accurate as a float32 log2)."""
    f32 = np.float32
    is_ = lambda op, v: g.node(op, [v], dtype=np.bool_)  # noqa: E731
    special = g.node("Or", [g.node("Or", [is_("IsNaN", ax), is_("IsInf", ax)], dtype=np.bool_),
                            g.node("Equal", [ax, _onnx_f32(g, 0)], dtype=np.bool_)], dtype=np.bool_)
    sub = g.node("And", [g.node("Greater", [ax, _onnx_f32(g, 0)], dtype=np.bool_),
                         g.node("Less", [ax, _onnx_f32(g, SUBNORMAL)], dtype=np.bool_)], dtype=np.bool_)
    safe = g.node("Where", [g.node("Or", [special, sub], dtype=np.bool_), _onnx_f32(g, 1), ax], dtype=f32)
    e = g.node("Floor", [g.node("Mul", [g.node("Log", [safe]), _onnx_f32(g, 1 / LN2)])])  # off by one at most
    m = g.node("Div", [safe, g.node("Pow", [_onnx_f32(g, 2), e])])  # exact: a power of two, m in [0.5, 4)
    big = g.node("GreaterOrEqual", [m, _onnx_f32(g, 2)], dtype=np.bool_)
    m = g.node("Where", [big, g.node("Mul", [m, _onnx_f32(g, 0.5)]), m], dtype=f32)
    e = g.node("Add", [e, g.cast(big, f32)])
    small = g.node("Less", [m, _onnx_f32(g, 1)], dtype=np.bool_)
    m = g.node("Where", [small, g.node("Mul", [m, _onnx_f32(g, 2)]), m], dtype=f32)
    e = g.node("Sub", [e, g.cast(small, f32)])
    # subnormals: m = 1 + x * 2**126, e = -127
    m = g.node("Where", [sub, g.node("Add", [_onnx_f32(g, 1), g.node("Mul", [ax, _onnx_f32(g, 2.0**126)])]), m],
               dtype=f32)
    e = g.node("Where", [sub, _onnx_f32(g, -127), e], dtype=f32)
    y = g.node("Add", [e, g.node("Mul", [g.node("Log", [m]), _onnx_f32(g, 1 / LN2)])])
    return g.node("Where", [special, g.node("Log", [ax]), y], dtype=f32)  # Log gives ±inf and NaN there


def onnx_exp2(g, t: str) -> str:
    """2 ** t in float32 ONNX ops: 2**floor(t) (exact, by Pow) times exp((t - floor t) * ln 2), as accurate as a
    float32 exp2 (Exp(t * ln 2) would round t * ln 2 first)."""
    f32 = np.float32
    clipped = g.node("Clip", [t, _onnx_f32(g, -300), _onnx_f32(g, 300)])  # ±inf -> 2**±300: 0 and inf
    n = g.node("Floor", [clipped])
    frac = g.node("Exp", [g.node("Mul", [g.node("Sub", [clipped, n]), _onnx_f32(g, LN2)])])
    y = g.node("Mul", [frac, g.node("Pow", [_onnx_f32(g, 2), n])])
    return g.node("Where", [g.node("IsNaN", [t], dtype=np.bool_), t, y], dtype=f32)


def onnx_odd_integer(g, y: str) -> str:
    """:func:`odd_integer` in ONNX ops."""
    half = g.node("Mul", [y, onnx_const(g, 0.5, g.dtype(y))])
    integral = g.node("Equal", [g.node("Floor", [y]), y], dtype=np.bool_)
    return g.node("And", [integral, g.node("Not", [g.node("Equal", [g.node("Floor", [half]), half], dtype=np.bool_)],
                                            dtype=np.bool_)], dtype=np.bool_)


def onnx_pow_directml(g, x: str, y: str) -> str:
    """:func:`pow_directml` in float32 ONNX ops."""
    f32 = np.float32
    x, y = g.cast(x, f32), g.cast(y, f32)
    m = onnx_exp2(g, g.node("Mul", [y, onnx_log2_directml(g, g.node("Abs", [x]))]))
    negative = g.node("Less", [x, _onnx_f32(g, 0)], dtype=np.bool_)
    integral = g.node("Equal", [g.node("Floor", [y]), y], dtype=np.bool_)
    m = onnx_where(g, g.node("And", [negative, onnx_odd_integer(g, y)], dtype=np.bool_), g.node("Neg", [m]), m)
    # (-0.0 when m underflows to 0: (-0.5) ** 1001)
    return g.node("Where", [g.node("And", [negative, g.node("Not", [integral], dtype=np.bool_)], dtype=np.bool_),
                            _onnx_f32(g, np.nan), m], dtype=f32)


def onnx_log_directml(g, x: str) -> str:
    """:func:`log_directml` in float32 ONNX ops."""
    f32 = np.float32
    sub = g.node("And", [g.node("Greater", [x, _onnx_f32(g, 0)], dtype=np.bool_),
                         g.node("Less", [x, _onnx_f32(g, SUBNORMAL)], dtype=np.bool_)], dtype=np.bool_)
    mantissa = g.node("Add", [_onnx_f32(g, 1), g.node("Mul", [g.node("Where", [sub, x, _onnx_f32(g, 0)], dtype=f32),
                                                                _onnx_f32(g, 2.0**126)])])
    return g.node("Where", [sub, g.node("Sub", [g.node("Log", [mantissa]), _onnx_f32(g, 127 * LN2)]),
                            g.node("Log", [x])], dtype=f32)


def onnx_integer_power(g, a: str, e: str, dtype) -> str:
    """:func:`integer_power` in int64 ONNX ops, unrolled over the exponent's bits; the result wraps to ``dtype`` by
    masking (a DirectML-provider Cast would saturate)."""
    i64 = np.int64
    c = lambda v: onnx_const(g, v, i64)  # noqa: E731
    bits = 8 * g.dtype(e).itemsize
    base, n = g.cast(a, i64), g.cast(e, i64)
    negative = g.node("Less", [n, c(0)], dtype=np.bool_)
    n = g.node("Abs", [n])
    result = g.node("Add", [g.node("Mul", [g.node("Mul", [base, n]), c(0)]), c(1)])  # ones, broadcast
    for i in range(bits):
        half = g.node("Div", [n, c(2)])
        odd = g.node("Equal", [g.node("Sub", [n, g.node("Mul", [half, c(2)])]), c(1)], dtype=np.bool_)
        result = g.node("Where", [odd, g.node("Mul", [result, base]), result], dtype=i64)
        if i < bits - 1:
            base = g.node("Mul", [base, base])
            n = half
    a64 = g.cast(a, i64)
    hi = int_range(dtype)[1]
    one = g.node("Equal", [g.node("Abs", [a64]), c(1)], dtype=np.bool_)
    zero = g.node("Equal", [a64, c(0)], dtype=np.bool_)
    inverse = g.node("Where", [one, result, g.node("Where", [zero, c(hi), c(0)], dtype=i64)], dtype=i64)
    result = g.node("Where", [negative, inverse, result], dtype=i64)
    return onnx_wrap(g, result, dtype)


def onnx_wrap(g, v: str, dtype) -> str:
    """An int64 value's low bits as integer ``dtype`` (two's complement), without a Cast of out-of-range values."""
    dtype = np.dtype(dtype)
    if dtype.itemsize == 8:
        return g.cast(v, dtype)
    bits = 8 * dtype.itemsize
    low = g.node("BitwiseAnd", [v, onnx_const(g, 2**bits - 1, np.int64)])
    if dtype.kind == "i":
        top = g.node("GreaterOrEqual", [low, onnx_const(g, 2**(bits - 1), np.int64)], dtype=np.bool_)
        low = g.node("Sub", [low, g.node("Mul", [g.cast(top, np.int64), onnx_const(g, 2**bits, np.int64)])])
    return g.cast(low, dtype)


# ----------------------------------------------------------------------------------------------- torch
def _unsigned_wide(torch, dtype) -> bool:
    return dtype in (torch.uint16, torch.uint32)


def torch_bits(torch, v):
    """``(value, back)``: ``v`` in a dtype torch has kernels for, holding the same bits, and the inverse.

    uint16/uint32 widen to int64 (``back`` keeps the low bits); uint64 is reinterpreted as int64. Wrapping
    arithmetic (add, subtract, multiply) and selects give the same bits there; comparisons need
    :func:`torch_ordered`.
    """
    dtype = v.dtype
    if _unsigned_wide(torch, dtype):
        return v.to(torch.int64), lambda r: r.to(dtype)
    if dtype == torch.uint64:
        return v.view(torch.int64), lambda r: r.view(torch.uint64)
    return v, lambda r: r


def torch_wrapping(torch, fn, *values):
    """``fn`` (add, subtract, multiply) on integer tensors, with the wrapped bits of the declared type."""
    pairs = [torch_bits(torch, v) for v in values]
    return pairs[0][1](fn(*(p[0] for p in pairs)))


def torch_ordered(torch, v):
    """``(value, back)``: ``v`` as a dtype torch compares, min/max and where-s with the same order, and the inverse."""
    dtype = v.dtype
    if _unsigned_wide(torch, dtype):
        return v.to(torch.int64), lambda r: r.to(dtype)
    if dtype == torch.uint64:
        return v.view(torch.int64) ^ _INT64_MIN, lambda r: (r ^ _INT64_MIN).view(torch.uint64)
    return v, lambda r: r


def torch_ordered_scalar(torch, value: int, dtype) -> int:
    """An integer bound in the representation :func:`torch_ordered` gives ``dtype``."""
    if dtype == torch.uint64:
        return value - 2**63
    return value


def torch_numpy_dtype(torch, dtype) -> np.dtype:
    """The NumPy dtype of a torch dtype."""
    return np.dtype(str(dtype).removeprefix("torch."))


def torch_unsigned_divide64(torch, a, b):
    """uint64 a / b (truncating, b != 0) from int64 ops: torch has no uint64 division."""
    ia, ib = a.view(torch.int64), b.view(torch.int64)
    big_b = ib < 0  # b >= 2**63: the quotient is a >= b
    ua, ub = ia ^ _INT64_MIN, ib ^ _INT64_MIN  # ordered as unsigned
    q_big = (ua >= ub).to(torch.int64)
    safe_b = torch.where(big_b, torch.ones_like(ib), ib)
    half = (ia >> 1) & (2**63 - 1)  # a >>> 1, below 2**63
    q = torch.div(half, safe_b, rounding_mode="trunc") << 1
    r = ia - q * safe_b  # the remainder is below 2b, so one correction step suffices
    q = q + ((r ^ _INT64_MIN) >= (safe_b ^ _INT64_MIN)).to(torch.int64)
    return torch.where(big_b, q_big, q).view(torch.uint64)


def torch_select(torch, keep, value):
    """``keep ? value : 0`` as a select (NaN or inf where ``keep`` is false still give 0)."""
    v, back = torch_bits(torch, value)
    return back(torch.where(keep, v, torch.zeros((), dtype=v.dtype, device=v.device)))


def torch_convert(torch, v, dtype):
    """``v`` converted to torch ``dtype`` with the rules of :func:`convert` (torch leaves overflow undefined), in the
    input's float type or in int64 (torch has no uint32/uint64 arithmetic)."""
    if dtype.is_floating_point:
        return v.to(dtype)
    target = torch_numpy_dtype(torch, dtype)
    lo, hi = int_range(target)
    if v.is_floating_point():
        ftype = np.float64 if v.dtype == torch.float64 else np.float32
        x = torch.where(torch.isnan(v), torch.zeros_like(v), v)
        hi_f = _largest_float_below(hi, ftype)
        r = x.clamp(float(lo), hi_f).to(dtype)
        if hi_f != hi:  # values >= hi + 1 saturate to hi
            top = (x >= float(hi + 1)).to(torch.int64)
            r = (r.view(torch.int64) + top * (hi - int(hi_f))).view(dtype) if target.itemsize == 8 else \
                torch.where(x >= float(hi + 1), torch.full_like(r, hi), r)
        return r
    source = torch_numpy_dtype(torch, v.dtype)
    if _register_bits(source, target) == 32:  # the 32-bit register, in int64 arithmetic (no bit operations)
        x = v.to(torch.int64)
        if source.kind == "i" and target.kind == "u":  # a negative value reads as x + 2**32
            if target.itemsize == 4:
                return torch.where(x < 0, x + 2**32, x).to(dtype)
            return torch.where(x < 0, torch.full_like(x, hi), x.clamp(max=hi)).to(dtype)
        if source.kind == "u" and target.kind == "i":  # a value >= 2**31 reads as x - 2**32
            x = torch.where(x >= 2**31, x - 2**32, x)
        return x.clamp(lo, hi).to(dtype)
    x = v.view(torch.int64) if v.dtype == torch.uint64 else v.to(torch.int64)  # the 64-bit register's bits
    if target.kind == "i":
        return x.clamp(lo, hi).to(dtype)
    if target.itemsize == 8:
        return x.view(torch.uint64)
    return torch.where(x < 0, torch.full_like(x, hi), x.clamp(max=hi)).to(dtype)  # bits >= 2**63: above hi


def torch_uint32_bits_to_float(torch, v, dtype=None):
    """The UINT32 values whose bits an int32 tensor holds (torch-directml's carrier of UINT32), as floats: hi * 65536
    + lo from the 16-bit halves, both exact in float32 (hi * 65536 has 16 significant bits), so the sum's one
    rounding is IEEE's round-to-nearest-even of the value."""
    dtype = dtype or torch.float32
    hi = torch.bitwise_and(torch.bitwise_right_shift(v, 16), 0xFFFF).to(dtype)
    return hi * 65536.0 + torch.bitwise_and(v, 0xFFFF).to(dtype)


def torch_float16_toward_zero(torch, v):
    """:func:`float16_toward_zero` in float32 torch ops (the same arithmetic as the ONNX form)."""
    x = v.to(torch.float32)
    r = x.to(torch.float16).to(torch.float32)
    ar = r.abs()
    below = torch.minimum((ar * F16_PRED).to(torch.float16).to(torch.float32), ar - F16_TINY)
    below = torch.where(torch.isinf(r), torch.full_like(r, F16_MAX), below)
    toward = torch.where(r < 0, -below, below)
    return torch.where(ar > x.abs(), toward, r)


def torch_float_max(torch, a, b, float16: bool = False):
    """:func:`float_max` in torch ops (torch.maximum propagates NaN)."""
    r = torch.where((a > b) | torch.isnan(b), a, b)
    if float16:
        r = torch.where((a == 0) & (b == 0), a + b, r)
    return r


def torch_float_min(torch, a, b, float16: bool = False):
    """:func:`float_min` in torch ops."""
    r = torch.where((a < b) | torch.isnan(b), a, b)
    if float16:
        r = torch.where((a == 0) & (b == 0), -(-a + -b), r)
    return r


def torch_log2_directml(torch, ax):
    """:func:`log2_directml` in float32 torch ops."""
    sub = (ax > 0) & (ax < SUBNORMAL)
    mantissa = 1 + torch.where(sub, ax, torch.zeros_like(ax)) * 2.0**126
    return torch.where(sub, torch.log2(mantissa) - 127, torch.log2(ax))


def torch_log_directml(torch, x):
    """:func:`log_directml` in float32 torch ops."""
    sub = (x > 0) & (x < SUBNORMAL)
    mantissa = 1 + torch.where(sub, x, torch.zeros_like(x)) * 2.0**126
    return torch.where(sub, torch.log(mantissa) - float(np.float32(127 * LN2)), torch.log(x))


def torch_odd_integer(torch, y):
    """:func:`odd_integer` in torch ops."""
    half = y * 0.5
    return (torch.floor(y) == y) & (torch.floor(half) != half)


def torch_pow_directml(torch, x, y):
    """:func:`pow_directml` in float32 torch ops."""
    x, y = x.to(torch.float32), y.to(torch.float32)
    m = torch.exp2(y * torch_log2_directml(torch, x.abs()))
    negative = x < 0
    m = torch.where(negative & torch_odd_integer(torch, y), -m, m)
    return torch.where(negative & (torch.floor(y) != y), torch.full_like(m, float("nan")), m)


def torch_integer_power(torch, a, e, dtype):
    """:func:`integer_power` in int64 torch ops."""
    base, n = a.to(torch.int64), e.to(torch.int64)
    negative = n < 0
    n = n.abs()
    result = torch.ones(torch.broadcast_shapes(base.shape, n.shape), dtype=torch.int64, device=base.device)
    two = torch.full((), 2, dtype=torch.int64, device=base.device)
    while bool((n > 0).any()):
        half = torch.div(n, two, rounding_mode="floor")
        result = torch.where(n - half * two == 1, result * base, result)
        base = base * base
        n = half
    a64 = a.to(torch.int64).expand(result.shape)
    hi = int_range(torch_numpy_dtype(torch, dtype))[1]
    inverse = torch.where(a64.abs() == 1, result, torch.where(a64 == 0, torch.full_like(result, hi),
                                                               torch.zeros_like(result)))
    return torch.where(negative, inverse, result).to(dtype)  # .to wraps to the low bits


# ----------------------------------------------------------------------------------------------- samples
def int_array(values, data_type: str) -> np.ndarray:
    """``values`` as the NumPy array of an integer DataType."""
    return np.array(values, dtype=np.dtype(data_type.lower()))


def unary_desc(cls, data_type: str, sizes, strides=None, **attrs):
    """A unary element-wise desc: InputTensor (optionally strided) and a packed OutputTensor."""
    return cls(input_tensor=td(data_type, sizes, strides), output_tensor=td(data_type, sizes), **attrs)


def binary_desc(cls, data_type: str, sizes, strides_a=None, strides_b=None, **attrs):
    """A binary element-wise desc with ATensor/BTensor (optionally strided) and a packed OutputTensor."""
    return cls(a_tensor=td(data_type, sizes, strides_a), b_tensor=td(data_type, sizes, strides_b),
               output_tensor=td(data_type, sizes), **attrs)


def integer_samples(make_desc, types, inputs: dict, expected: dict | None, why: str) -> list[Sample]:
    """One exact Sample per integer DataType in ``types``; ``inputs``/``expected`` are plain lists."""
    out = []
    for t in types:
        x = {k: int_array(v, t) for k, v in inputs.items()}
        y = None if expected is None else {k: int_array(v, t) for k, v in expected.items()}
        out.append(Sample(f"int_{t.lower()}", make_desc(t), x, y, atol=0, rtol=0, why=why))
    return out
