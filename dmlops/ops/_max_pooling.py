"""The window maximum shared by MAX_POOLING, MAX_POOLING1, MAX_POOLING2 and MAX_POOLING_GRAD.

DirectML's rule, as its vectors show it and the docs state the ties: every window keeps a running maximum that
starts at the data type's lowest finite value (FLOAT32 -3.4028235e38, which a FLOAT16 output stores as -65504;
an integer type's minimum) and index 0, and an element replaces it only when it is strictly greater:

* NaN never wins: MAX_POOLING float32_win2x2_s2x2_pad[0, 0][0, 0] (and every float32 vector) starts its first
  window with NaN and -inf; the answer is the window's largest number, and MAX_POOLING1/2's OutputIndicesTensor
  names it (index 7 in MAX_POOLING1 float32_win2x2_s2x2_pad[0, 0][0, 0]).
* Padding never wins, and a window made only of padding gives the lowest finite value, not -inf: MAX_POOLING
  float32_fixed_twin_of_gap_rank4 (a 1 x 1 input padded by 1 with a 1 x 1 window: -3.4028235e38 around -3).
* Ties keep the first element in window order, which is also the lowest flat index (the docs: "the later equal
  values are ignored and the index points to the first value encountered"); no vector has a tie at the maximum.
* OutputIndicesTensor counts the input "as a contiguous one-dimensional array", batch and channel included (every
  MAX_POOLING1/2 vector: channel 1 of {1, 2, 5, 6} is addressed from 30 on), as ONNX MaxPool's Indices do;
  torch's return_indices are per (batch, channel) plane. The index is logical (the input's strides do not enter).

* An element equal to the lowest value wins when nothing else does: MAX_POOLING1/2 sample_int8_minimum (windows
  {pad}, {7}, {-128}, {pad} of an INT8 input) give indices 0, 0, 1, 0: the -128 of window 3 is element 1, not the
  starting value's index 0. So the starting value is replaced by the first element at least as large, and then
  only by strictly greater ones (the docs' ties).

Decisions no vector checks: -inf and NaN never beat the starting value, so a window holding nothing else
(padding-only windows too) gives the lowest value and index 0; a FLOAT32 -3.4028235e38 in the window wins as the
INT8 -128 does; between +0 and -0 the first wins (the running maximum uses >).

MAX_POOLING_GRAD (DirectML's vectors MAX_POOLING_GRAD float32/float16, exact): every InputGradientTensor element
is added to the InputTensor element that wins its window, by the rule above; an element that wins several windows
sums their gradients in increasing window order (the vectors sum up to three of them, bit-exact in that order);
a window that nothing wins adds nothing (a decision; the forward's index 0 would otherwise take it). Elements that
no window picks, and sums that come to zero, are +0 (a running sum starting at +0; no vector has a -0.0
gradient).

The window reads go through dmlops.ops._pooling on every backend: for windows of up to P.SLICE_MAX elements one
strided slice per window element, folded by the running rule itself (the ``_slice_*`` functions below; the gradient
adds each window element's winning gradients into strided slices of a +0 accumulator, window elements from the
last, which is ascending window order for every input element), beyond that the gather table (``_table_*``: a
ReduceMax over each gathered window, the first winner as the lowest index among its maxima, and the gradient
through the inverse table). Integers are compared in int64 (UINT64
with its sign bit flipped, which keeps the unsigned order), as REDUCE does: ONNX Runtime's CPU ReduceMax takes no
16-bit or unsigned types and its DirectML provider no 8/16-bit ones at opset 18, and torch has no uint16/32/64
comparisons.
"""
from __future__ import annotations

import numpy as np

from . import _pooling as P
from ._elementwise import onnx_where, torch_numpy_dtype

SIGN = np.uint64(1 << 63)


def _planes(shape) -> tuple[int, int, int]:
    return int(shape[0]), int(shape[1]), int(np.prod(shape[2:], dtype=np.int64))


def _layout(desc, shape):
    """(table [rows, K], output spatial sizes, plane size); refused (P.budget) before the table is built when the
    windows would gather too many elements."""
    P.budget(desc, shape)
    idx = P.table(desc, list(shape[2:]))
    out = P.geometry(desc, list(shape[2:]))["output"]
    return idx, out, _planes(shape)[2]


def _bases(shape) -> np.ndarray:
    """int64 [N, C, 1]: the flat index of each (batch, channel) plane's first element."""
    n, c, plane = _planes(shape)
    return (np.arange(n * c, dtype=np.int64) * plane).reshape(n, c, 1)


def _int_lowest(dtype) -> int:
    """The lowest value of integer ``dtype`` in its int64 working form (UINT64: sign bit flipped)."""
    dtype = np.dtype(dtype)
    return -(2**63) if dtype == np.uint64 else int(np.iinfo(dtype).min)


def inverse_table(idx: np.ndarray, plane: int) -> np.ndarray:
    """int64 [plane, J]: for each input element, the flat (row * K + k) positions of the window elements that
    read it, in increasing row order, padded with rows * K (an extra zero); J >= 1."""
    rows, k = idx.shape
    flat = idx.reshape(-1)
    positions = np.nonzero(flat >= 0)[0]
    order = positions[np.argsort(flat[positions], kind="stable")]  # stable: increasing row order per element
    counts = np.bincount(flat[positions], minlength=plane)
    inv = np.full((plane, max(1, int(counts.max(initial=0)))), rows * k, np.int64)
    starts = np.cumsum(counts) - counts
    element = flat[order]
    inv[element, np.arange(order.size) - starts[element]] = order
    return inv


# ----------------------------------------------------------------------------------------------- NumPy
def _table_reference_pool(desc, v: np.ndarray):
    """(OutputTensor, whole-tensor int64 indices, one-hot winners bool [N, C, rows, K]) of ``v``, through the gather
    table."""
    idx, out, plane = _layout(desc, v.shape)
    n, c, _ = _planes(v.shape)
    valid = idx >= 0
    if v.dtype.kind == "f":
        lowest = np.finfo(v.dtype).min
        w = P.reference_windows(v, idx, -np.inf)
        w = np.where(np.isnan(w), -np.inf, w)
    else:
        lowest = np.iinfo(v.dtype).min
        w = P.reference_windows(v, idx, lowest)
    hit = (w == w.max(axis=-1, keepdims=True)) & valid & (w >= lowest)
    found = hit.any(axis=-1)
    k = hit.argmax(axis=-1)  # the first winner
    first = hit & (np.arange(idx.shape[1]) == k[..., None])
    value = np.where(found, np.take_along_axis(w, k[..., None], -1)[..., 0], lowest).astype(v.dtype)
    index = np.where(found, _bases(v.shape) + np.take_along_axis(np.broadcast_to(idx, w.shape), k[..., None],
                                                                 -1)[..., 0], 0)
    return value.reshape([n, c] + out), index.reshape([n, c] + out), first


def _table_reference_grad(desc, v: np.ndarray, grad: np.ndarray) -> np.ndarray:
    """MAX_POOLING_GRAD's OutputGradientTensor through the gather table and its inverse."""
    _, _, first = _table_reference_pool(desc, v)
    idx, _, plane = _layout(desc, v.shape)
    n, c, _ = _planes(v.shape)
    g = grad.reshape(n, c, -1, 1)
    parts = np.where(first, g, np.zeros((), g.dtype)).reshape(n, c, -1)
    parts = np.concatenate([parts, np.zeros((n, c, 1), g.dtype)], axis=2)
    inv = inverse_table(idx, plane)
    total = parts[:, :, inv[:, 0]]
    for j in range(1, inv.shape[1]):
        total = total + parts[:, :, inv[:, j]]
    total = np.where(total == 0, np.zeros((), g.dtype), total)
    return total.reshape(v.shape)


# ----------------------------------------------------------------------------------------------- ONNX
def _onnx_working(g, v: str):
    """``(value, back)``: floats as they are; integers in int64 (UINT64 with the sign bit flipped)."""
    dtype = g.dtype(v)
    if dtype.kind == "f":
        return v, lambda r: r
    if dtype == np.uint64:
        w = g.cast(g.node("BitwiseXor", [v, g.const(SIGN)]), np.int64)
        return w, lambda r: g.node("BitwiseXor", [g.cast(r, np.uint64), g.const(SIGN)])
    return g.cast(v, np.int64), lambda r: g.cast(r, dtype)


def _table_onnx_pool(desc, g, v: str, shape):
    """:func:`_table_reference_pool` in ONNX ops: (OutputTensor, int64 indices, one-hot winners). The window table
    is built in the graph (P.Windows), so the model stays small whatever the window."""
    P.budget(desc, shape)
    win = P.Windows(desc, list(shape[2:]))
    out, plane = win.output, win.plane
    index, valid = win.onnx(g)
    n, c, _ = _planes(shape)
    w, back = _onnx_working(g, v)
    dtype = g.dtype(w)
    axis = g.ints([3])
    if dtype.kind == "f":
        lowest = np.finfo(dtype).min
        w = P.onnx_gather_windows(g, w, shape, index, -np.inf)
        nan = g.node("IsNaN", [w], dtype=np.bool_)
        w = g.node("Where", [nan, g.const(np.array(-np.inf, dtype)), w], dtype=dtype)
    else:
        lowest = _int_lowest(g.dtype(v))
        w = P.onnx_gather_windows(g, w, shape, index, lowest)
    low = g.const(np.array(lowest, dtype))
    top = g.node("ReduceMax", [w, axis], keepdims=1)
    hit = g.node("And", [g.node("Equal", [w, top], dtype=np.bool_), valid], dtype=np.bool_)
    hit = g.node("And", [hit, g.node("GreaterOrEqual", [w, low], dtype=np.bool_)], dtype=np.bool_)
    # The first winner has the lowest flat index: window order is row-major, as the flat index is.
    position = index  # the padded index: the plane size in the padding
    sentinel = g.const(np.array(plane, np.int64))
    pick = g.node("ReduceMin", [g.node("Where", [hit, position, sentinel], dtype=np.int64), axis], keepdims=1)
    found = g.node("Less", [pick, sentinel], dtype=np.bool_)
    first = g.node("And", [hit, g.node("Equal", [position, pick], dtype=np.bool_)], dtype=np.bool_)
    if dtype.kind == "f":
        chosen = onnx_where(g, first, w, g.const(np.array(-np.inf, dtype)))  # keeps a winning -0.0
        value = g.node("Max", [g.node("ReduceMax", [chosen, axis], keepdims=1), low])
    else:
        value = top  # the maximum is the lowest value exactly when nothing wins
    index = g.node("Where", [found, g.node("Add", [pick, g.const(_bases(shape)[..., None])]),
                             g.const(np.array(0, np.int64))], dtype=np.int64)
    sizes = g.ints([n, c] + out)
    return back(g.node("Reshape", [value, sizes])), g.node("Reshape", [index, sizes]), first


def _table_onnx_grad(desc, g, v: str, shape, grad: str) -> str:
    """:func:`_table_reference_grad` in ONNX ops: Where of the winners, then one Gather per summand, added in
    order."""
    _, _, first = _table_onnx_pool(desc, g, v, shape)
    idx, _, plane = _layout(desc, shape)
    n, c, _ = _planes(shape)
    dtype = g.dtype(grad)
    zero = g.const(np.array(0, dtype))
    col = g.node("Reshape", [grad, g.ints([n, c, -1, 1])])
    parts = g.node("Reshape", [g.node("Where", [first, col, zero], dtype=dtype), g.ints([n, c, -1])])
    parts = g.node("Concat", [parts, g.node("Expand", [zero, g.ints([n, c, 1])])], axis=2)
    inv = inverse_table(idx, plane)
    total = None
    for j in range(inv.shape[1]):
        term = g.node("Gather", [parts, g.const(inv[:, j])], axis=2)
        total = term if total is None else g.node("Add", [total, term])
    total = g.node("Where", [g.node("Equal", [total, zero], dtype=np.bool_), zero, total], dtype=dtype)
    return g.node("Reshape", [total, g.ints(shape)])


# ----------------------------------------------------------------------------------------------- torch
def _torch_working(torch, v):
    if v.is_floating_point():
        return v, lambda r: r
    if v.dtype == torch.uint64:
        return v.view(torch.int64) ^ (-(2**63)), lambda r: (r ^ (-(2**63))).view(torch.uint64)
    dtype = v.dtype
    return v.to(torch.int64), lambda r: r.to(dtype)


def _table_torch_pool(desc, torch, v):
    """:func:`_table_reference_pool` in torch ops (torch-directml has amax but no amin: the lowest index is a negated
    amax)."""
    shape = tuple(v.shape)
    P.budget(desc, shape)
    win = P.Windows(desc, list(shape[2:]))
    out, plane = win.output, win.plane
    n, c, _ = _planes(shape)
    dev = v.device
    position, valid = win.torch(torch, dev)  # position: the padded index, the plane size in the padding
    w, back = _torch_working(torch, v)
    if w.is_floating_point():
        lowest = float(torch.finfo(w.dtype).min)
        w = P.torch_gather_windows(torch, w, position, float("-inf"))
        w = torch.where(torch.isnan(w), torch.full_like(w, float("-inf")), w)
    else:
        lowest = _int_lowest(torch_numpy_dtype(torch, v.dtype))
        w = P.torch_gather_windows(torch, w, position, lowest)
    top = torch.amax(w, dim=3, keepdim=True)
    hit = (w == top) & valid & (w >= lowest)
    neg = torch.where(hit, -position, torch.full((), -plane, dtype=torch.int64, device=dev))
    pick = -torch.amax(neg, dim=3, keepdim=True)
    found = pick < plane
    first = hit & (position == pick)
    if w.is_floating_point():
        chosen = torch.where(first, w, torch.full_like(w, float("-inf")))
        value = torch.clamp(torch.amax(chosen, dim=3, keepdim=True), min=lowest)
    else:
        value = top
    index = torch.where(found, pick + torch.as_tensor(_bases(shape)[..., None], device=dev),
                        torch.zeros((), dtype=torch.int64, device=dev))
    sizes = [n, c] + out
    return back(value.reshape(sizes)), index.reshape(sizes), first


def _table_torch_grad(desc, torch, v, grad):
    """:func:`_table_reference_grad` in torch ops."""
    shape = tuple(v.shape)
    _, _, first = _table_torch_pool(desc, torch, v)
    idx, _, plane = _layout(desc, shape)
    n, c, _ = _planes(shape)
    zero = torch.zeros((), dtype=grad.dtype, device=grad.device)
    parts = torch.where(first, grad.reshape(n, c, -1, 1), zero).reshape(n, c, -1)
    parts = torch.cat([parts, torch.zeros((n, c, 1), dtype=grad.dtype, device=grad.device)], dim=2)
    inv = inverse_table(idx, plane)
    total = None
    for j in range(inv.shape[1]):
        term = parts.index_select(2, torch.as_tensor(inv[:, j], device=grad.device))
        total = term if total is None else total + term
    total = torch.where(total == 0, zero, total)
    return total.reshape(shape)


# ----------------------------------------------------------------------------------------------- window elements one
# at a time (P.Slices: windows of at most P.SLICE_MAX elements)
#
# The running rule itself, one window element per step over every window at once: ``cur`` starts below everything
# that can win and ``k*`` (the winner's window element) at K, "none". Floats start at -inf and are padded with -inf:
# ``cand > cur`` is false for NaN, -inf, the padding and any later equal element, and true for the first element at
# least as large as the lowest finite value, so the strict comparison alone is the rule; the value is
# max(cur, lowest) at the end. Integers start at (and are padded with) the type's minimum, which nothing is below:
# the value is the plain running maximum, and the winner also takes the first element inside the input while none
# has won (``k* == K``), which is the minimum winning a window of nothing greater.


def _bases_of(shape, dims: int) -> np.ndarray:
    """int64 [N, C, 1, ...]: each plane's first flat index, shaped against [N, C, *output]."""
    return _bases(shape).reshape(list(shape[:2]) + [1] * dims)


def _mask(parts: list) -> np.ndarray | None:
    out = None
    for m in parts:
        out = m if out is None else out & m
    return out


def _slice_reference_pool(desc, v: np.ndarray, indices: bool):
    """(value, whole-tensor int64 indices or None, k* int32 [N, C, *output] or None) of ``v`` by the running rule."""
    s = P.Slices(desc, v.shape[2:])
    shape = tuple(v.shape[:2]) + tuple(s.output)
    floating = v.dtype.kind == "f"
    lowest = np.finfo(v.dtype).min if floating else np.iinfo(v.dtype).min
    padded = P.reference_padded(v, s, -np.inf if floating else lowest)
    cur = np.full(shape, -np.inf if floating else lowest, v.dtype)
    kstar = np.full(shape if indices else (), s.k, np.int32)  # tracked only for indices
    for k, ks in enumerate(s.positions()):
        cand = padded[s.spans(ks)]
        with np.errstate(invalid="ignore"):
            better = cand > cur
        if indices and not floating:
            better = better | (kstar == s.k)
            inside = _mask(s.inside(ks))
            if inside is not None:
                better = better & inside
        cur = np.where(better, cand, cur)
        if indices:
            kstar = np.where(better, np.int32(k), kstar)
    value = np.maximum(cur, v.dtype.type(lowest)) if floating else cur
    if not indices:
        return value, None, None
    where = _bases_of(v.shape, s.dims) + P._sum_of(s.origins(), s.output) + s.offsets()[kstar]
    return value, np.where(kstar < s.k, where, 0), kstar


def _slice_reference_grad(desc, v: np.ndarray, grad: np.ndarray) -> np.ndarray:
    _, _, kstar = _slice_reference_pool(desc, v, True)
    s = P.Slices(desc, v.shape[2:])
    g = grad.reshape(kstar.shape)
    zero = np.zeros((), g.dtype)
    return P.reference_place_sum(s, v.shape[:2], lambda k: np.where(kstar == k, g, zero), g.dtype).reshape(v.shape)


def _slice_onnx_pool(desc, g, v: str, shape, indices: bool):
    """:func:`_slice_reference_pool` in ONNX: Pad once (NaN read as -inf), then per window element Slice, Greater
    (is it the new winner?) and two Max: the running maximum, and the winner's mark (float32 k + 1, 0 for none; a
    later k is a larger mark, so Max(mark, (k + 1) * winner) is the Where of k* without ONNX Runtime's slow CPU
    Where). Max's choice between +0.0 and -0.0 is its own, and ONNX Runtime's CPU Where turns a -0.0 taken from its
    X input into +0.0 (dmlops/ops/_elementwise.py); neither changes a comparison, but either would change a winning
    -0.0: float values are read back from the padded input at the winner (one Gather). Returns (value, index or
    None, mark or None)."""
    s = P.Slices(desc, list(shape[2:]))
    o = P.OnnxSlices(g, s)
    n, c = int(shape[0]), int(shape[1])
    w, back = _onnx_working(g, v)
    dtype = g.dtype(w)
    floating = dtype.kind == "f"
    lowest = np.finfo(dtype).min if floating else _int_lowest(g.dtype(v))
    padded = o.padded(w, -np.inf if floating else lowest)
    if floating:  # NaN as -inf, so that Max can keep the running maximum
        padded = g.node("Where", [g.node("IsNaN", [padded], dtype=np.bool_), o.scalar(-np.inf, dtype), padded],
                        dtype=dtype)
    cur = o.scalar(-np.inf if floating else lowest, dtype)
    none = o.scalar(0, np.float32)
    positions = s.positions()
    cands = P.Ahead(lambda k: o.take(padded, positions[k]), s.k)
    found_rule = indices and not floating  # integers: the first element inside wins while none has (docstring)

    def better(k: int, cur: str, mark: str) -> str:
        b = g.node("Greater", [cands.get(k), cur], dtype=np.bool_)
        if found_rule:
            b = g.node("Or", [b, g.node("Equal", [mark, none], dtype=np.bool_)], dtype=np.bool_)
            inside = o.inside(positions[k])
            if inside is not None:
                b = g.node("And", [b, inside], dtype=np.bool_)
        return b

    need_mark = indices or floating

    def term(winner: str, k: int) -> str | None:
        return g.node("Mul", [g.cast(winner, np.float32), o.scalar(k + 1, np.float32)]) if need_mark else None

    # Emission order (P.Ahead): the slices one step ahead of their step; where nothing else reads the mark, each
    # Max into it one step behind the term it takes, so the walk back from the outputs enters the mark first.
    mark = none
    winner = better(0, cur, mark)
    pending = term(winner, 0)
    for k in range(s.k):
        last = k == s.k - 1
        if not (floating and last):  # floats read their value back at the end
            cur = g.node("Max", [cur, cands.get(k)])  # the running maximum, but for a zero's sign
        if found_rule:
            mark = g.node("Max", [mark, pending])
            if not last:
                pending = term(better(k + 1, cur, mark), k + 1)
        else:
            ahead = None if last else term(better(k + 1, cur, mark), k + 1)
            if need_mark:
                mark = g.node("Max", [mark, pending])
            pending = ahead
    if need_mark:
        element = g.cast(mark, np.int32)
    if floating:
        pplane = int(np.prod(s.padded, dtype=np.int64))
        at = g.node("Add", [g.node("Add", [o.plane_bases(n, c, pplane), o.sum_of(s.origins(padded=True))]),
                            g.node("Gather", [o.const(("offsets", True), _marked(s.offsets(padded=True))), element],
                                   axis=0)])
        read = g.node("Gather", [g.node("Reshape", [padded, o.ints([-1])]), at], axis=0)
        # the constant in X, the value read in Y (kept bit for bit); Equal, not Not (NotWhereFusion would swap them)
        value = g.node("Where", [g.node("Equal", [mark, none], dtype=np.bool_), o.scalar(lowest, dtype), read],
                       dtype=dtype)
    else:
        value = cur
    if not indices:
        return back(value), None, None
    at = g.node("Add", [g.node("Add", [o.plane_bases(n, c, s.plane), o.sum_of(s.origins())]),
                        g.node("Gather", [o.const(("offsets", False), _marked(s.offsets())), element], axis=0)])
    index = g.node("Where", [g.node("Greater", [mark, none], dtype=np.bool_), at, o.scalar(0, np.int64)],
                   dtype=np.int64)
    return back(value), index, mark


def _marked(offsets: np.ndarray) -> np.ndarray:
    """Slices.offsets (entry K for none) indexed by mark (0 for none, k + 1 for element k)."""
    return np.concatenate([offsets[-1:], offsets[:-1]])


def _slice_onnx_grad(desc, g, v: str, shape, grad: str) -> str:
    _, _, mark = _slice_onnx_pool(desc, g, v, shape, True)
    s = P.Slices(desc, list(shape[2:]))
    o = P.OnnxSlices(g, s)
    n, c = int(shape[0]), int(shape[1])
    dtype = g.dtype(grad)
    spread = o.dilate(g.node("Reshape", [grad, o.ints([n, c] + s.output)]), n, c, 0)
    marks = o.dilate(mark, n, c, 0)
    zero = o.scalar(0, dtype)
    # a -0.0 gradient may come out of Where's X as +0.0: no sum from +0 can tell them apart
    total = o.place_sum(lambda k: g.node("Where", [g.node("Equal", [marks, o.scalar(k + 1, np.float32)],
                                                          dtype=np.bool_), spread, zero], dtype=dtype), dtype)
    return g.node("Reshape", [total, o.ints(shape)])


def _slice_torch_pool(desc, torch, v, indices: bool):
    """:func:`_slice_reference_pool` in torch."""
    shape = tuple(v.shape)
    s = P.Slices(desc, list(shape[2:]))
    dev = v.device
    w, back = _torch_working(torch, v)
    floating = w.is_floating_point()
    lowest = float(torch.finfo(w.dtype).min) if floating else _int_lowest(torch_numpy_dtype(torch, v.dtype))
    start = float("-inf") if floating else lowest
    padded = P.torch_padded(torch, w, s, start)
    cur = torch.full((), start, dtype=w.dtype, device=dev)
    none = torch.full((), s.k, dtype=torch.int32, device=dev)
    kstar = none
    for k, ks in enumerate(s.positions()):
        cand = padded[s.spans(ks)]
        better = cand > cur
        if indices and not floating:
            better = better | (kstar == none)
            for m in s.inside(ks):
                better = better & torch.as_tensor(m, device=dev)
        cur = torch.where(better, cand, cur)
        if indices:
            kstar = torch.where(better, torch.full((), k, dtype=torch.int32, device=dev), kstar)
    value = torch.clamp(cur, min=lowest) if floating else cur
    if not indices:
        return back(value), None, None
    sizes = list(shape[:2]) + s.output
    offsets = torch.as_tensor(s.offsets(), device=dev).index_select(0, kstar.reshape(-1)).reshape(sizes)
    at = (torch.as_tensor(_bases_of(shape, s.dims), device=dev) + P.torch_sum_of(torch, s.origins(), s.output, dev)
          + offsets)
    index = torch.where(kstar < none, at, torch.zeros((), dtype=torch.int64, device=dev))
    return back(value), index, kstar


def _slice_torch_grad(desc, torch, v, grad):
    _, _, kstar = _slice_torch_pool(desc, torch, v, True)
    s = P.Slices(desc, list(v.shape[2:]))
    g = grad.reshape(kstar.shape)
    zero = torch.zeros((), dtype=g.dtype, device=g.device)
    total = P.torch_place_sum(torch, s, v.shape[:2], lambda k: torch.where(kstar == k, g, zero), g.dtype, g.device)
    return total.reshape(tuple(v.shape))


# ----------------------------------------------------------------------------------------------- the lowerings
def reference_pool(desc, v: np.ndarray, indices: bool = True):
    """(OutputTensor, whole-tensor int64 indices (None unless ``indices``), winners) of ``v``: one window element at
    a time for windows of up to P.SLICE_MAX elements, else through the gather table (refused past P.MAX_ELEMENTS)."""
    if P.sliced(desc):
        return _slice_reference_pool(desc, v, indices)
    return _table_reference_pool(desc, v)


def reference_grad(desc, v: np.ndarray, grad: np.ndarray) -> np.ndarray:
    """MAX_POOLING_GRAD's OutputGradientTensor (module docstring)."""
    if P.sliced(desc):
        return _slice_reference_grad(desc, v, grad)
    return _table_reference_grad(desc, v, grad)


def onnx_pool(desc, g, v: str, shape, indices: bool = True):
    """:func:`reference_pool` in ONNX ops."""
    if P.sliced(desc):
        return _slice_onnx_pool(desc, g, v, shape, indices)
    return _table_onnx_pool(desc, g, v, shape)


def onnx_grad(desc, g, v: str, shape, grad: str) -> str:
    """:func:`reference_grad` in ONNX ops."""
    if P.sliced(desc):
        return _slice_onnx_grad(desc, g, v, shape, grad)
    return _table_onnx_grad(desc, g, v, shape, grad)


def torch_pool(desc, torch, v, indices: bool = True):
    """:func:`reference_pool` in torch ops."""
    if P.sliced(desc):
        return _slice_torch_pool(desc, torch, v, indices)
    return _table_torch_pool(desc, torch, v)


def torch_grad(desc, torch, v, grad):
    """:func:`reference_grad` in torch ops."""
    if P.sliced(desc):
        return _slice_torch_grad(desc, torch, v, grad)
    return _table_torch_grad(desc, torch, v, grad)


# ----------------------------------------------------------------------------------------------- samples
def index_samples(cls_name: str) -> list:
    """MAX_POOLING1 / MAX_POOLING2 samples with OutputIndicesTensor, outputs computed by hand."""
    from .. import descs
    from ..sample import Sample, SampleOptions, td
    from ._elementwise import INTEGERS, SIGNED, int_array

    cls = getattr(descs, cls_name)
    dilated = cls_name == "MaxPooling2"
    f32, lowest = np.float32, float(np.finfo(np.float32).min)
    exact: SampleOptions = dict(atol=0, rtol=0, why="a maximum and its index: exact", float16_atol=0, float16_rtol=0)

    def make(data_type, in_sizes, out_sizes, window, strides=None, start=None, end=None, dilations=None,
             index_type="UINT32"):
        n = len(window)
        extra = {"dilations": dilations or [1] * n} if dilated else {}
        return cls(input_tensor=td(data_type, in_sizes), output_tensor=td(data_type, out_sizes),
                   output_indices_tensor=None if index_type is None else td(index_type, out_sizes),
                   strides=strides or [1] * n, window_size=window, start_padding=start or [0] * n,
                   end_padding=end or [0] * n, **extra)

    out = [
        # 2 x 2 windows, strides {1, 2}: {NaN, -inf, 1, 2} -> 2 at 5 (NaN passed over); {3, 3, -1, 0} -> the
        # first 3, at 2; {1, 2, 5, 2} -> 5 at 8; {-1, 0, -2, -0.5} -> 0 at 7.
        Sample("nan_inf_ties", make("FLOAT32", [1, 1, 3, 4], [1, 1, 2, 2], [2, 2], [1, 2]),
               {"InputTensor": np.array([[[[np.nan, -np.inf, 3, 3], [1, 2, -1, 0], [5, 2, -2, -0.5]]]], f32)},
               {"OutputTensor": np.array([[[[2, 3], [5, 0]]]], f32),
                "OutputIndicesTensor": np.array([[[[5, 2], [8, 7]]]], np.uint32)}, **exact),
        # One window per {2, 2} plane of a {2, 2, 2, 2} input: the indices count the whole tensor (plane p from
        # 4p on): maxima 4 at 1, 8 at 4 + 0, 12 at 8 + 2, 16 at 12 + 3. UINT64 indices.
        Sample("whole_tensor_indices", make("FLOAT32", [2, 2, 2, 2], [2, 2, 1, 1], [2, 2], index_type="UINT64"),
               {"InputTensor": np.array([1, 4, 2, 3, 8, 5, 6, 7, 9, 10, 12, 11, 13, 14, 15, 16],
                                        f32).reshape(2, 2, 2, 2)},
               {"OutputTensor": np.array([4, 8, 12, 16], f32).reshape(2, 2, 1, 1),
                "OutputIndicesTensor": np.array([1, 4, 10, 15], np.uint64).reshape(2, 2, 1, 1)}, **exact),
        # Padding {1, 1} before and {3, 3} after a 2 x 2 input, 2 x 2 windows, strides 2: one element per window
        # at 0, only padding at 2 (the lowest float32, index 0: a decision).
        Sample("padding_only_windows", make("FLOAT32", [1, 1, 2, 2], [1, 1, 3, 3], [2, 2], [2, 2], [1, 1], [3, 3]),
               {"InputTensor": np.array([[[[-1, -2], [-3, -4]]]], f32)},
               {"OutputTensor": np.array([[[[-1, -2, lowest], [-3, -4, lowest], [lowest, lowest, lowest]]]], f32),
                "OutputIndicesTensor": np.array([[[[0, 1, 0], [2, 3, 0], [0, 0, 0]]]], np.uint32)}, **exact),
        # 3 spatial dimensions: x = -4..3, window 2 x 2 x 2, StartPadding 1 on the width: width 0 only (-4, -2, 0,
        # 2 -> 2 at 6), then everything (3 at 7).
        Sample("volume", make("FLOAT32", [1, 1, 2, 2, 2], [1, 1, 1, 1, 2], [2, 2, 2], start=[0, 0, 1]),
               {"InputTensor": (np.arange(8, dtype=f32) - 4).reshape(1, 1, 2, 2, 2)},
               {"OutputTensor": np.array([2, 3], f32).reshape(1, 1, 1, 1, 2),
                "OutputIndicesTensor": np.array([6, 7], np.uint32).reshape(1, 1, 1, 1, 2)}, **exact),
        # No OutputIndicesTensor: OutputTensor alone.
        Sample("no_indices", make("FLOAT32", [1, 1, 2, 2], [1, 1, 1, 1], [2, 2], index_type=None),
               {"InputTensor": np.array([[[[-1, 3], [2, -0.5]]]], f32)},
               {"OutputTensor": np.array([[[[3]]]], f32)}, **exact),
    ]
    if dilated:
        # Dilations {2, 2}, padding 1 all round, on {{1, 9, 2}, {8, 3, 7}, {4, 6, 5}}: window (i, j) reads rows
        # i - 1 and i + 1, columns j - 1 and j + 1: 3 at 4, 8 at 3, 3; 9 at 1, 5 at 8, 9; 3, 8, 3.
        out.append(Sample("dilated_padding", make("FLOAT32", [1, 1, 3, 3], [1, 1, 3, 3], [2, 2], start=[1, 1],
                                                  end=[1, 1], dilations=[2, 2]),
                          {"InputTensor": np.array([[[[1, 9, 2], [8, 3, 7], [4, 6, 5]]]], f32)},
                          {"OutputTensor": np.array([[[[3, 8, 3], [9, 5, 9], [3, 8, 3]]]], f32),
                           "OutputIndicesTensor": np.array([[[[4, 3, 4], [1, 8, 1], [4, 3, 4]]]], np.uint32)},
                          **exact))
    # Windows {pad, a}, {a, b}, {b, c}, {c, d}, {d, pad}; the padding is the type's minimum and never wins.
    for t in INTEGERS:
        signed = t in SIGNED
        x = [-3, 5, 5, -7] if signed else [3, 0, 9, 9]
        y = [-3, 5, 5, 5, -7] if signed else [3, 3, 9, 9, 9]
        i = [0, 1, 1, 2, 3] if signed else [0, 0, 2, 2, 3]
        out.append(Sample(f"int_{t.lower()}", make(t, [1, 1, 1, 4], [1, 1, 1, 5], [1, 2], start=[0, 1], end=[0, 1]),
                          {"InputTensor": int_array(x, t).reshape(1, 1, 1, 4)},
                          {"OutputTensor": int_array(y, t).reshape(1, 1, 1, 5),
                           "OutputIndicesTensor": np.array(i, np.uint32).reshape(1, 1, 1, 5)}, **exact))
    # INT8's minimum wins a window holding nothing greater (DirectML's answer, vector sample_int8_minimum): windows
    # {pad}, {7}, {-128}, {pad} give -128, 7, -128, -128 with indices 0, 0, 1 (the -128), 0 (padding only).
    out.append(Sample("int8_minimum", make("INT8", [1, 1, 1, 2], [1, 1, 1, 4], [1, 1], start=[0, 1], end=[0, 1]),
                      {"InputTensor": np.array([7, -128], np.int8).reshape(1, 1, 1, 2)},
                      {"OutputTensor": np.array([-128, 7, -128, -128], np.int8).reshape(1, 1, 1, 4),
                       "OutputIndicesTensor": np.array([0, 0, 1, 0], np.uint32).reshape(1, 1, 1, 4)}, **exact))
    out.append(Sample("uint64_above_2_63", make("UINT64", [1, 1, 1, 3], [1, 1, 1, 2], [1, 2]),
                      {"InputTensor": np.array([2**63 + 1, 5, 2**64 - 1], np.uint64).reshape(1, 1, 1, 3)},
                      {"OutputTensor": np.array([2**63 + 1, 2**64 - 1], np.uint64).reshape(1, 1, 1, 2),
                       "OutputIndicesTensor": np.array([0, 2], np.uint32).reshape(1, 1, 1, 2)}, **exact))
    return out
