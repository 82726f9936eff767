"""The sliding-window table shared by the pooling operators, their gradients and quantized average pooling.

One host-side table, computed from the descriptor alone: for every output position (row) and every element of
its window (column), the flat index of the input element the window reads, counted over the spatial dimensions of
one (batch, channel) plane in row-major order, or ``-1`` where that window element lies in the padding. The
geometry is DirectML's (dmlops/ops/_windows.py explains it): per spatial dimension, position
``o * Stride - StartPadding + k * Dilation`` for output ``o`` and window element ``k``; the output extent is
``(InputSize + StartPadding + EndPadding - DilatedWindow) / Stride + 1`` (floor), asymmetric padding and windows
made only of padding included.

Every backend reads the input through the same table (a Gather over the flattened plane, the padding read from
one extra element holding ``fill``), so asymmetric padding, dilations and IncludePadding need no per-framework
pooling op whose padding rules differ from DirectML's.

Output extents one element longer than the formula (what ONNX's ceil_mode asks for: onnxruntime's DirectML provider
computes 1 + (PaddedSize - DilatedWindow) / Stride + (ceil_mode and a remainder), then hands DirectML the same
padding) are refused by dmlops's validator, although DirectML accepted 40 such pooling descriptors (issue 20: AVERAGE,
LP and MAX pooling, their gradients, QUANTIZED_LINEAR_AVERAGE_POOLING). What DirectML writes to the extra elements is
not recorded anywhere (no vector has such a descriptor, the pages give only the floor formula): a window running past
EndPadding could read that part as padding (ONNX's ceil_mode), or count it in an IncludePadding divisor, or read
memory. Refusing what DirectML accepts is the lesser evil than computing values it may not compute; the same result
is reachable without it, where it is well defined: add the missing (Stride - remainder) elements to EndPadding, which
MAX pooling and IncludePadding FALSE average pooling read as padding (tests/test_rules_pooling_resample.py).

Two ways to read the windows, chosen by the window's element count alone (:func:`sliced`):

* Windows of at most ``SLICE_MAX`` elements (every pooling layer of an ordinary network: 3 x 3, 7 x 7, 2 x 2 x 2)
  are read one window position at a time (:class:`Slices`): the input padded once with ``fill``, then for window
  element k (row-major window order) one strided slice ``padded[k * Dilation :: Stride]`` of output extent, which
  holds element k of every window. An operator folds the K slices into its result elementwise, in window order
  (sum, running maximum), so it holds O(input + output) values whatever K, and its order is the window order the
  gather table gives. The gradients run the same positions backwards: the contribution of window element k is
  added into the strided slice of a zero accumulator of padded-input size (:func:`reference_place_sum`), k from
  last to first, which gives each input element its windows in ascending output position (for a fixed element,
  output position and window element determine each other, and a later window element means an earlier output
  position in every dimension). The ONNX model holds a few small constants per window element (O(K) nodes).
* Larger windows (global pooling, a window of a whole plane) go through the gather table below. It has rows x
  window entries (a window of a whole [2**15, 2**13] plane: 2**28), so ONNX models and torch lowerings do not carry
  it: :class:`Windows` keeps one small [output, window] position array per dimension and each backend builds the
  table from them at run time (an Add / And / Where broadcast, :meth:`Windows.onnx`, :meth:`Windows.torch`); the
  model holds O(sum of output x window per dimension) values. What a gather of every window element costs at run
  time (N x C x rows x window elements) is bounded by :func:`budget`, which refuses a descriptor above
  ``MAX_ELEMENTS`` before anything is allocated, naming the size. Slicing would need K steps there (2**28 for that
  plane), which is why the table stays.
"""
from __future__ import annotations

import itertools
from typing import Callable

import numpy as np

from ..errors import DmlOpsError

# Window elements gathered at run time (BatchCount x ChannelCount x output positions x window elements) above which
# a pooling lowering is refused: a gather of 2**27 FLOAT32 values and its int64 index already take 1.5 GiB.
MAX_ELEMENTS = 1 << 27
# Window element count up to which the windows are read one strided slice per element (Slices) rather than through
# the gather table: at most about ten ONNX nodes per element (MAX_POOLING_GRAD: 16 x 16 windows make a 170 kB model of
# 2600 nodes, compiled in about a second), and K elementwise steps over the output cost no more than a gather of
# K x the output. Larger windows are mostly global pooling, whose few outputs the table serves well.
SLICE_MAX = 256


def sliced(desc, window: str = "window_size") -> bool:
    """Whether ``desc``'s windows are read one window element at a time (:class:`Slices`): at most SLICE_MAX
    elements each. Decided by the window alone, so every backend takes the same path for a descriptor."""
    return int(np.prod([int(k) for k in getattr(desc, window)], dtype=object)) <= SLICE_MAX


def budget(desc, shape, window: str = "window_size") -> None:
    """Refuse (DmlOpsError) a descriptor whose windows would gather more than MAX_ELEMENTS elements over ``shape``
    [N, C, *spatial]; computed from the sizes alone, before any table is built."""
    g = geometry(desc, list(shape[2:]), window)
    rows = int(np.prod(g["output"], dtype=object))
    k = int(np.prod(g["window"], dtype=object))
    n, c = int(shape[0]), int(shape[1])
    total = n * c * rows * k
    if total > MAX_ELEMENTS:
        field = "".join(w.capitalize() for w in window.split("_"))
        raise DmlOpsError(
            f"{desc.OPERATOR_TYPE}.{field}: {braces_of(g['window'])} over {n} x {c} planes of {rows} output "
            f"position(s) reads {n} x {c} x {rows} x {k} = {total} elements, which every backend gathers at once "
            f"(about {total * 12 / 2**30:.1f} GiB with its index); dmlops allows {MAX_ELEMENTS} (2**27). Split the "
            f"batch or the channels, or pool in stages with smaller windows.")


def braces_of(values) -> str:
    return "{" + ", ".join(str(int(v)) for v in values) + "}"


def geometry(desc, spatial_sizes, window: str = "window_size") -> dict:
    """Per-dimension Strides, window, StartPadding, EndPadding, Dilations (1 where the desc has none) and the
    output extents, for input spatial sizes ``spatial_sizes``."""
    n = len(spatial_sizes)
    g = {"strides": list(desc.strides), "window": list(getattr(desc, window)),
         "start": list(desc.start_padding), "end": list(desc.end_padding),
         "dilations": list(getattr(desc, "dilations", None) or [1] * n)}
    g["output"] = [(s + a + b - (1 + (k - 1) * d)) // t + 1 for s, a, b, k, d, t in
                   zip(spatial_sizes, g["start"], g["end"], g["window"], g["dilations"], g["strides"])]
    return g


def table(desc, spatial_sizes, window: str = "window_size") -> np.ndarray:
    """int64 [prod(output extents), prod(window)]: the flat input index each window element reads, -1 in padding."""
    g = geometry(desc, spatial_sizes, window)
    n = len(spatial_sizes)
    flat = np.zeros([1] * (2 * n), np.int64)
    valid = np.ones([1] * (2 * n), bool)
    for i, size in enumerate(spatial_sizes):
        o = np.arange(g["output"][i]).reshape([-1 if j == i else 1 for j in range(2 * n)])
        k = np.arange(g["window"][i]).reshape([-1 if j == n + i else 1 for j in range(2 * n)])
        p = o * g["strides"][i] - g["start"][i] + k * g["dilations"][i]
        valid = valid & (p >= 0) & (p < size)
        flat = flat * size + p
    shape = g["output"] + g["window"]
    flat, valid = np.broadcast_to(flat, shape), np.broadcast_to(valid, shape)
    rows = int(np.prod(g["output"], dtype=np.int64))
    return np.where(valid, flat, -1).reshape(rows, -1)


def reference_windows(x: np.ndarray, idx: np.ndarray, fill) -> np.ndarray:
    """[N, C, rows, window] values of ``x`` [N, C, *spatial] through ``idx`` (``fill`` where idx is -1)."""
    planes = x.reshape(x.shape[0], x.shape[1], -1)
    padded = np.concatenate([planes, np.full(planes.shape[:2] + (1,), fill, x.dtype)], axis=2)
    return padded[:, :, np.where(idx < 0, planes.shape[2], idx)]


def onnx_windows(g, x: str, shape, idx: np.ndarray, fill) -> str:
    """The ONNX value [N, C, rows, window] of ``x`` (logical ``shape``) through ``idx``, as reference_windows."""
    from ._elementwise import onnx_const

    dtype = g.dtype(x)
    n, c, plane = shape[0], shape[1], int(np.prod(shape[2:], dtype=np.int64))
    planes = g.node("Reshape", [x, g.const(np.array([n, c, plane], np.int64))])
    pad = g.node("Expand", [onnx_const(g, fill, dtype), g.const(np.array([n, c, 1], np.int64))])
    padded = g.node("Concat", [planes, pad], axis=2)
    return g.node("Gather", [padded, g.const(np.where(idx < 0, plane, idx).astype(np.int64))], axis=2)


def torch_windows(torch, x, idx: np.ndarray, fill):
    """The torch tensor [N, C, rows, window] of ``x`` through ``idx``, as reference_windows."""
    planes = x.reshape(x.shape[0], x.shape[1], -1)
    pad = torch.full((x.shape[0], x.shape[1], 1), fill, dtype=x.dtype, device=x.device)
    padded = torch.cat([planes, pad], dim=2)
    flat = torch.as_tensor(np.where(idx < 0, planes.shape[2], idx).reshape(-1), device=x.device)
    return padded.index_select(2, flat).reshape(x.shape[0], x.shape[1], *idx.shape)


class Windows:
    """:func:`table` described per dimension: for dimension i, the positions ``o * Stride - StartPadding + k *
    Dilation`` [output_i, window_i] and whether they lie inside; the backends combine them into the padded index
    (the plane size where the table has -1) and the valid mask, both [rows, window], at run time."""

    def __init__(self, desc, spatial_sizes, window: str = "window_size"):
        g = geometry(desc, list(spatial_sizes), window)
        n = len(spatial_sizes)
        self.output, self.window = g["output"], g["window"]
        self.rows = int(np.prod(self.output, dtype=np.int64))
        self.k = int(np.prod(self.window, dtype=np.int64))
        self.plane = int(np.prod(spatial_sizes, dtype=np.int64))
        self.offsets: list[np.ndarray] = []  # int64, broadcastable to output + window: position * row stride
        self.inside: list[np.ndarray] = []
        step = self.plane
        for i, size in enumerate(spatial_sizes):
            step //= int(size)
            o = np.arange(self.output[i], dtype=np.int64).reshape([-1 if j == i else 1 for j in range(2 * n)])
            k = np.arange(self.window[i], dtype=np.int64).reshape([-1 if j == n + i else 1 for j in range(2 * n)])
            pos = o * g["strides"][i] - g["start"][i] + k * g["dilations"][i]
            self.offsets.append(pos * step)
            self.inside.append((pos >= 0) & (pos < size))

    def counts(self) -> np.ndarray:
        """float32 [rows]: the non-padding elements of each window (an outer product of the per-dimension counts)."""
        total = np.ones([1] * len(self.output), np.float32)
        for i, inside in enumerate(self.inside):
            total = total * inside.sum(axis=len(self.output) + i, keepdims=True).reshape(
                [-1 if j == i else 1 for j in range(len(self.output))]).astype(np.float32)
        return np.broadcast_to(total, self.output).reshape(-1).copy()

    def onnx(self, g):
        """(padded index int64 [rows, window], valid bool [rows, window]) as ONNX nodes."""
        flat, valid = g.const(self.offsets[0]), g.const(self.inside[0])
        for off, inside in zip(self.offsets[1:], self.inside[1:]):
            flat = g.node("Add", [flat, g.const(off)])
            valid = g.node("And", [valid, g.const(inside)], dtype=np.bool_)
        full = g.ints(list(self.output) + list(self.window))
        valid = g.node("Expand", [valid, full], dtype=np.bool_)
        index = g.node("Where", [valid, flat, g.const(np.array(self.plane, np.int64))], dtype=np.int64)
        shape = g.ints([self.rows, self.k])
        return g.node("Reshape", [index, shape]), g.node("Reshape", [valid, shape], dtype=np.bool_)

    def torch(self, torch, device):
        """(padded index int64 [rows, window], valid bool [rows, window]) as torch tensors on ``device``."""
        flat = torch.as_tensor(self.offsets[0], device=device)
        valid = torch.as_tensor(self.inside[0], device=device)
        for off, inside in zip(self.offsets[1:], self.inside[1:]):
            flat = flat + torch.as_tensor(off, device=device)
            valid = valid & torch.as_tensor(inside, device=device)
        full = list(self.output) + list(self.window)
        valid = valid.expand(full)
        index = torch.where(valid, flat.expand(full), torch.full((), self.plane, dtype=torch.int64, device=device))
        return index.reshape(self.rows, self.k), valid.reshape(self.rows, self.k)


def onnx_gather_windows(g, x: str, shape, index: str, fill) -> str:
    """:func:`onnx_windows` through a padded index built in the graph (:meth:`Windows.onnx`)."""
    from ._elementwise import onnx_const

    dtype = g.dtype(x)
    n, c, plane = shape[0], shape[1], int(np.prod(shape[2:], dtype=np.int64))
    planes = g.node("Reshape", [x, g.const(np.array([n, c, plane], np.int64))])
    pad = g.node("Expand", [onnx_const(g, fill, dtype), g.const(np.array([n, c, 1], np.int64))])
    return g.node("Gather", [g.node("Concat", [planes, pad], axis=2), index], axis=2)


def torch_gather_windows(torch, x, index, fill):
    """:func:`torch_windows` through a padded index tensor (:meth:`Windows.torch`)."""
    planes = x.reshape(x.shape[0], x.shape[1], -1)
    pad = torch.full((x.shape[0], x.shape[1], 1), fill, dtype=x.dtype, device=x.device)
    padded = torch.cat([planes, pad], dim=2)
    return padded.index_select(2, index.reshape(-1)).reshape(x.shape[0], x.shape[1], *index.shape)


# ----------------------------------------------------------------------------------------------- one window element
# at a time
class Slices:
    """The windows of ``desc`` over ``spatial_sizes`` read one window element at a time (module docstring): the
    padded extent per dimension, and for window element ``ks`` (per-dimension offsets) the strided span of the padded
    input that holds element ``ks`` of every window, [N, C, *output]."""

    def __init__(self, desc, spatial_sizes, window: str = "window_size"):
        sizes = [int(s) for s in spatial_sizes]
        g = geometry(desc, sizes, window)
        self.sizes = sizes
        self.output = [int(o) for o in g["output"]]
        self.window = [int(k) for k in g["window"]]
        self.strides = [int(t) for t in g["strides"]]
        self.dilations = [int(d) for d in g["dilations"]]
        self.start = [int(a) for a in g["start"]]
        self.end = [int(b) for b in g["end"]]
        self.padded = [s + a + b for s, a, b in zip(sizes, self.start, self.end)]
        self.dims = len(sizes)
        self.k = int(np.prod(self.window, dtype=np.int64))
        self.rows = int(np.prod(self.output, dtype=np.int64))
        self.plane = int(np.prod(sizes, dtype=np.int64))

    def positions(self) -> list[tuple[int, ...]]:
        """Every window element as per-dimension offsets, in row-major window order (list index = flat k)."""
        return list(itertools.product(*(range(k) for k in self.window)))

    def padding(self) -> bool:
        return any(self.start) or any(self.end)

    def begins(self, ks) -> list[int]:
        return [k * d for k, d in zip(ks, self.dilations)]

    def ends(self, ks) -> list[int]:
        return [b + (o - 1) * t + 1 if o > 0 else b for b, o, t in zip(self.begins(ks), self.output, self.strides)]

    def spans(self, ks) -> tuple:
        """The index (N, C, spatial...) of what window element ``ks`` reads in the padded input: [N, C, *output]."""
        return (slice(None), slice(None)) + tuple(
            slice(b, e, t) for b, e, t in zip(self.begins(ks), self.ends(ks), self.strides))

    def crop(self) -> tuple:
        """The index (N, C, spatial...) of the input inside the padded extent."""
        return (slice(None), slice(None)) + tuple(slice(a, a + s) for a, s in zip(self.start, self.sizes))

    def dilated(self) -> list[int]:
        """Per dimension, the extent of an output placed Stride apart: (O - 1) * Stride + 1."""
        return [max(0, (o - 1) * t + 1) for o, t in zip(self.output, self.strides)]

    def axis(self, values: np.ndarray, i: int) -> np.ndarray:
        """``values`` [O_i] shaped to broadcast along output dimension i of [*output]."""
        return np.asarray(values).reshape([-1 if j == i else 1 for j in range(self.dims)])

    def _positions(self, i: int) -> np.ndarray:
        """int64 [O_i, K_i]: the input position of window element k of output o along dimension i."""
        o = np.arange(self.output[i], dtype=np.int64)[:, None]
        k = np.arange(self.window[i], dtype=np.int64)[None, :]
        return o * self.strides[i] - self.start[i] + k * self.dilations[i]

    def inside(self, ks) -> list[np.ndarray]:
        """bool masks, each shaped by :meth:`axis`, whose product says where window element ``ks`` lies in the input
        (only the dimensions where some window reads padding there; empty: everywhere)."""
        out = []
        for i, k in enumerate(ks):
            pos = self._positions(i)[:, k]
            m = (pos >= 0) & (pos < self.sizes[i])
            if not m.all():
                out.append(self.axis(m, i))
        return out

    def counts(self) -> list[np.ndarray]:
        """float32 per dimension (shaped by :meth:`axis`): the window elements inside the input along it."""
        out = []
        for i in range(self.dims):
            pos = self._positions(i)
            out.append(self.axis(((pos >= 0) & (pos < self.sizes[i])).sum(axis=1).astype(np.float32), i))
        return out

    def divisor(self, include_padding: bool) -> np.ndarray:
        """float32 [*output] (or 0-d): each window's element count (IncludePadding) or its non-padding elements (an
        outer product of :meth:`counts`, as :meth:`Windows.counts`)."""
        if include_padding:
            return np.array(self.k, np.float32)
        total = np.ones([1] * self.dims, np.float32)
        for c in self.counts():
            total = total * c
        return np.broadcast_to(total, self.output).copy()

    def _steps(self, padded: bool) -> list[int]:
        sizes = self.padded if padded else self.sizes
        return [int(np.prod(sizes[i + 1:], dtype=np.int64)) for i in range(self.dims)]

    def offsets(self, padded: bool = False) -> np.ndarray:
        """int64 [K + 1]: window element k's flat offset in a plane (the padded one if ``padded``) from its window's
        element 0; entry K (no winner) is 0."""
        steps = self._steps(padded)
        out = np.zeros(self.k + 1, np.int64)
        for j, ks in enumerate(self.positions()):
            out[j] = sum(k * d * t for k, d, t in zip(ks, self.dilations, steps))
        return out

    def origins(self, padded: bool = False) -> list[np.ndarray]:
        """int64 per dimension (shaped by :meth:`axis`), summing to the flat index in a plane (the padded one if
        ``padded``) of each window's element 0 (outside the plane where it lies in the padding)."""
        steps = self._steps(padded)
        out = []
        for i in range(self.dims):
            pos = np.arange(self.output[i], dtype=np.int64) * self.strides[i] - (0 if padded else self.start[i])
            out.append(self.axis(pos * steps[i], i))
        return out


def _sum_of(parts: list[np.ndarray], shape) -> np.ndarray:
    total = np.zeros([1] * len(shape), parts[0].dtype if parts else np.int64)
    for p in parts:
        total = total + p
    return np.broadcast_to(total, shape)


# NumPy ------------------------------------------------------------------------------------------------------------
def reference_padded(x: np.ndarray, s: Slices, fill) -> np.ndarray:
    """``x`` [N, C, *spatial] with StartPadding / EndPadding of ``fill`` (``x`` itself without padding)."""
    if not s.padding():
        return x
    out = np.full(tuple(x.shape[:2]) + tuple(s.padded), fill, x.dtype)
    out[s.crop()] = x
    return out


def reference_slice_sum(x: np.ndarray, s: Slices, fill=0) -> np.ndarray:
    """[N, C, *output]: each window's sum, one element after the other in window order from its first element
    (padding read as ``fill``), in ``x``'s dtype."""
    padded = reference_padded(x, s, fill)
    first, *rest = s.positions()
    acc = padded[s.spans(first)].copy()
    for ks in rest:
        acc = acc + padded[s.spans(ks)]
    return acc


def reference_place_sum(s: Slices, planes, part: Callable[[int], np.ndarray], dtype) -> np.ndarray:
    """[*planes, *spatial]: a +0 accumulator of padded-input size to which ``part(k)`` ([*planes, *output]) is added
    at window element k's positions, k from last to first (each element gets its windows in ascending output
    position), then cropped to the input."""
    acc = np.zeros(tuple(planes) + tuple(s.padded), dtype)
    positions = s.positions()
    for k in range(len(positions) - 1, -1, -1):
        view = acc[s.spans(positions[k])]
        view += part(k)  # in place: acc's elements, one addition each
    return np.ascontiguousarray(acc[s.crop()])


# ONNX -------------------------------------------------------------------------------------------------------------
class Ahead:
    """``make(i)`` for i = 0, 1, ..., each emitted into the graph one step before it is used: :meth:`get` (i) makes
    item i + 1 first.

    Why: the K slices of a window depend only on the padded input, so an ONNX Runtime execution order may compute
    them all before the first step that uses them, holding K outputs at once. Its default order is a depth-first
    walk back from the outputs that enters a node's inputs highest index (emission order) first; its priority
    order runs ready nodes lowest index first. With item k + 1 emitted before the nodes of step k, both reach the
    running state (the higher index) before item k + 1 and compute items one step ahead, so about three are alive
    at once (tests/test_pooling_slices.py reads ONNX Runtime's own memory peak in both orders). Steps that keep
    two running values (the maximum and its window element) emit the second one a step late for the same walk."""

    def __init__(self, make: Callable[[int], str], n: int):
        self.make, self.n = make, n
        self.items: list[str] = []

    def get(self, i: int) -> str:
        while len(self.items) <= min(i + 1, self.n - 1):
            self.items.append(self.make(len(self.items)))
        return self.items[i]


class OnnxSlices:
    """ONNX pieces over one :class:`Slices` in one graph, the small constants made once."""

    def __init__(self, g, s: Slices):
        self.g, self.s = g, s
        self._ints: dict[tuple, str] = {}
        self._consts: dict[tuple, str] = {}
        self.axes = self.ints(range(2, 2 + s.dims))

    def ints(self, values) -> str:
        key = tuple(int(v) for v in values)
        if key not in self._ints:
            self._ints[key] = self.g.ints(key)
        return self._ints[key]

    def const(self, key, array) -> str:
        if key not in self._consts:
            self._consts[key] = self.g.const(array)
        return self._consts[key]

    def scalar(self, value, dtype) -> str:
        return self.const(("scalar", np.dtype(dtype).str, repr(value)), np.asarray(value, dtype))

    def padded(self, x: str, fill) -> str:
        """``x`` with StartPadding / EndPadding of ``fill``."""
        s = self.s
        if not s.padding():
            return x
        return self.g.node("Pad", [x, self.ints([0, 0] + s.start + [0, 0] + s.end), self.scalar(fill, self.g.dtype(x))],
                           mode="constant")

    def take(self, padded: str, ks) -> str:
        """Window element ``ks`` of every window: [N, C, *output]."""
        s = self.s
        return self.g.node("Slice", [padded, self.ints(s.begins(ks)), self.ints(s.ends(ks)), self.axes,
                                     self.ints(s.strides)])

    def inside(self, ks) -> str | None:
        """bool, broadcastable to [*output]: where window element ``ks`` lies in the input; None: everywhere."""
        mask = None
        for m in self.s.inside(ks):
            c = self.const(("inside", m.shape, m.tobytes()), m)
            mask = c if mask is None else self.g.node("And", [mask, c], dtype=np.bool_)
        return mask

    def slice_sum(self, x: str, fill=0) -> str:
        """reference_slice_sum in ONNX: Pad, then Slice and Add per window element, in window order."""
        padded = self.padded(x, fill)
        positions = self.s.positions()
        cands = Ahead(lambda k: self.take(padded, positions[k]), len(positions))
        acc = cands.get(0)
        for k in range(1, len(positions)):
            acc = self.g.node("Add", [acc, cands.get(k)])
        return acc

    def divisor(self, include_padding: bool, dtype=np.float32, at_least_one: bool = False) -> str:
        """Slices.divisor as a product of the per-dimension counts in the graph (the model holds O(sum of output
        extents)); ``at_least_one``: empty windows divide by 1."""
        g, s = self.g, self.s
        if include_padding:
            return self.scalar(s.k, dtype)
        first, *rest = s.counts()
        d = g.const(first.astype(dtype))
        for c in rest:
            d = g.node("Mul", [d, g.const(c.astype(dtype))])
        if at_least_one:
            d = g.node("Max", [d, self.scalar(1, dtype)])
        return d

    def sum_of(self, parts: list[np.ndarray]) -> str:
        """The int64 sum of per-dimension constants (shaped by Slices.axis), broadcast in the graph."""
        first, *rest = parts
        out = self.g.const(first.astype(np.int64))
        for p in rest:
            out = self.g.node("Add", [out, self.g.const(p.astype(np.int64))])
        return out

    def plane_bases(self, n: int, c: int, plane: int) -> str:
        """int64 [N, C, 1, ...]: the flat index of each (batch, channel) plane's first element (a Range)."""
        g = self.g
        r = g.node("Range", [self.scalar(0, np.int64), self.scalar(n * c * plane, np.int64),
                             self.scalar(plane, np.int64)])
        return g.node("Reshape", [r, self.ints([n, c] + [1] * self.s.dims)])

    def dilate(self, v: str, n: int, c: int, fill) -> str:
        """[N, C, *output] -> [N, C, *Slices.dilated()]: the elements Stride apart, ``fill`` between."""
        g, s = self.g, self.s
        if all(t == 1 for t in s.strides):
            return v
        inter, pads = [n, c], [0, 0]
        for o, t in zip(s.output, s.strides):
            inter += [o, 1] if t > 1 else [o]
            pads += [0, t - 1] if t > 1 else [0]
        spread = g.node("Pad", [g.node("Reshape", [v, self.ints(inter)]), self.ints([0] * len(inter) + pads),
                                self.scalar(fill, g.dtype(v))], mode="constant")
        merged = g.node("Reshape", [spread, self.ints([n, c] + [o * t for o, t in zip(s.output, s.strides)])])
        return g.node("Slice", [merged, self.ints([0] * s.dims), self.ints(s.dilated()), self.axes])

    def place_sum(self, part: Callable[[int], str], dtype) -> str:
        """reference_place_sum in ONNX: ``part(k)`` ([N, C, *Slices.dilated()], see :meth:`dilate`) padded to its
        place in the padded input, added k from last to first, cropped; every zero +0 (as a sum from +0 gives: the
        first term starts the sum here)."""
        g, s = self.g, self.s
        positions = s.positions()
        zero = self.scalar(0, dtype)

        def framed(i: int) -> str:
            k = len(positions) - 1 - i  # last window element first
            begin = s.begins(positions[k])
            after = [p - b - d for p, b, d in zip(s.padded, begin, s.dilated())]
            v = part(k)
            if any(begin) or any(after):
                v = g.node("Pad", [v, self.ints([0, 0] + begin + [0, 0] + after), zero], mode="constant")
            return v

        frames = Ahead(framed, len(positions))
        acc = frames.get(0)
        for i in range(1, len(positions)):
            acc = g.node("Add", [acc, frames.get(i)])
        if s.padding():
            acc = g.node("Slice", [acc, self.ints(s.start), self.ints([a + n for a, n in zip(s.start, s.sizes)]),
                                   self.axes])
        # Where with the constant in X and the sum in Y: ONNX Runtime's CPU Where keeps Y's bits.
        return g.node("Where", [g.node("Equal", [acc, zero], dtype=np.bool_), zero, acc], dtype=dtype)


# torch ------------------------------------------------------------------------------------------------------------
def torch_padded(torch, x, s: Slices, fill):
    """reference_padded in torch (a full of ``fill`` with ``x`` copied into its middle)."""
    if not s.padding():
        return x
    out = torch.full(tuple(x.shape[:2]) + tuple(s.padded), fill, dtype=x.dtype, device=x.device)
    out[s.crop()] = x
    return out


def torch_slice_sum(torch, x, s: Slices, fill=0):
    """reference_slice_sum in torch."""
    padded = torch_padded(torch, x, s, fill)
    acc = None
    for ks in s.positions():
        w = padded[s.spans(ks)]
        acc = w if acc is None else acc + w
    return acc


def torch_place_sum(torch, s: Slices, planes, part, dtype, device):
    """reference_place_sum in torch: in-place adds into strided views of one +0 accumulator."""
    acc = torch.zeros(tuple(planes) + tuple(s.padded), dtype=dtype, device=device)
    positions = s.positions()
    for k in range(len(positions) - 1, -1, -1):
        acc[s.spans(positions[k])].add_(part(k))
    return acc[s.crop()]


def torch_sum_of(torch, parts: list[np.ndarray], shape, device):
    """The int64 tensor [*shape] of a sum of per-dimension arrays (Slices.origins)."""
    return torch.as_tensor(np.array(_sum_of(parts, shape)), device=device)  # a writable copy
