"""DML_OPERATOR_FOLD: the columns of InputTensor summed back into an image (col2im), the inverse layout of UNFOLD.

InputTensor is {BatchCount, ChannelCount * prod(WindowSizes), BlockCount}, laid out as UNFOLD writes it (row c *
prod(WindowSizes) + k: channel c, window position k row-major; column b: block b row-major); OutputTensor is the
image {BatchCount, ChannelCount, OutputSize...}. Window position k of block b lands on OutputSize[d] = b[d] *
Strides[d] + k[d] * Dilations[d] - StartPadding[d]; values landing in the padding are dropped, and overlapping
values are summed. The docs' three examples (3 x 3 windows over 4 x 4, with and without padding {1, 0}, one and two
channels) follow this, as torch.nn.functional.fold does.

The sum at each output position runs in window-position order starting from +0.0, one add at a time in the value
type (float32 for FLOAT16, stored toward zero by dmlops.lower; integers wrap): torch's col2im order, so
torch.nn.functional.fold on the CPU gives the same bits. Feature level 6.4: DirectML's vectors hold no FOLD case,
so neither this order (which decides the last bits of float sums with overlaps) nor +0.0 for an output covered
only by -0.0 is verified against DirectML; the semantics is checked against the docs' examples and torch's fold.
Every lowering gathers the contributions of one window position at a time through a host-computed table
(dmlops/ops/_scan.py: fold_table) and adds them in order, for 1 to 6 spatial dimensions and every data type.

Shape rules the descriptor file cannot express: OutputTensor has DimensionCount (the length of WindowSizes,
Strides, Dilations, StartPadding and EndPadding, "must be <= 6") spatial dimensions; BlockCount = prod over d of
BlocksPerDimension[d] = (OutputSize[d] + StartPadding[d] + EndPadding[d] - Dilations[d] * (WindowSizes[d] - 1)
- 1) / Strides[d] + 1; WindowSizes, Strides and Dilations are at least 1. The page's "InputTensor and OutputTensor
must have the same DimensionCount" contradicts its own examples (a {1, 9, 4} input folded into a {1, 1, 4, 4}
output) and onnxruntime's DirectML EP (Col2Im passes a 3-D input and an N-D output); the examples are followed
here. Shared rules: dmlops/ops/_windows.py.
"""
from __future__ import annotations

import numpy as np

from ..errors import Problem
from ..sample import Sample, td
from . import _elementwise as ew
from . import _scan
from ._windows import fold_problems


def check(desc, level) -> list[Problem]:
    """DimensionCount, WindowSizes/Strides/Dilations >= 1, the window inside the padded output, InputTensor sizes."""
    return fold_problems(desc, unfold=False)


def _plan(desc):
    """(N, C, K, L, gather tables: for each window position that reaches the image, indices [P] into the flattened
    {K * L + 1} columns of one channel, K * L being a zero slot; output Sizes)."""
    out = list(desc.output_tensor.sizes)
    n, c, spatial = out[0], out[1], out[2:]
    inverse = _scan.fold_table(spatial, desc)
    k_count = inverse.shape[0]
    blocks = int(desc.input_tensor.sizes[2])
    tables = [np.where(inverse[k] == blocks, k_count * blocks, k * blocks + inverse[k])
              for k in range(k_count) if (inverse[k] < blocks).any()]
    return n, c, k_count, blocks, tables, out


def reference(desc, x):
    """A zero image; for each window position in order, the landing columns added (np.add per position: within one
    window position no two blocks land on the same output element)."""
    n, c, k_count, blocks, tables, out = _plan(desc)
    v = x["InputTensor"]
    dtype = _scan.compute_dtype(v.dtype)
    pool = np.concatenate([v.astype(dtype).reshape(n, c, k_count * blocks), np.zeros((n, c, 1), dtype)], axis=2)
    acc = np.zeros((n, c, int(np.prod(out[2:], dtype=np.int64))), dtype)
    with np.errstate(all="ignore"):  # inf - inf and integer wrap-around, as DirectML computes them
        for index in tables:
            acc = acc + pool[:, :, index]
    return {"OutputTensor": acc.reshape(out)}


def to_onnx(desc, g, x):
    """Reshape, Concat of a zero slot, then one Gather and one Add per window position (integers in int64, wrapped
    back; the first term's -0.0 becomes +0.0 by a select, as 0 + -0.0 does)."""
    n, c, k_count, blocks, tables, out = _plan(desc)
    v = x["InputTensor"]
    dtype = g.dtype(v)
    wide = np.dtype(np.int64) if dtype.kind in "iu" else dtype
    w = g.cast(v, wide)  # uint64 to int64 keeps the bits
    pool = g.node("Concat", [g.node("Reshape", [w, g.ints([n, c, k_count * blocks])]),
                             g.const(np.zeros((n, c, 1), wide))], axis=2)
    p = int(np.prod(out[2:], dtype=np.int64))
    if not tables:
        acc = g.const(np.zeros((n, c, p), wide))
    else:
        acc = None
        for index in tables:
            term = g.node("Gather", [pool, g.const(index.astype(np.int64))], axis=2)
            acc = term if acc is None else g.node("Add", [acc, term])
            if acc is term and wide.kind == "f":
                zero = ew.onnx_const(g, 0.0, wide)
                acc = g.node("Where", [g.node("Equal", [term, zero], dtype=np.bool_), zero, term])
    r = g.node("Reshape", [acc, g.ints(out)])
    if dtype.kind in "iu":
        r = g.cast(r, dtype) if dtype.itemsize == 8 else ew.onnx_wrap(g, r, dtype)
    return {"OutputTensor": r}


def to_torch(desc, torch, x):
    """reshape, a zero slot by constant padding, then index_select and add per window position (uint16/32/64
    through their int64 bits)."""
    n, c, k_count, blocks, tables, out = _plan(desc)
    v, back = ew.torch_bits(torch, x["InputTensor"])
    pool = torch.nn.functional.pad(v.reshape(n, c, k_count * blocks), (0, 1))
    p = int(np.prod(out[2:], dtype=np.int64))
    acc = pool[:, :, -1:].expand(n, c, p) + 0 if not tables else None  # no window reaches the image: the zero slot
    for index in tables:
        term = pool.index_select(2, torch.from_numpy(index.astype(np.int64)).to(v.device))
        acc = term + 0 if acc is None else acc + term  # 0 + -0.0 = +0.0, as a zero image plus the first term
    return {"OutputTensor": back(acc.reshape(out))}


def _desc(data_type, out_sizes, window, strides=None, dilations=None, start=None, end=None):
    from ..descs import Fold

    dims = len(window)
    strides = strides or [1] * dims
    dilations = dilations or [1] * dims
    start = start or [0] * dims
    end = end or [0] * dims
    blocks = [(s + a + b - d * (k - 1) - 1) // t + 1
              for s, a, b, d, k, t in zip(out_sizes[2:], start, end, dilations, window, strides)]
    in_sizes = [out_sizes[0], out_sizes[1] * int(np.prod(window)), int(np.prod(blocks))]
    return Fold(input_tensor=td(data_type, in_sizes), output_tensor=td(data_type, out_sizes), window_sizes=window,
                strides=strides, dilations=dilations, start_padding=start, end_padding=end)


def _samples():
    f32 = np.float32
    exact = dict(atol=0, rtol=0, why="exact: sums of small integers")
    out = [
        # The docs' three examples, outputs as printed on the page (e.g. example 1, [0, 0]: only block 0's window
        # position 0 lands there: 0; [0, 1]: block 0 position 1 (row 1, column 0 = 4) + block 1 position 0 (1) = 5).
        Sample("docs_example_1", _desc("FLOAT32", [1, 1, 4, 4], [3, 3]),
               {"InputTensor": np.arange(36, dtype=f32).reshape(1, 9, 4)},
               {"OutputTensor": np.array([[[[0, 5, 13, 9], [14, 38, 54, 32], [38, 86, 102, 56],
                                            [26, 57, 65, 35]]]], f32)}, **exact),
        Sample("docs_example_2_padded", _desc("FLOAT32", [1, 1, 4, 4], [3, 3], start=[1, 0], end=[1, 0]),
               {"InputTensor": np.arange(72, dtype=f32).reshape(1, 9, 8)},
               {"OutputTensor": np.array([[[[26, 70, 102, 60], [78, 183, 231, 129], [84, 195, 243, 135],
                                            [82, 182, 214, 116]]]], f32)}, **exact),
        Sample("docs_example_3_two_channels", _desc("FLOAT32", [1, 2, 4, 4], [3, 3], start=[1, 0], end=[1, 0]),
               {"InputTensor": np.arange(144, dtype=f32).reshape(1, 18, 8)},
               {"OutputTensor": np.array([[[[26, 70, 102, 60], [78, 183, 231, 129], [84, 195, 243, 135],
                                            [82, 182, 214, 116]],
                                           [[170, 358, 390, 204], [294, 615, 663, 345], [300, 627, 675, 351],
                                            [226, 470, 502, 260]]]], f32)}, **exact),
        # One spatial dimension, window 2, stride 1 over 3: blocks 0, 1; output [b0k0, b0k1 + b1k0, b1k1]. In
        # window-position order from +0: 0 + 1e8 (k0 of block 1) = 1e8, then + 1 (k1 of block 0) = 1e8 + 1 rounds
        # to 1e8 (float32 step 8); -0.0 alone gives +0.0; NaN and inf pass through.
        Sample("one_dimension_order_and_signs", _desc("FLOAT32", [2, 1, 3], [2]),
               {"InputTensor": np.array([[[-0.0, 1e8], [1, -0.0]], [[np.inf, 2], [np.nan, -np.inf]]], f32)},
               {"OutputTensor": np.array([[[0.0, 1e8, 0.0]], [[np.inf, np.nan, -np.inf]]], f32)},
               atol=0, rtol=0, why="exact: the summation order is the lowering's", float16=False),
        # Stride and dilation leave gaps (never written: 0) and skip into the padding.
        Sample("gaps_and_padding", _desc("FLOAT32", [1, 1, 7], [2], [3], [2], [1], [2]),
               {"InputTensor": np.arange(1, 7, dtype=f32).reshape(1, 2, 3)},
               # blocks 0..2 at 3b - 1: position k lands on 3b + 2k - 1; k0: -1 (dropped), 2, 5; k1: 1, 4, 7
               # (dropped: the output has 7 elements, 0..6).
               {"OutputTensor": np.array([[[0, 4, 2, 0, 5, 3, 0]]], f32)}, **exact),
        # Every window reads only padding (block 0 at -1, stride 2 leaves no second block): the image stays 0.
        Sample("windows_only_in_padding", _desc("FLOAT32", [1, 1, 1], [1], [2], [1], [1], [0]),
               {"InputTensor": np.array([[[np.nan]]], f32)}, {"OutputTensor": np.zeros((1, 1, 1), f32)}, **exact),
        Sample("three_dimensions", _desc("FLOAT32", [2, 2, 3, 2, 4], [2, 1, 2], [1, 1, 2], [1, 1, 1], [0, 1, 1],
                                         [1, 0, 1]),
               {"InputTensor": np.random.default_rng(12).standard_normal((2, 8, 27)).astype(f32)},
               atol=0, rtol=0, why="exact: every backend adds in the same order", float16_atol=0, float16_rtol=0),
    ]
    # No FLOAT64 sample: ONNX Runtime's DirectML provider registers no double Add (nor Equal), so a FLOAT64 FOLD
    # is refused at compile time there (the CPU provider, the reference and torch run it).
    for t in ("INT8", "UINT8", "INT16", "UINT16", "INT32", "UINT32", "INT64", "UINT64"):
        dtype = np.dtype(t.lower())
        hi = int(np.iinfo(dtype).max)
        # Window 2 over 3, stride 1: the middle element is block 0's k1 plus block 1's k0: hi + 2 wraps.
        x = np.array([[[3, hi], [2, 5]]], dtype=dtype)
        mid = (np.array([hi], dtype) + np.array([2], dtype))[0]
        out.append(Sample(f"{t.lower()}_overlap_wraps", _desc(t, [1, 1, 3], [2]), {"InputTensor": x},
                          {"OutputTensor": np.array([[[3, mid, 5]]], dtype)},
                          atol=0, rtol=0, why="exact: integer sums wrap"))
    return out


SAMPLES = _samples()
