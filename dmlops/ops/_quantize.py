"""Linear quantization and dequantization, once per backend, for the quantize family (ELEMENT_WISE_QUANTIZE_LINEAR,
ELEMENT_WISE_DEQUANTIZE_LINEAR, QUANTIZE, DEQUANTIZE, DYNAMIC_QUANTIZE_LINEAR, ELEMENT_WISE_QUANTIZED_LINEAR_ADD)
and the quantized matrix multiply / convolution / pooling operators that requantize their results.

quantize(x, scale, zero_point) = clamp(round(x / scale) + zero_point) to the output type's range, as DirectML's
vectors show it (ELEMENT_WISE_QUANTIZE_LINEAR float32_to_uint8_per_channel and float32_to_int8_per_channel, every
element bit exact):

* x / scale is a float32 division (x * (1 / scale) fits the vectors as well; the docs write the division);
* round() is half to even: 0.025 / 0.05 = 0.5 -> 0, 0.075 / 0.05 = 1.5 -> 2, -0.5 -> -0 (both vectors; halves away
  from zero would give 1, 2 and -1) -- ONNX QuantizeLinear's and torch.round's rule;
* the zero point is added in float32 (exact: |round(x / scale)| < 2**24 or the sum saturates anyway);
* the result is converted as DirectML's CAST converts (ew.convert): saturated to the type's range (inf -> 255 / 127,
  -inf -> 0 / -128, 1e9 / 0.05 -> 255 / 127), NaN -> 0 whatever the zero point (UINT8 with zero point 128 gives 0 for
  NaN, INT8 with zero point 0 gives 0: not the clamp of a NaN-dropping max/min, which would give -128 for INT8).

dequantize(x, scale, zero_point) = (float32(x) - float32(zero_point)) * scale in float32 (the docs' formula; every
8-bit vector, ELEMENT_WISE_DEQUANTIZE_LINEAR uint8/int8_to_float32_per_channel, is bit exact; for 32-bit integers
beyond 2**24 the two float32 conversions round, which no vector covers: a decision, not a certainty).

A zero point of None is 0. INT4 / UINT4 travel as int8 / uint8 values of the 4-bit range (dmlops.types); the
``bounds`` argument gives that range ((-8, 7) / (0, 15)); :func:`bounds_of` derives it from a DataType.

Names are stable (another batch imports them): ``reference_quantize(x, scale, zp, np_dtype)``,
``onnx_quantize(g, x, scale, zp, np_dtype)``, ``torch_quantize(torch, x, scale, zp, torch_dtype)`` and the
matching ``*_dequantize(…, x, scale, zp)`` (float32 results); ``*_blocks`` repeat a block-quantization tensor
(QUANTIZE / DEQUANTIZE) to the full shape.
"""
from __future__ import annotations

import numpy as np

from . import _elementwise as ew

F32 = np.float32


def bounds_of(data_type) -> tuple[int, int]:
    """(lowest, highest) of an integer DataType (or name), INT4 / UINT4 included."""
    name = getattr(data_type, "name", data_type)
    four = {"UINT4": (0, 15), "INT4": (-8, 7)}.get(name)
    return four if four is not None else ew.int_range(np.dtype(name.lower()))


def numpy_dtype_of(data_type) -> np.dtype:
    """The NumPy dtype holding a DataType's values (uint8 / int8 for UINT4 / INT4)."""
    name = getattr(data_type, "name", data_type)
    return np.dtype({"UINT4": "uint8", "INT4": "int8"}.get(name, name.lower()))


def midpoint(data_type) -> int:
    """The zero point QUANTIZE / DEQUANTIZE's SCALE type implies: the unsigned types' midpoint (8 / 128), 0 else."""
    lo, hi = bounds_of(data_type)
    return (hi + 1) // 2 if lo == 0 else 0


def _range(np_dtype, bounds):
    return bounds if bounds is not None else ew.int_range(np_dtype)


# ----------------------------------------------------------------------------------------------- NumPy
def reference_quantize(x, scale, zp, np_dtype, bounds=None) -> np.ndarray:
    """clamp(round(x / scale) + zp) as ``np_dtype`` (module docstring); ``bounds`` for a 4-bit range."""
    np_dtype = np.dtype(np_dtype)
    lo, hi = _range(np_dtype, bounds)
    with np.errstate(all="ignore"):
        q = np.rint(np.asarray(x).astype(F32) / np.asarray(scale).astype(F32))  # rint: half to even
        if zp is not None:
            q = q + np.asarray(zp).astype(F32)
    q = np.where(np.isnan(q), F32(0), np.clip(q, F32(lo), F32(hi)))
    return q.astype(np_dtype)


def reference_dequantize(x, scale, zp) -> np.ndarray:
    """(float32(x) - float32(zp)) * scale in float32."""
    v = np.asarray(x).astype(F32)
    if zp is not None:
        v = v - np.asarray(zp).astype(F32)
    with np.errstate(all="ignore"):
        return (v * np.asarray(scale).astype(F32)).astype(F32)


def reference_blocks(q: np.ndarray, shape) -> np.ndarray:
    """A quantization tensor whose every dimension divides ``shape``'s, each element repeated over its block."""
    for axis, (n, full) in enumerate(zip(q.shape, shape)):
        if n != full:
            q = np.repeat(q, full // n, axis=axis)
    return q


# ----------------------------------------------------------------------------------------------- ONNX
def onnx_quantize(g, x: str, scale: str, zp: str | None, np_dtype, bounds=None) -> str:
    """:func:`reference_quantize` in ONNX ops DirectML's provider registers (Div, Round (half to even), Add,
    IsNaN/Where, Clip, Cast), all in float32."""
    np_dtype = np.dtype(np_dtype)
    lo, hi = _range(np_dtype, bounds)
    q = g.node("Round", [g.node("Div", [g.cast(x, F32), g.cast(scale, F32)])])
    if zp is not None:
        q = g.node("Add", [q, g.cast(zp, F32)])
    q = g.node("Where", [g.node("IsNaN", [q], dtype=np.bool_), ew.onnx_const(g, 0, F32), q], dtype=F32)
    q = g.node("Clip", [q, ew.onnx_const(g, lo, F32), ew.onnx_const(g, hi, F32)])
    return g.cast(q, np_dtype)


def onnx_dequantize(g, x: str, scale: str, zp: str | None) -> str:
    """:func:`reference_dequantize` in ONNX ops (Cast, Sub, Mul)."""
    v = g.cast(x, F32)
    if zp is not None:
        v = g.node("Sub", [v, g.cast(zp, F32)])
    return g.node("Mul", [v, g.cast(scale, F32)])


def onnx_blocks(g, q: str, q_shape, shape) -> str:
    """:func:`reference_blocks` as a Gather per blocked axis (index i // block)."""
    for axis, (n, full) in enumerate(zip(q_shape, shape)):
        if n != full:
            index = g.const(np.arange(full, dtype=np.int64) // (full // n))
            q = g.node("Gather", [q, index], axis=axis)
    return q


# ----------------------------------------------------------------------------------------------- torch
def torch_quantize(torch, x, scale, zp, torch_dtype, bounds=None):
    """:func:`reference_quantize` in torch ops torch-directml registers (div, round (half to even), add, isnan,
    where, clamp), in float32."""
    lo, hi = _range(ew.torch_numpy_dtype(torch, torch_dtype), bounds)
    q = torch.round(x.to(torch.float32) / scale.to(torch.float32))
    if zp is not None:
        q = q + zp.to(torch.float32)
    q = torch.where(torch.isnan(q), torch.zeros_like(q), q.clamp(float(lo), float(hi)))
    return q.to(torch_dtype)


def torch_dequantize(torch, x, scale, zp):
    """:func:`reference_dequantize` in torch ops."""
    v = x.to(torch.float32)
    if zp is not None:
        v = v - zp.to(torch.float32)
    return v * scale.to(torch.float32)


def torch_blocks(torch, q, shape):
    """:func:`reference_blocks` as an index_select per blocked axis."""
    for axis, (n, full) in enumerate(zip(tuple(q.shape), shape)):
        if n != full:
            index = torch.as_tensor(np.arange(full, dtype=np.int64) // (full // n), device=q.device)
            q = torch.index_select(q, axis, index)
    return q


__all__ = [
    "bounds_of", "numpy_dtype_of", "midpoint",
    "reference_quantize", "reference_dequantize", "reference_blocks",
    "onnx_quantize", "onnx_dequantize", "onnx_blocks",
    "torch_quantize", "torch_dequantize", "torch_blocks",
]
