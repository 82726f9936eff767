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

The table has rows x window entries (a window of a whole [2**15, 2**13] plane: 2**28), so ONNX models and torch
lowerings do not carry it: :class:`Windows` keeps one small [output, window] position array per dimension and
each backend builds the table from them at run time (an Add / And / Where broadcast, :meth:`Windows.onnx`,
:meth:`Windows.torch`); the model holds O(sum of output x window per dimension) values. What a gather of every
window element costs at run time (N x C x rows x window elements) is bounded by :func:`budget`, which refuses a
descriptor above ``MAX_ELEMENTS`` before anything is allocated, naming the size.
"""
from __future__ import annotations

import numpy as np

from ..errors import DmlOpsError

# Window elements gathered at run time (BatchCount x ChannelCount x output positions x window elements) above which
# a pooling lowering is refused: a gather of 2**27 FLOAT32 values and its int64 index already take 1.5 GiB.
MAX_ELEMENTS = 1 << 27


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
