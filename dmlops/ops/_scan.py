"""Shared pieces of CUMULATIVE_SUMMATION / CUMULATIVE_PRODUCT (running tallies) and FOLD / UNFOLD (window tables).

Scans. DirectML's pages describe a running tally that "is written before adding the input" (exclusive) or after
it (inclusive), traversed by ascending or descending index. DirectML's vectors (CUMULATIVE_SUMMATION and
CUMULATIVE_PRODUCT, float32_axis2_increasing_inclusive, float32_axis3_decreasing_exclusive) are reproduced bit for
bit by exactly that: one float32 operation per element, in traversal order, the tally starting at the identity (a
Hillis-Steele doubling scan, or float64 accumulation rounded once, misses 10 to 25 of the 120 values of each case).
FLOAT16 is computed in float32 and stored once, toward zero (dmlops.lower), as the FLOAT16 cases show; integers
wrap. Every backend therefore performs the same sequential operations:

* reference: a NumPy loop over the axis;
* ONNX: CumSum for sums (ONNX Runtime's CPU kernel adds slice after slice in the value type, and the DirectML
  provider lowers CumSum to CUMULATIVE_SUMMATION itself); products have no ONNX operator at opset 18 (CumProd is
  opset 26, and ONNX Runtime's DirectML provider registers no Scan or Loop), so the tally is unrolled: Split along
  the axis, one Mul per element, Concat (a graph of O(axis length) nodes);
* torch: a loop of adds / multiplies over narrowed slices (torch.cumsum on the CPU accumulates float32 in float64,
  which differs from DirectML in the last bit of about 9 in 10 values of a 1000-long sum; torch-directml
  registers no cumprod).

The tally starting at 0 makes an inclusive sum of -0.0 give +0.0 (0 + -0 = +0); ONNX Runtime's CumSum copies the
first element (-0.0), so the ONNX form turns zeros into +0.0 with a select (changing nothing else). No vector holds -0.0: this sign is the
docs' running tally, not a fact of DirectML.

Windows (FOLD / UNFOLD). :func:`window_table` gives, per window position k (row-major over WindowSizes) and block b
(row-major over the blocks per dimension), the flat spatial position the window reads, or -1 where it reads the
zero padding. UNFOLD gathers through it; FOLD sums the columns that land on each output position in window-position
order starting from +0.0, as torch's col2im does (torch.nn.functional.fold on the CPU gives the same bits).
"""
from __future__ import annotations

import numpy as np

from . import _elementwise as ew

# ----------------------------------------------------------------------------------------------- scans


def _identity(dtype, op: str):
    return np.asarray(1 if op == "mul" else 0, dtype=dtype)


def scan_reference(x: np.ndarray, axis: int, reverse: bool, exclusive: bool, op: str) -> np.ndarray:
    """The running tally (``op`` "add" or "mul") of ``x`` along ``axis``: one operation per element, in the value
    type (float32 for float16, which dmlops.lower hands over as float32), integers wrapping."""
    v = np.moveaxis(x, axis, 0)
    fn = np.multiply if op == "mul" else np.add
    acc = np.broadcast_to(_identity(v.dtype, op), v.shape[1:]).copy()
    out = np.empty_like(v)
    order = range(v.shape[0] - 1, -1, -1) if reverse else range(v.shape[0])
    with np.errstate(all="ignore"):  # integer wrap-around, inf * 0: as DirectML computes them
        for i in order:
            if exclusive:
                out[i] = acc
                acc = fn(acc, v[i])
            else:
                acc = fn(acc, v[i])
                out[i] = acc
    return np.moveaxis(out, 0, axis)


def _onnx_wide(g, v: str):
    """``(value, back)``: an integer value as int64 (uint64: its bits), where ONNX Runtime's CPU provider has
    CumSum/Mul/Add kernels that wrap, and the inverse (the low bits, two's complement)."""
    dtype = g.dtype(v)
    if dtype.kind == "f":
        return v, lambda r: r
    if dtype.itemsize == 8:
        return g.cast(v, np.int64), lambda r: g.cast(r, dtype)  # equal widths: Cast keeps the bits
    return g.cast(v, np.int64), lambda r: ew.onnx_wrap(g, r, dtype)


def onnx_cumsum(g, x: str, axis: int, reverse: bool, exclusive: bool) -> str:
    """:func:`scan_reference` with "add", as ONNX CumSum."""
    v, back = _onnx_wide(g, x)
    r = g.node("CumSum", [v, g.const(np.asarray(axis, dtype=np.int64))], exclusive=int(exclusive),
               reverse=int(reverse))
    if not exclusive and g.dtype(v).kind == "f":  # the tally starts at +0: -0.0 becomes +0.0 (ONNX Runtime drops
        zero = ew.onnx_const(g, 0.0, g.dtype(v))      # an Add of 0 as a no-op, so a select does it)
        r = g.node("Where", [g.node("Equal", [r, zero], dtype=np.bool_), zero, r])
    return back(r)


def onnx_cumprod(g, x: str, shape, axis: int, reverse: bool, exclusive: bool) -> str:
    """:func:`scan_reference` with "mul", unrolled: Split, one Mul per element in traversal order, Concat."""
    v, back = _onnx_wide(g, x)
    n = shape[axis]
    piece = list(shape)
    piece[axis] = 1
    parts = [v] if n == 1 else list(g.node("Split", [v, g.ints([1] * n)], outputs=n, axis=axis))
    order = list(range(n - 1, -1, -1)) if reverse else list(range(n))
    out = [None] * n
    acc = None
    for i in order:
        if exclusive:
            out[i] = acc if acc is not None else g.const(np.ones(piece, dtype=g.dtype(v)))
            acc = parts[i] if acc is None else g.node("Mul", [acc, parts[i]])
        else:
            acc = parts[i] if acc is None else g.node("Mul", [acc, parts[i]])  # 1 * x = x exactly
            out[i] = acc
    r = out[0] if n == 1 else g.node("Concat", out, axis=axis)
    return back(r)


def torch_scan(torch, x, axis: int, reverse: bool, exclusive: bool, op: str):
    """:func:`scan_reference` in torch ops: a loop over narrowed slices (uint16/32/64 through their int64 bits)."""
    v, back = ew.torch_bits(torch, x)
    n = v.shape[axis]
    fn = torch.mul if op == "mul" else torch.add
    order = range(n - 1, -1, -1) if reverse else range(n)
    out = [None] * n
    first = v.narrow(axis, 0, 1)
    acc = torch.full_like(first, 1 if op == "mul" else 0)
    for i in order:
        piece = v.narrow(axis, i, 1)
        if exclusive:
            out[i] = acc
            acc = fn(acc, piece)
        else:
            acc = fn(acc, piece)
            out[i] = acc
    return back(torch.cat(out, dim=axis))


def scan_attributes(desc) -> tuple[int, bool, bool]:
    """(Axis, reverse, exclusive) of a CUMULATIVE_SUMMATION / CUMULATIVE_PRODUCT desc."""
    exclusive = getattr(desc, "has_exclusive_sum", None)
    if exclusive is None:
        exclusive = desc.has_exclusive_product
    return desc.axis, desc.axis_direction.name == "DECREASING", bool(exclusive)


# ----------------------------------------------------------------------------------------------- windows


def blocks_per_dimension(spatial, desc) -> list[int]:
    """(Spatial + StartPadding + EndPadding - Dilations * (WindowSizes - 1) - 1) / Strides + 1 per dimension."""
    return [(s + a + b - d * (k - 1) - 1) // t + 1 for s, a, b, d, k, t in
            zip(spatial, desc.start_padding, desc.end_padding, desc.dilations, desc.window_sizes, desc.strides)]


def window_table(spatial, desc) -> np.ndarray:
    """[K, L] int64: the flat spatial position (row-major over ``spatial``) window position k of block b reads, or -1
    where it reads the padding; K = prod(WindowSizes), L = BlockCount, both row-major."""
    window, blocks = list(desc.window_sizes), blocks_per_dimension(spatial, desc)
    dims = len(window)
    k_index = np.indices(window, dtype=np.int64).reshape(dims, -1)
    b_index = np.indices(blocks, dtype=np.int64).reshape(dims, -1)
    flat = np.zeros((k_index.shape[1], b_index.shape[1]), dtype=np.int64)
    valid = np.ones(flat.shape, dtype=bool)
    for d in range(dims):
        p = (b_index[d][None, :] * desc.strides[d] + k_index[d][:, None] * desc.dilations[d]
             - desc.start_padding[d])
        valid &= (p >= 0) & (p < spatial[d])
        flat = flat * spatial[d] + p
    flat[~valid] = -1
    return flat


def fold_table(spatial, desc) -> np.ndarray:
    """[K, P] int64: for window position k and flat output position p, the block whose window position k lands on
    p (at most one: blocks move by Strides), or L (BlockCount) where none does."""
    table = window_table(spatial, desc)
    k_count, blocks = table.shape
    inverse = np.full((k_count, int(np.prod(spatial))), blocks, dtype=np.int64)
    for k in range(k_count):
        hit = table[k] >= 0
        inverse[k, table[k, hit]] = np.nonzero(hit)[0]
    return inverse


def compute_dtype(dtype) -> np.dtype:
    """The type FOLD sums in: float32 for float16, the value type otherwise."""
    return np.dtype(np.float32) if np.dtype(dtype) == np.float16 else np.dtype(dtype)
