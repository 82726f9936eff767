"""Shared pieces of the B02 arithmetic lowerings: ELEMENT_WISE_MODULUS_TRUNCATE / _FLOOR and truncation.

* Float modulus, from DirectML's vectors: DirectML evaluates the docs' formula literally in float32,
  ``a - b * trunc(a / b)`` (``floor`` for MODULUS_FLOOR), each operation rounded, no fused multiply-add. That
  reproduces every float32 and FLOAT16 element of the vectors bit for bit, where C fmod / Python's % (exact
  remainders) miss 9 of 120 (MODULUS_TRUNCATE float32_2x3x4x5: [12] 1.7206758 mod 0.29743248 = 0.23351347, fmod
  gives 0.2335136) and a fused b * q - a misses 7. It also explains the specials: x mod ±0, ±inf mod y and
  x mod ±inf are NaN (1 mod inf = NaN: inf * trunc(1 / inf) = inf * 0), where fmod gives 1.
* Integer modulus: the same formula with DIVIDE's truncating quotient (ew.truncating_divide), so the result has
  the dividend's sign (truncate) or the divisor's (floor) as in C / Python (vectors int32_3x4x5 and uint32_3x4x5
  agree with that: -7 mod 3 = -1 truncated, 2 floored). INT_MIN mod -1 = 0. x mod 0 is not the formula's x:
  DirectML gives what DIVIDE gives for x / 0 (a magnitude of all ones, negated for a negative x): -1 for x >= 0 and 1
  for x < 0 in signed types, the type's maximum in unsigned ones (MODULUS_FLOOR sample_int8_edges: 5 mod 0 = -1,
  -5 mod 0 = 1; MODULUS_TRUNCATE sample_uint64_large: (2**63 + 1) mod 0 = 2**64 - 1; both modes alike).
* ONNX Runtime raises on an integer divisor of zero (and INT_MIN / -1 traps on x86); torch raises on zero too:
  the lowerings divide by a guarded divisor and select the answers above. ONNX Mod is avoided: its DirectML
  provider registers no int64/uint64 kernel, and fmod=1 is float-only at opset 18.
"""
from __future__ import annotations

import numpy as np

from . import _elementwise as ew


# ----------------------------------------------------------------------------------------------- NumPy
def float_modulus(a: np.ndarray, b: np.ndarray, floor: bool) -> np.ndarray:
    """``a - b * round(a / b)`` in the inputs' float type, each operation rounded (see the module docstring)."""
    with np.errstate(all="ignore"):
        q = a / b
        q = np.floor(q) if floor else np.trunc(q)
        return a - b * q


def integer_modulus(a: np.ndarray, b: np.ndarray, floor: bool) -> np.ndarray:
    """a mod b for integer arrays: C's remainder (truncate) or Python's (floor); DIVIDE's a / 0 where b = 0 (the
    module docstring); exact, no wrap."""
    signed = a.dtype.kind == "i"
    zero = b == 0
    bad = zero | (b == -1) if signed else zero  # a mod -1 = 0 = a mod 1, without INT_MIN / -1
    safe = np.where(bad, np.ones_like(b), b)
    r = np.fmod(a, safe).astype(a.dtype)
    if floor and signed:
        with np.errstate(over="ignore"):  # r and b have opposite signs here: r + b cannot overflow
            r = np.where((r != 0) & ((r < 0) != (b < 0)), r + b, r).astype(a.dtype)
    return np.where(zero, ew.truncating_divide(a, b), r).astype(a.dtype)


def modulus(a: np.ndarray, b: np.ndarray, floor: bool) -> np.ndarray:
    """ELEMENT_WISE_MODULUS_TRUNCATE (floor=False) / _FLOOR (floor=True) in NumPy."""
    if a.dtype.kind == "f":
        return float_modulus(a, b, floor)
    return integer_modulus(a, b, floor)


# ----------------------------------------------------------------------------------------------- ONNX
def onnx_sign_bit(g, v: str) -> str:
    """Whether float v has its sign bit set (v < 0, or v = -0: 1 / -0 = -inf); False for NaN."""
    dtype = g.dtype(v)
    zero = ew.onnx_const(g, 0, dtype)
    inverse = g.node("Div", [ew.onnx_const(g, 1, dtype), v])
    return g.node("Or", [g.node("Less", [v, zero], dtype=np.bool_), g.node("Less", [inverse, zero], dtype=np.bool_)],
                  dtype=np.bool_)


def onnx_with_sign_of(g, magnitude: str, v: str) -> str:
    """``magnitude`` (>= +0 or NaN) with the sign bit of ``v``, by a multiply with ±1. Not a Where of the two signed
    values: ONNX Runtime's CPU Where returns +0 where it selects a -0 from its X input (Where(true, -0, y) = +0)."""
    dtype = g.dtype(v)
    sign = g.node("Where", [onnx_sign_bit(g, v), ew.onnx_const(g, -1, dtype), ew.onnx_const(g, 1, dtype)], dtype=dtype)
    return g.node("Mul", [magnitude, sign])


def onnx_trunc(g, v: str) -> str:
    """trunc(v) for floats (ONNX has no Trunc at opset 18): Floor(|v|) with v's sign (NaN, ±inf and -0 kept; -0.5
    gives -0)."""
    return onnx_with_sign_of(g, g.node("Floor", [g.node("Abs", [v])]), v)


def onnx_modulus(g, a: str, b: str, floor: bool) -> str:
    """:func:`modulus` in ONNX ops: Div, Floor/trunc, Mul, Sub for floats; a guarded integer Div for integers."""
    dtype = g.dtype(a)
    if dtype.kind == "f":
        q = g.node("Div", [a, b])
        q = g.node("Floor", [q]) if floor else onnx_trunc(g, q)
        return g.node("Sub", [a, g.node("Mul", [b, q])])
    # DIVIDE's quotient (b = 0 and b = -1 guarded); b * q wraps to a for b = -1; b = 0 takes the quotient itself.
    q = ew.onnx_integer_divide(g, a, b)
    r = g.node("Sub", [a, g.node("Mul", [b, q])])
    if floor and dtype.kind == "i":
        zero = ew.onnx_const(g, 0, dtype)
        opposite = g.node("Xor", [g.node("Less", [r, zero], dtype=np.bool_), g.node("Less", [b, zero], dtype=np.bool_)],
                          dtype=np.bool_)
        adjust = g.node("And", [opposite, g.node("Not", [g.node("Equal", [r, zero], dtype=np.bool_)], dtype=np.bool_)],
                        dtype=np.bool_)
        r = ew.onnx_int_select(g, adjust, g.node("Add", [r, b]), r)
    return ew.onnx_int_select(g, g.node("Equal", [b, ew.onnx_const(g, 0, dtype)], dtype=np.bool_), q, r)


# ----------------------------------------------------------------------------------------------- torch
def torch_trunc(torch, v):
    """trunc(v) from ops torch-directml registers (it has no aten::trunc): ceil below 0, floor elsewhere."""
    return torch.where(v < 0, torch.ceil(v), torch.floor(v))


def _torch_uint64_modulus(torch, a, b):
    zero = b.view(torch.int64) == 0
    one = torch.ones((), dtype=torch.int64, device=b.device)
    safe = torch.where(zero, one, b.view(torch.int64))
    q = ew.torch_unsigned_divide64(torch, a, safe.view(torch.uint64)).view(torch.int64)
    r = a.view(torch.int64) - safe * q  # wrapping int64 arithmetic: the uint64 bits of a - b * q
    return torch.where(zero, -torch.ones_like(r), r).view(torch.uint64)  # x mod 0: all ones, 2**64 - 1


def torch_modulus(torch, a, b, floor: bool, data_type):
    """:func:`modulus` in torch ops (no aten::fmod on torch-directml; integers through torch.div by a guarded
    divisor, uint16/uint32 in int64, uint64 by ew.torch_unsigned_divide64). ``data_type`` (the descriptor's) says
    the signedness and the range of x mod 0: on torch-directml a UINT16 tensor arrives in its int32 carrier."""
    if a.is_floating_point():
        q = a / b
        q = torch.floor(q) if floor else torch_trunc(torch, q)
        return a - b * q
    if a.dtype == torch.uint64:
        return _torch_uint64_modulus(torch, a, b)
    (wa, back), (wb, _) = ew.torch_bits(torch, a), ew.torch_bits(torch, b)
    signed = data_type.numpy_dtype.kind == "i"
    zero = wb == 0
    bad = zero | (wb == -1) if signed else zero
    safe = torch.where(bad, torch.ones_like(wb), wb)
    r = wa - torch.div(wa, safe, rounding_mode="trunc") * safe  # |r| < |safe|: no overflow
    if floor and signed:
        r = torch.where((r != 0) & ((r < 0) != (wb < 0)), r + wb, r)
    if signed:  # x mod 0: DIVIDE's x / 0 (the module docstring)
        fill = torch.where(wa < 0, torch.ones_like(wa), -torch.ones_like(wa))
    else:
        fill = torch.full_like(wa, ew.int_range(data_type.numpy_dtype)[1])
    return back(torch.where(zero, fill, r))
