"""Average pooling, LP pooling and the average-pooling gradient, as DirectML's vectors compute them.

Every window is read through dmlops/ops/_pooling.py (one strided slice per window element up to SLICE_MAX
elements, the sliding-window table beyond; padding read as +0), and summed in float32 **one element after the other, in the window's row-major order, starting from its first
element**: that order reproduces every FLOAT32 vector bit for bit (AVERAGE_POOLING(1), LP_POOLING(1)), where a
pairwise or float64 sum misses 2 to 19 elements per case. Then:

* average: ``sum / count`` (an IEEE division; ``sum * (1 / count)`` misses 6 elements of
  float32_win3x2_s1x2_pad[1, 0][1, 1]), count = the window's element count (IncludePadding) or its non-padding
  elements. A window made only of padding with IncludePadding FALSE is ``0 / 0`` = NaN: no vector has one (the
  refused gap_factory_* cases would have), so this is a decision, not a fact of DirectML;
* LP: ``(sum |x|^P) ^ (1/P)`` with |x| (the page's formula has none; the P = 1 vectors float32_win3x2_s1x2_...
  are sums of magnitudes, e.g. 5.4442587 for a window holding negatives), ``x * x`` and ``sqrt`` for P = 2
  (exact on every P = 2 vector; the device's pow, exp2(P log2 x), misses 3 to 17 elements a case), the sum itself
  for P = 1. No vector has P >= 3: there dmlops uses float32 pow for both powers, whose last bit may differ
  from DirectML's (and between ONNX Runtime's and torch's pow);
* the gradient (AVERAGE_POOLING_GRAD): each output-gradient element's share ``dY / count`` is added to every
  input element of its window; each input element sums its shares in ascending output position, one after the
  other (AVERAGE_POOLING_GRAD-float32: exact; summing window element by window element misses 22 elements,
  multiplying by 1 / count 14). Up to SLICE_MAX window elements, every backend adds the shares into strided
  slices of a +0 accumulator, window element by window element from the last (dmlops/ops/_pooling.py: that is
  ascending output position for every input element); beyond, it gathers them through the inverse of the table and
  adds them in that order with Gather and Add only (no scatter, no ConvTranspose). A gradient element whose sum is
  zero is +0, as a sum starting from +0 gives (a decision no vector checks: all its shares would be -0.0).

Windows of more than ``SLICE_MAX`` elements read through the table (and, there, gradient elements in more than
``SEQUENTIAL_MAX`` windows) are summed by ReduceSum / torch.sum on ONNX Runtime and torch, whose order is their own
(float32 rounding, a few ULP); the reference keeps the sequential order. FLOAT16 is computed in float32
(lower.py): exact on every FLOAT16 vector.
"""
from __future__ import annotations

import numpy as np

from . import _pooling as P
from ._elementwise import onnx_const

# Longest window summed Add by Add on ONNX Runtime and torch (one Gather and one Add per element).
SEQUENTIAL_MAX = 64


# ----------------------------------------------------------------------------------------------- tables
def _table(desc, spatial_sizes) -> np.ndarray:
    return P.table(desc, list(spatial_sizes))


def counts(desc, idx: np.ndarray) -> np.ndarray:
    """float32 [rows]: the divisor of each window (its size, or its non-padding elements)."""
    if desc.include_padding:
        return np.full(idx.shape[0], idx.shape[1], np.float32)
    return (idx >= 0).sum(axis=1).astype(np.float32)


def inverse_table(idx: np.ndarray, plane: int) -> np.ndarray:
    """int64 [plane, M]: for every input element, the windows (rows of ``idx``) holding it, ascending; -1 after."""
    r, _ = np.nonzero(idx >= 0)  # row-major: rows ascending
    j = idx[idx >= 0]
    order = np.argsort(j, kind="stable")  # stable: each element's rows stay ascending
    j, r = j[order], r[order]
    per = np.bincount(j, minlength=plane)
    m = max(1, int(per.max()) if per.size else 0)
    pos = np.arange(j.size) - (np.cumsum(per) - per)[j]
    inv = np.full((plane, m), -1, np.int64)
    inv[j, pos] = r
    return inv


# ----------------------------------------------------------------------------------------------- window sums
def reference_sum(w: np.ndarray) -> np.ndarray:
    """Sum over the last axis, one element after the other (np.add.accumulate is sequential)."""
    return np.add.accumulate(w, axis=-1)[..., -1]


def onnx_sum(g, w: str, k: int) -> str:
    """ONNX sum of ``w`` [N, C, rows, k] over its last axis: Gather and Add in order, or ReduceSum past
    SEQUENTIAL_MAX."""
    if k > SEQUENTIAL_MAX:
        return g.node("ReduceSum", [w, g.ints([3])], keepdims=0)
    cols = [g.node("Gather", [w, g.const(np.array(i, np.int64))], axis=3) for i in range(k)]
    acc = cols[0]
    for c in cols[1:]:
        acc = g.node("Add", [acc, c])
    return acc


def torch_sum(torch, w):
    """torch sum of ``w`` over its last axis: in order, or torch.sum past SEQUENTIAL_MAX."""
    k = w.shape[-1]
    if k > SEQUENTIAL_MAX:
        return w.sum(dim=-1)
    acc = w[..., 0]
    for i in range(1, k):
        acc = acc + w[..., i]
    return acc


# ----------------------------------------------------------------------------------------------- average
def _out_sizes(desc, name="OutputTensor"):
    return list(desc.tensors()[name].sizes)


def average_reference(desc, x: dict) -> dict:
    v = x["InputTensor"]
    if P.sliced(desc):
        windows = P.Slices(desc, v.shape[2:])
        with np.errstate(invalid="ignore", divide="ignore"):
            y = P.reference_slice_sum(v, windows, 0.0) / windows.divisor(desc.include_padding)
        return {"OutputTensor": y.astype(v.dtype).reshape(_out_sizes(desc))}
    P.budget(desc, v.shape)
    idx = _table(desc, v.shape[2:])
    s = reference_sum(P.reference_windows(v, idx, 0.0))
    with np.errstate(invalid="ignore", divide="ignore"):
        y = s / counts(desc, idx)
    return {"OutputTensor": y.astype(v.dtype).reshape(_out_sizes(desc))}


def _divisors(desc, win) -> np.ndarray:
    """float32 [rows]: :func:`counts` from the per-dimension description (no table)."""
    return np.full(win.rows, win.k, np.float32) if desc.include_padding else win.counts()


def average_onnx(desc, g, x: dict) -> dict:
    v = x["InputTensor"]
    shape = list(desc.input_tensor.sizes)
    if P.sliced(desc):
        o = P.OnnxSlices(g, P.Slices(desc, shape[2:]))
        y = g.node("Div", [o.slice_sum(v, 0.0), o.divisor(desc.include_padding, g.dtype(v))])
        return {"OutputTensor": g.node("Reshape", [y, g.ints(_out_sizes(desc))])}
    P.budget(desc, shape)
    win = P.Windows(desc, shape[2:])
    index, _ = win.onnx(g)
    s = onnx_sum(g, P.onnx_gather_windows(g, v, shape, index, 0.0), win.k)
    y = g.node("Div", [s, g.const(_divisors(desc, win).astype(g.dtype(v)))])
    return {"OutputTensor": g.node("Reshape", [y, g.ints(_out_sizes(desc))])}


def average_torch(desc, torch, x: dict) -> dict:
    v = x["InputTensor"]
    if P.sliced(desc):
        s = P.Slices(desc, list(v.shape[2:]))
        divisor = torch.as_tensor(s.divisor(desc.include_padding), dtype=v.dtype, device=v.device)
        return {"OutputTensor": (P.torch_slice_sum(torch, v, s, 0.0) / divisor).reshape(_out_sizes(desc))}
    P.budget(desc, tuple(v.shape))
    win = P.Windows(desc, list(v.shape[2:]))
    index, _ = win.torch(torch, v.device)
    s = torch_sum(torch, P.torch_gather_windows(torch, v, index, 0.0))
    y = s / torch.as_tensor(_divisors(desc, win), dtype=v.dtype, device=v.device)
    return {"OutputTensor": y.reshape(_out_sizes(desc))}


# ----------------------------------------------------------------------------------------------- LP
def lp_reference(desc, x: dict) -> dict:
    v = x["InputTensor"]
    p, f = desc.p, v.dtype.type
    sliced = P.sliced(desc)
    if not sliced:
        P.budget(desc, v.shape)  # before |x| ** P is computed over the input
    a = np.abs(v)
    with np.errstate(over="ignore"):
        powered = a if p == 1 else a * a if p == 2 else np.power(a, f(p))
        if sliced:
            s = P.reference_slice_sum(powered, P.Slices(desc, v.shape[2:]), 0.0)
        else:
            s = reference_sum(P.reference_windows(powered, _table(desc, v.shape[2:]), 0.0))
        y = s if p == 1 else np.sqrt(s) if p == 2 else np.power(s, f(1) / f(p))
    return {"OutputTensor": y.astype(v.dtype).reshape(_out_sizes(desc))}


def lp_onnx(desc, g, x: dict) -> dict:
    v = x["InputTensor"]
    p, dtype = desc.p, g.dtype(x["InputTensor"])
    shape = list(desc.input_tensor.sizes)
    a = g.node("Abs", [v])
    powered = a if p == 1 else g.node("Mul", [a, a]) if p == 2 else g.node("Pow", [a, onnx_const(g, p, dtype)])
    if P.sliced(desc):
        s = P.OnnxSlices(g, P.Slices(desc, shape[2:])).slice_sum(powered, 0.0)
    else:
        P.budget(desc, shape)
        win = P.Windows(desc, shape[2:])
        index, _ = win.onnx(g)
        s = onnx_sum(g, P.onnx_gather_windows(g, powered, shape, index, 0.0), win.k)
    if p == 2:
        s = g.node("Sqrt", [s])
    elif p > 2:
        s = g.node("Pow", [s, onnx_const(g, dtype.type(1) / dtype.type(p), dtype)])
    return {"OutputTensor": g.node("Reshape", [s, g.ints(_out_sizes(desc))])}


def lp_torch(desc, torch, x: dict) -> dict:
    v = x["InputTensor"]
    p = desc.p
    sliced = P.sliced(desc)
    if not sliced:
        P.budget(desc, tuple(v.shape))  # before |x| ** P is computed over the input
    a = v.abs()
    powered = a if p == 1 else a * a if p == 2 else a.pow(float(p))
    if sliced:
        s = P.torch_slice_sum(torch, powered, P.Slices(desc, list(v.shape[2:])), 0.0)
    else:
        win = P.Windows(desc, list(v.shape[2:]))
        index, _ = win.torch(torch, v.device)
        s = torch_sum(torch, P.torch_gather_windows(torch, powered, index, 0.0))
    if p == 2:
        s = s.sqrt()
    elif p > 2:
        s = s.pow(float(np.float32(1) / np.float32(p)))
    return {"OutputTensor": s.reshape(_out_sizes(desc))}


# ----------------------------------------------------------------------------------------------- gradient
def _grad_tables(desc):
    """(table over OutputGradientTensor's planes, divisors with empty windows as 1, inverse table); refused
    (P.budget) before they are built when too large."""
    P.budget(desc, list(desc.output_gradient_tensor.sizes))
    spatial = list(desc.output_gradient_tensor.sizes)[2:]
    idx = _table(desc, spatial)
    c = counts(desc, idx)
    c = np.where(c == 0, np.float32(1), c)  # a window made only of padding reaches no element
    return idx, c, inverse_table(idx, int(np.prod(spatial, dtype=np.int64)))


def _grad_slices(desc):
    return P.Slices(desc, list(desc.output_gradient_tensor.sizes)[2:])


def _grad_divisor(desc, s) -> np.ndarray:
    d = s.divisor(desc.include_padding)
    return np.where(d == 0, np.float32(1), d)  # a window made only of padding reaches no element


def grad_reference(desc, x: dict) -> dict:
    dy = x["InputGradientTensor"]
    if P.sliced(desc):
        s = _grad_slices(desc)
        share = (dy / _grad_divisor(desc, s)).astype(dy.dtype)
        y = P.reference_place_sum(s, dy.shape[:2], lambda k: share, dy.dtype)
        return {"OutputGradientTensor": y.reshape(_out_sizes(desc, "OutputGradientTensor"))}
    _, c, inv = _grad_tables(desc)
    share = dy.reshape(dy.shape[0], dy.shape[1], -1) / c
    y = reference_sum(P.reference_windows(share.astype(dy.dtype), inv, 0.0))
    y = np.where(y == 0, np.zeros((), y.dtype), y)  # +0, as a sum from +0 (the sliced path) gives
    return {"OutputGradientTensor": y.reshape(_out_sizes(desc, "OutputGradientTensor"))}


def grad_onnx(desc, g, x: dict) -> dict:
    dy = x["InputGradientTensor"]
    n, ch = list(desc.input_gradient_tensor.sizes)[:2]
    if P.sliced(desc):
        o = P.OnnxSlices(g, _grad_slices(desc))
        dtype = g.dtype(dy)
        share = g.node("Div", [dy, o.divisor(desc.include_padding, dtype, at_least_one=True)])
        spread = o.dilate(share, n, ch, 0)
        y = o.place_sum(lambda k: spread, dtype)
        return {"OutputGradientTensor": g.node("Reshape", [y, g.ints(_out_sizes(desc, "OutputGradientTensor"))])}
    _, c, inv = _grad_tables(desc)
    planes = g.node("Reshape", [dy, g.ints([n, ch, c.size])])
    share = g.node("Div", [planes, g.const(c.astype(g.dtype(dy)))])
    y = onnx_sum(g, P.onnx_windows(g, share, [n, ch, c.size], inv, 0.0), inv.shape[1])
    zero = onnx_const(g, 0, g.dtype(y))
    y = g.node("Where", [g.node("Equal", [y, zero], dtype=np.bool_), zero, y], dtype=g.dtype(y))  # +0 for zeros
    return {"OutputGradientTensor": g.node("Reshape", [y, g.ints(_out_sizes(desc, "OutputGradientTensor"))])}


def grad_torch(desc, torch, x: dict) -> dict:
    dy = x["InputGradientTensor"]
    if P.sliced(desc):
        s = _grad_slices(desc)
        share = dy / torch.as_tensor(_grad_divisor(desc, s), dtype=dy.dtype, device=dy.device)
        y = P.torch_place_sum(torch, s, dy.shape[:2], lambda k: share, dy.dtype, dy.device)
        return {"OutputGradientTensor": y.reshape(_out_sizes(desc, "OutputGradientTensor"))}
    _, c, inv = _grad_tables(desc)
    share = dy.reshape(dy.shape[0], dy.shape[1], -1) / torch.as_tensor(c, dtype=dy.dtype, device=dy.device)
    y = torch_sum(torch, P.torch_windows(torch, share, inv, 0.0))
    y = torch.where(y == 0, torch.zeros((), dtype=y.dtype, device=y.device), y)  # +0 for zeros
    return {"OutputGradientTensor": y.reshape(_out_sizes(desc, "OutputGradientTensor"))}


# ----------------------------------------------------------------------------------------------- samples
def sample_desc(cls, in_sizes, out_sizes, data_type="FLOAT32", *, window, strides=None, start=None, end=None,
                **fields):
    """A pooling descriptor for SAMPLES: Strides 1, no padding unless given; Dilations 1 where the operator has
    them (unless given)."""
    from ..sample import td

    n = len(window)
    names = cls.FIELD_NAMES
    tensors = ({"input_tensor": td(data_type, in_sizes), "output_tensor": td(data_type, out_sizes)}
               if "input_tensor" in names else
               {"input_gradient_tensor": td(data_type, out_sizes), "output_gradient_tensor": td(data_type, in_sizes)})
    if "dilations" in names:
        fields.setdefault("dilations", (1,) * n)
    return cls(**tensors, strides=tuple(strides or (1,) * n), window_size=tuple(window),
               start_padding=tuple(start or (0,) * n), end_padding=tuple(end or (0,) * n), **fields)
