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
"""
from __future__ import annotations

import numpy as np


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
