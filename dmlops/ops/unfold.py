"""DML_OPERATOR_UNFOLD: the sliding windows of InputTensor as the columns of OutputTensor (im2col).

InputTensor is {BatchCount, ChannelCount, Spatial...}; OutputTensor is {BatchCount, ChannelCount *
prod(WindowSizes), BlockCount}. Row c * prod(WindowSizes) + k holds channel c at window position k (row-major over
WindowSizes); column b is block b (row-major over the blocks per dimension); window position k of block b reads
Spatial[d] = b[d] * Strides[d] + k[d] * Dilations[d] - StartPadding[d], and 0 in the padding. The docs' examples
(1: 5 x 5 with a 3 x 3 window; 2: padding {1, 0}) follow this order, which is torch.nn.functional.unfold's for two
spatial dimensions. Data movement only: exact for every type, NaN and -0.0 included. The lowerings gather through
one host-computed index table (dmlops/ops/_scan.py: window_table), for 1 to 6 spatial dimensions alike.

Feature level 6.4: DirectML's vectors hold no UNFOLD case, so this semantics is verified against the docs'
examples and torch's unfold only, not against DirectML.

Shape rules the descriptor file cannot express: InputTensor has DimensionCount (the length of WindowSizes,
Strides, Dilations, StartPadding and EndPadding, "in the range [1, 6]") spatial dimensions; BlockCount = prod over
d of BlocksPerDimension[d] = (SpatialSize[d] + StartPadding[d] + EndPadding[d] - Dilations[d] * (WindowSizes[d]
- 1) - 1) / Strides[d] + 1; WindowSizes, Strides and Dilations are at least 1. The page's "InputTensor and
OutputTensor must have the same DimensionCount" contradicts its own examples (a {1, 1, 5, 5} input unfolded into a
{1, 9, 9} output); the examples are followed here. Shared rules: dmlops/ops/_windows.py.
"""
from __future__ import annotations

import numpy as np

from ..errors import Problem
from ..sample import Sample, td
from . import _elementwise as ew
from . import _scan
from ._windows import fold_problems


def check(desc, level) -> list[Problem]:
    """DimensionCount, WindowSizes/Strides/Dilations >= 1, the window inside the padded input, OutputTensor sizes."""
    return fold_problems(desc, unfold=True)


def _plan(desc):
    """(N, C, P, gather indices [K * L] into the flat spatial positions, P meaning the zero slot, output Sizes)."""
    sizes = list(desc.input_tensor.sizes)
    n, c, spatial = sizes[0], sizes[1], sizes[2:]
    p = int(np.prod(spatial, dtype=np.int64))
    table = _scan.window_table(spatial, desc)
    index = np.where(table < 0, p, table).reshape(-1)
    return n, c, p, index, list(desc.output_tensor.sizes)


def reference(desc, x):
    """The flattened image with a zero slot appended, indexed by the window table."""
    n, c, p, index, out = _plan(desc)
    v = x["InputTensor"]
    pool = np.concatenate([v.reshape(n, c, p), np.zeros((n, c, 1), v.dtype)], axis=2)
    return {"OutputTensor": pool[:, :, index].reshape(out)}


def to_onnx(desc, g, x):
    """Reshape, Concat of a zero slot, one Gather with the window table, Reshape."""
    n, c, p, index, out = _plan(desc)
    v = x["InputTensor"]
    pool = g.node("Concat", [g.node("Reshape", [v, g.ints([n, c, p])]), g.const(np.zeros((n, c, 1), g.dtype(v)))],
                  axis=2)
    return {"OutputTensor": g.node("Reshape", [g.node("Gather", [pool, g.const(index)], axis=2), g.ints(out)])}


def to_torch(desc, torch, x):
    """reshape, a zero slot by constant padding, index_select with the window table, reshape (uint16/32/64 through
    their int64 bits)."""
    n, c, p, index, out = _plan(desc)
    v, back = ew.torch_bits(torch, x["InputTensor"])
    pool = torch.nn.functional.pad(v.reshape(n, c, p), (0, 1))
    picked = pool.index_select(2, torch.from_numpy(index).to(v.device))
    return {"OutputTensor": back(picked.reshape(out))}


def _desc(data_type, in_sizes, window, strides=None, dilations=None, start=None, end=None):
    from ..descs import Unfold

    dims = len(window)
    strides = strides or [1] * dims
    dilations = dilations or [1] * dims
    start = start or [0] * dims
    end = end or [0] * dims
    blocks = [(s + a + b - d * (k - 1) - 1) // t + 1
              for s, a, b, d, k, t in zip(in_sizes[2:], start, end, dilations, window, strides)]
    out = [in_sizes[0], in_sizes[1] * int(np.prod(window)), int(np.prod(blocks))]
    return Unfold(input_tensor=td(data_type, in_sizes), output_tensor=td(data_type, out), window_sizes=window,
                  strides=strides, dilations=dilations, start_padding=start, end_padding=end)


def _with_specials(v: np.ndarray) -> np.ndarray:
    """``v`` with NaN, -0.0 and -inf in its first elements."""
    flat = v.reshape(-1)
    flat[:3] = [np.nan, -0.0, -np.inf]
    return v


def _samples():
    f32 = np.float32
    exact = dict(atol=0, rtol=0, why="exact: data movement", float16_atol=0, float16_rtol=0)
    image = np.arange(25, dtype=f32).reshape(1, 1, 5, 5)
    # Docs example 1: row k = (i, j) of the 3 x 3 window, column b = (r, s) of the 3 x 3 blocks: image[r + i, s + j].
    example1 = np.array([[image[0, 0, r + i, s + j] for r in range(3) for s in range(3)]
                         for i in range(3) for j in range(3)], f32)[None]
    # Docs example 2 (StartPadding {1, 0}, EndPadding {1, 0}), as printed on the page.
    example2 = np.array([
        [0, 0, 0, 0, 1, 2, 5, 6, 7, 10, 11, 12, 15, 16, 17],
        [0, 0, 0, 1, 2, 3, 6, 7, 8, 11, 12, 13, 16, 17, 18],
        [0, 0, 0, 2, 3, 4, 7, 8, 9, 12, 13, 14, 17, 18, 19],
        [0, 1, 2, 5, 6, 7, 10, 11, 12, 15, 16, 17, 20, 21, 22],
        [1, 2, 3, 6, 7, 8, 11, 12, 13, 16, 17, 18, 21, 22, 23],
        [2, 3, 4, 7, 8, 9, 12, 13, 14, 17, 18, 19, 22, 23, 24],
        [5, 6, 7, 10, 11, 12, 15, 16, 17, 20, 21, 22, 0, 0, 0],
        [6, 7, 8, 11, 12, 13, 16, 17, 18, 21, 22, 23, 0, 0, 0],
        [7, 8, 9, 12, 13, 14, 17, 18, 19, 22, 23, 24, 0, 0, 0]], f32)[None]
    rng = np.random.default_rng(11)
    out = [
        Sample("docs_example_1", _desc("FLOAT32", [1, 1, 5, 5], [3, 3]), {"InputTensor": image},
               {"OutputTensor": example1}, **exact),
        Sample("docs_example_2_padded", _desc("FLOAT32", [1, 1, 5, 5], [3, 3], start=[1, 0], end=[1, 0]),
               {"InputTensor": image}, {"OutputTensor": example2}, **exact),
        # One spatial dimension, stride 2, dilation 2, padding 1 / 2: x = [1..6] with index s = 2 b + 2 k - 1:
        # blocks b = 0..3 (padded 9, dilated window 3), k = 0, 1 -> rows [x[-1], x[1], x[3], x[5]] and [x[1] ...].
        Sample("one_dimension_stride_dilation", _desc("FLOAT32", [1, 2, 6], [2], [2], [2], [1], [2]),
               {"InputTensor": np.arange(1, 13, dtype=f32).reshape(1, 2, 6)},
               {"OutputTensor": np.array([[[0, 2, 4, 6], [2, 4, 6, 0], [0, 8, 10, 12], [8, 10, 12, 0]]], f32)},
               **exact),
        # Three spatial dimensions, two batches, NaN and -0.0 carried unchanged.
        Sample("three_dimensions", _desc("FLOAT32", [2, 2, 3, 2, 3], [2, 1, 2], [1, 1, 2], [1, 1, 1], [0, 1, 0],
                                         [1, 0, 1]),
               {"InputTensor": _with_specials(rng.standard_normal((2, 2, 3, 2, 3)).astype(f32))},
               **exact),
    ]
    for t in ("INT8", "UINT8", "INT16", "UINT16", "INT32", "UINT32", "INT64", "UINT64", "FLOAT64"):
        dtype = np.dtype(t.lower())
        lo, hi = (np.iinfo(dtype).min, np.iinfo(dtype).max) if dtype.kind in "iu" else (-1e300, 1e300)
        x = np.array([lo, hi, 1, 2, 3, 4], dtype=dtype).reshape(1, 1, 2, 3)
        # 2 x 2 windows, stride 1, EndPadding {0, 1}: 1 x 3 blocks; block b reads columns b, b + 1 of both rows.
        want = np.array([[x[0, 0, 0, 0], x[0, 0, 0, 1], x[0, 0, 0, 2]], [x[0, 0, 0, 1], x[0, 0, 0, 2], 0],
                         [x[0, 0, 1, 0], x[0, 0, 1, 1], x[0, 0, 1, 2]], [x[0, 0, 1, 1], x[0, 0, 1, 2], 0]],
                        dtype=dtype)[None]
        out.append(Sample(f"{t.lower()}_extremes", _desc(t, [1, 1, 2, 3], [2, 2], end=[0, 1]), {"InputTensor": x},
                          {"OutputTensor": want}, **exact))
    return out


SAMPLES = _samples()
