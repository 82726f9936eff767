"""Shared pieces of the gather/scatter lowerings of batch B07: GATHER, GATHER_ELEMENTS, GATHER_ND(1),
SCATTER_ELEMENTS, SCATTER_ND, MAX_UNPOOLING (ONE_HOT and SLICE_GRAD use the data-movement helpers only).

Every one of these operators reads or writes elements at *flat addresses* of a tensor: an address is a
compile-time base (the coordinates the descriptor fixes) plus each runtime index times the packed stride of the
dimension it indexes. :class:`Addresses` describes that once per descriptor, and each backend evaluates it
(:func:`reference_addresses`, :func:`onnx_addresses`, :func:`torch_addresses`) and then moves elements with one
flat gather or scatter. Nothing here computes on the data, so every backend is bit exact for every DataType (NaN
payloads, -0.0 and 64-bit integers included).

Index rules (the GATHER/GATHER_ELEMENTS/GATHER_ND/SCATTER pages, and DirectML's vectors):

* A negative index of a signed type counts from the end of its dimension (DML_FEATURE_LEVEL_3_0 and up; before
  that the index types are unsigned): -1 is the last element (vectors GATHER-float16_axis2_int32 [-1, -4, 0],
  GATHER_ELEMENTS-float16_axis2_int32, SCATTER_ELEMENTS-float16_axis2_int32).
* Out-of-range indices: the GATHER page says "invalid indices will yield incorrect outputs, but no failure will
  occur, and all reads will be clamped safely within the input tensor's memory". DirectML's vector
  GATHER-float32_out_of_range_indices shows which element: gathering {1, 3, 4, 5} along Axis 1 with UINT32
  indices [0, 2, 3, 100], both out-of-range rows read 1.9609365, the *last element of the whole tensor*, for
  every one of their 20 elements (not row 2, as a per-index clamp would give, and not 0). dmlops therefore clamps
  the flat address: an address outside [0, N) reads (or, for the scatters, writes) element N - 1. A negative
  address (an index below -size) is taken as unsigned, as a shader's uint address arithmetic would, so it also
  goes to N - 1. Only the GATHER vector shows this; the scatters' out-of-range writes, GATHER_ELEMENTS/GATHER_ND
  reads and negative addresses follow the same rule by inference (no vector covers them). The clamp is on the
  logical tensor: for a strided (broadcast) input, DirectML would clamp within the physical buffer instead.
* UINT64 indices are read as INT64 (two's complement): 2**64 - 1 is -1 and counts from the end like a signed
  index. DirectML's vector GATHER-sample_out_of_range gathers rows [0, 3, 2**64 - 1] of a {3, 2} tensor as
  [1, 2], [6, 6] (3: past the tensor, its last element) and [5, 6]: the last row, not the last element a huge
  unsigned index would read. UINT32 indices stay unsigned (no vector has one at 2**31 or above).
* Duplicate scatter addresses: "there's no guarantee of which last write wins" (SCATTER pages). DirectML's
  vectors have none. The reference lets the last update in row-major order win, as ONNX Runtime's CPU
  MaxUnpool and torch's CPU scatter do; devices may pick another.

Backends: ONNX (opset 18) Gather copies elements for every type. ONNX Runtime's DirectML provider registers no
ScatterElements/ScatterND for opset 18 (only up to 17), so a runtime scatter is a MaxUnpool (registered through
opset 21; the DML operator MAX_UNPOOLING) of the update *positions* 1..M as float32 (exact up to 2**24; two
MaxUnpools, high and low bits, beyond), then one Gather from [updates, input] by "position - 1, or M + address
when unwritten". torch: index_select and scatter on the flat tensor, uint16/32/64 viewed as the signed type of
their width (torch's CPU lacks those kernels for them).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .slice import torch_movable

_EXACT_F32 = 2**24  # float32 holds every integer up to here
_LOW_BITS = 20


@dataclass(frozen=True)
class Addresses:
    """Flat addresses into a packed tensor of ``count`` elements:
    ``base + sum(column[t] * strides[t])``, each column normalized (negative + ``sizes[t]``) for signed index types
    and the sum clamped as the module docstring says.

    ``index_shape``: the index tensor is reshaped to this (at most 3 dimensions, so torch-directml can run it);
    ``tuple_size``: None when the whole index tensor is the one column, else k: the last dimension of
    ``index_shape`` holds k coordinates, column t being ``[..., t:t+1]``. ``base`` broadcasts with the columns to
    the addresses' shape (at most 3 dimensions)."""

    index_shape: tuple
    tuple_size: int | None
    sizes: tuple
    strides: tuple
    base: np.ndarray
    count: int

    @property
    def shape(self) -> tuple:
        col = self.index_shape if self.tuple_size is None else self.index_shape[:-1] + (1,)
        return tuple(np.broadcast_shapes(col, self.base.shape))

    @property
    def columns(self) -> int:
        return 1 if self.tuple_size is None else self.tuple_size


def packed_strides(sizes) -> list[int]:
    """Row-major element strides of ``sizes``."""
    out, step = [], 1
    for n in reversed(list(sizes)):
        out.append(step)
        step *= int(n)
    return list(reversed(out))


def _prod(values) -> int:
    return int(np.prod(values, dtype=np.int64)) if len(values) else 1


def along_axis(sizes, axis: int, index_count: int) -> Addresses:
    """GATHER: ``index_count`` indices along ``axis`` of a tensor of ``sizes``; addresses {outer, M, inner}."""
    outer, n, inner = _prod(sizes[:axis]), int(sizes[axis]), _prod(sizes[axis + 1:])
    base = (np.arange(outer, dtype=np.int64) * (n * inner))[:, None, None] + np.arange(inner, dtype=np.int64)[None,
                                                                                                              None, :]
    return Addresses((1, index_count, 1), None, (n,), (inner,), base, outer * n * inner)


def elements(sizes, axis: int, index_sizes) -> Addresses:
    """GATHER_ELEMENTS / SCATTER_ELEMENTS: one index per element of ``index_sizes`` (Sizes of the tensor of
    ``sizes`` except along ``axis``), replacing that element's ``axis`` coordinate; addresses are flat {M}."""
    strides = packed_strides(sizes)
    coords = np.indices(tuple(index_sizes), dtype=np.int64)
    base = np.zeros(tuple(index_sizes), np.int64)
    for d, (c, s) in enumerate(zip(coords, strides)):
        if d != axis:
            base += c * s
    base = base.reshape(-1)
    return Addresses((base.size,), None, (int(sizes[axis]),), (strides[axis],), base, _prod(sizes))


def tuples(sizes, index_sizes, batch: int = 0) -> Addresses:
    """GATHER_ND(1) / SCATTER_ND: ``sizes`` and ``index_sizes`` are the meaningful Sizes; the last index dimension
    holds k coordinates into dimensions ``batch .. batch + k`` of each batch; addresses {batches, J, rest}."""
    k = int(index_sizes[-1])
    strides = packed_strides(sizes)
    batches, per_batch = _prod(sizes[:batch]), _prod(sizes[batch:])
    j, rest = _prod(index_sizes[batch:-1]), _prod(sizes[batch + k:])
    base = (np.arange(batches, dtype=np.int64) * per_batch)[:, None, None] + np.arange(rest, dtype=np.int64)[None,
                                                                                                            None, :]
    return Addresses((batches, j, k), k, tuple(int(n) for n in sizes[batch:batch + k]),
                     tuple(strides[batch:batch + k]), base, _prod(sizes))


def flat(index_count: int, count: int) -> Addresses:
    """MAX_UNPOOLING: the indices are the flat addresses themselves (unsigned types only)."""
    return Addresses((index_count,), None, (None,), (1,), np.zeros(1, np.int64), count)


# ----------------------------------------------------------------------------------------------- NumPy
def _np_int64(a: Addresses, idx: np.ndarray) -> np.ndarray:
    """Indices as int64 (UINT64 as its two's complement), bounded to [-count - 1, count] (beyond that every
    address is out of range anyway, and int64 products cannot overflow)."""
    if idx.dtype == np.uint64:
        idx = idx.view(np.int64)
    elif idx.dtype.kind == "u":
        idx = np.minimum(idx, np.asarray(a.count, idx.dtype))
    return np.clip(idx.astype(np.int64), -a.count - 1, a.count)


def reference_addresses(a: Addresses, idx: np.ndarray) -> np.ndarray:
    """The clamped flat addresses (int64, shape ``a.shape``)."""
    signed = idx.dtype.kind == "i" or idx.dtype == np.uint64
    v = _np_int64(a, idx).reshape(a.index_shape)
    total = a.base
    for t in range(a.columns):
        col = v if a.tuple_size is None else v[..., t:t + 1]
        if signed and a.sizes[t] is not None:
            col = np.where(col < 0, col + a.sizes[t], col)
        total = total + col * a.strides[t]
    return np.where((total < 0) | (total >= a.count), a.count - 1, total)


def reference_gather(x: np.ndarray, address: np.ndarray) -> np.ndarray:
    """The elements of ``x`` (read flat) at ``address``."""
    return x.reshape(-1)[address]


def reference_scatter(x: np.ndarray, address: np.ndarray, updates: np.ndarray) -> np.ndarray:
    """``x`` with ``updates`` written at ``address`` (flat, the last of duplicate addresses winning)."""
    out = np.array(x, copy=True).reshape(-1)
    address = address.reshape(-1)
    winner = np.full(out.size, -1, np.int64)
    np.maximum.at(winner, address, np.arange(address.size, dtype=np.int64))
    written = winner >= 0
    out[written] = updates.reshape(-1)[winner[written]]
    return out.reshape(x.shape)


# ----------------------------------------------------------------------------------------------- ONNX
def onnx_addresses(a: Addresses, g, idx: str) -> str:
    """:func:`reference_addresses` in int64 ONNX ops."""
    i64 = np.int64
    dtype = g.dtype(idx)
    v = g.cast(idx, i64)  # UINT64: its two's complement (2**64 - 1 is -1), as DirectML reads it
    v = g.node("Clip", [v, g.const(i64(-a.count - 1)), g.const(i64(a.count))])
    v = g.node("Reshape", [v, g.ints(a.index_shape)])
    total = g.const(a.base)
    for t in range(a.columns):
        col = v if a.tuple_size is None else g.node("Slice", [v, g.ints([t]), g.ints([t + 1]), g.ints([-1])])
        if (dtype.kind == "i" or dtype == np.uint64) and a.sizes[t] is not None:
            negative = g.node("Less", [col, g.const(i64(0))], dtype=np.bool_)
            col = g.node("Where", [negative, g.node("Add", [col, g.const(i64(a.sizes[t]))]), col])
        total = g.node("Add", [total, g.node("Mul", [col, g.const(i64(a.strides[t]))])])
    outside = g.node("Or", [g.node("Less", [total, g.const(i64(0))], dtype=np.bool_),
                            g.node("Greater", [total, g.const(i64(a.count - 1))], dtype=np.bool_)], dtype=np.bool_)
    return g.node("Where", [outside, g.const(i64(a.count - 1)), total])


def onnx_gather(g, x: str, address: str) -> str:
    """The elements of ``x`` (read flat) at ``address`` (shape of ``address``)."""
    return g.node("Gather", [g.node("Reshape", [x, g.ints([-1])]), address], axis=0)


def _onnx_unpool(g, payload: np.ndarray, address: str, size: int) -> str:
    """MaxUnpool of float32 ``payload`` {M} to flat ``address`` into ``size`` zeros, as int64 {size}."""
    m = payload.size
    x = g.const(payload.astype(np.float32).reshape(1, 1, 1, m))
    i = g.node("Reshape", [address, g.ints([1, 1, 1, m])])
    y = g.node("MaxUnpool", [x, i, g.ints([1, 1, 1, size])], kernel_shape=[1, 1])
    return g.cast(g.node("Reshape", [y, g.ints([-1])]), np.int64)


def onnx_scatter_flat(g, x: str | None, count: int, address: str, updates: str, m: int) -> str:
    """``x`` ({count} elements read flat; None: zeros of ``updates``' dtype) with the ``m`` ``updates`` written at
    the ``m`` flat ``address``es; a flat {count} result."""
    i64 = np.int64
    size = max(count, m)  # MaxUnpool's output must hold its input; addresses are below count
    flat_address = g.node("Reshape", [address, g.ints([-1])])
    positions = np.arange(1, m + 1, dtype=np.int64)
    if m < _EXACT_F32:
        k = _onnx_unpool(g, positions, flat_address, size)
    else:
        low = _onnx_unpool(g, positions & (2**_LOW_BITS - 1), flat_address, size)
        high = _onnx_unpool(g, positions >> _LOW_BITS, flat_address, size)
        k = g.node("Add", [g.node("Mul", [high, g.const(i64(2**_LOW_BITS))]), low])
    if size > count:
        k = g.node("Slice", [k, g.ints([0]), g.ints([count])])
    values = g.node("Reshape", [updates, g.ints([-1])])
    rest = (g.node("Reshape", [x, g.ints([-1])]) if x is not None
            else g.const(np.zeros(count, dtype=g.dtype(updates))))
    source = g.node("Where", [g.node("Greater", [k, g.const(i64(0))], dtype=np.bool_),
                              g.node("Sub", [k, g.const(i64(1))]), g.const(np.arange(m, m + count, dtype=i64))])
    return g.node("Gather", [g.node("Concat", [values, rest], axis=0), source], axis=0)


# ----------------------------------------------------------------------------------------------- torch
def torch_addresses(a: Addresses, torch, idx):
    """:func:`reference_addresses` in int64 torch ops."""
    signed = (idx.dtype.is_signed and not idx.dtype.is_floating_point) or idx.dtype == torch.uint64
    if idx.dtype == torch.uint64:  # its two's complement (2**64 - 1 is -1), as DirectML reads it
        v = idx.view(torch.int64)
    else:
        v = idx.to(torch.int64)
    v = v.clamp(-a.count - 1, a.count).reshape(a.index_shape)
    total = torch.from_numpy(np.ascontiguousarray(a.base)).to(v.device)
    for t in range(a.columns):
        col = v if a.tuple_size is None else v[..., t:t + 1]
        if signed and a.sizes[t] is not None:
            col = torch.where(col < 0, col + a.sizes[t], col)
        total = total + col * a.strides[t]
    return torch.where((total < 0) | (total >= a.count), torch.full_like(total, a.count - 1), total)


def torch_gather(torch, x, address):
    """The elements of ``x`` (read flat) at ``address`` (shape of ``address``)."""
    v, back = torch_movable(torch, x)
    return back(torch.index_select(v.reshape(-1), 0, address.reshape(-1)).reshape(address.shape))


def torch_scatter_flat(torch, x, count: int, address, updates):
    """``x`` ({count} elements read flat; None: zeros of ``updates``' dtype) with ``updates`` written at
    ``address``; a flat {count} result."""
    u, back = torch_movable(torch, updates)
    if x is None:
        base = torch.zeros(count, dtype=u.dtype, device=u.device)
    else:
        base = torch_movable(torch, x)[0].reshape(-1)
    return back(torch.scatter(base, 0, address.reshape(-1), u.reshape(-1)))
