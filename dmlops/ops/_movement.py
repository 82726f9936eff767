"""Shared pieces of the data-movement lowerings of batch B06: PADDING / PADDING1, DEPTH_TO_SPACE(1),
SPACE_TO_DEPTH(1).

Everything here moves elements and computes nothing, so every backend is bit exact for every DataType (NaN
payloads, -0.0 and 64-bit integers included): indices are computed at compile time from the descriptor, never
from data.

* Padding (the PADDING page and its examples 1 to 4; DirectML's vectors float32_edge, float32_reflection,
  float32_symmetric): for an output coordinate ``o`` of a dimension of size ``n`` with ``StartPadding = s``, the
  element read is ``j = o - s`` folded back into ``[0, n)``:
  EDGE clamps ``j``; REFLECTION folds at the edges without repeating them, periodically (period ``2 (n - 1)``:
  the docs' example 3 pads 4 columns by 4 on a size of 4); SYMMETRIC folds repeating the edges (period ``2 n``,
  example 4); WRAP (DML_FEATURE_LEVEL_6_4) reads ``j mod n``. A REFLECTION of a dimension of size 1 reads its
  one element (no vector covers it). CONSTANT writes PaddingValue.
* ONNX (opset 18): CONSTANT and EDGE are Pad; REFLECTION is Pad(mode=reflect) when every padding of the tensor
  is below the dimension's size (ONNX Pad rejects more); SYMMETRIC, WRAP (Pad's wrap arrives in opset 19) and
  the periodic REFLECTION are one Gather per padded dimension with the compile-time indices above. ONNX
  Runtime's CPU Pad has no int16/uint16 kernel: those go through int32 (exact). torch: CONSTANT is
  constant_pad_nd (torch.nn.functional.pad's kernel, called directly: F.pad's float value would round int64
  values beyond 2**53), the other modes index_select per padded dimension (F.pad's reflect/replicate modes take
  floats of 2 to 5 dimensions only, and reflect rejects pads >= size).
* Depth/space (the DEPTH_TO_SPACE1 / SPACE_TO_DEPTH1 pages, DML_DEPTH_SPACE_ORDER; DirectML's vectors):
  DEPTH_COLUMN_ROW numbers an input channel ``(bh * b + bw) * C' + c`` (ONNX DepthToSpace mode DCR);
  COLUMN_ROW_DEPTH numbers it ``(c * b + bh) * b + bw`` (mode CRD, torch.nn.functional.pixel_shuffle). Each is
  one reshape to 5 dimensions, one transpose and one reshape (torch-directml has no pixel_shuffle and aborts on
  tensors of more than 5 dimensions; ONNX Runtime's CPU DepthToSpace takes float/double/uint8 only).
"""
from __future__ import annotations

import numpy as np

from ..enums import DepthSpaceOrder, PaddingMode
from ..sample import Sample, SampleOptions, td
from . import _elementwise as ew

_SAME_WIDTH_SIGNED = {"uint16": "int16", "uint32": "int32", "uint64": "int64"}


# ----------------------------------------------------------------------------------------------- padding
def pad_indices(mode: PaddingMode, n: int, start: int, end: int) -> np.ndarray:
    """The input index each output position of a dimension of size ``n`` reads (index modes only)."""
    j = np.arange(-start, n + end, dtype=np.int64)
    if mode == PaddingMode.EDGE:
        return np.clip(j, 0, n - 1)
    if mode == PaddingMode.REFLECTION:
        if n == 1:
            return np.zeros_like(j)
        period = 2 * (n - 1)
        m = np.mod(j, period)
        return np.where(m < n, m, period - m)
    if mode == PaddingMode.SYMMETRIC:
        period = 2 * n
        m = np.mod(j, period)
        return np.where(m < n, m, period - 1 - m)
    if mode == PaddingMode.WRAP:
        return np.mod(j, n)
    raise ValueError(f"no index rule for {mode!r}")


def _padded_axes(starts, ends) -> list[int]:
    return [a for a, (s, e) in enumerate(zip(starts, ends)) if s or e]


def pad_reference(x: np.ndarray, mode: PaddingMode, value, starts, ends) -> np.ndarray:
    """``x`` padded as DirectML pads it; ``value`` (CONSTANT) is a 0-d array of ``x``'s dtype."""
    if mode == PaddingMode.CONSTANT:
        out = np.full([n + s + e for n, s, e in zip(x.shape, starts, ends)], value, dtype=x.dtype)
        out[tuple(slice(s, s + n) for s, n in zip(starts, x.shape))] = x
        return out
    out = x
    for axis in _padded_axes(starts, ends):
        out = np.take(out, pad_indices(mode, x.shape[axis], starts[axis], ends[axis]), axis=axis)
    return np.array(out, copy=True)


def pad_onnx(g, x: str, sizes, mode: PaddingMode, value, starts, ends) -> str:
    """ONNX Pad, or one Gather per padded dimension where Pad cannot say it (see the module docstring)."""
    from . import _elementwise as ew

    axes = _padded_axes(starts, ends)
    if not axes:
        return g.node("Identity", [x])
    reflect_fits = all(s < n and e < n for n, s, e in zip(sizes, starts, ends))
    onnx_mode = {PaddingMode.CONSTANT: "constant", PaddingMode.EDGE: "edge"}.get(mode)
    if mode == PaddingMode.REFLECTION and reflect_fits:
        onnx_mode = "reflect"
    if onnx_mode is not None:
        v, back = ew.onnx_ordered(g, x)  # ORT's CPU Pad has no int16/uint16 kernel: int32 holds them exactly
        inputs = [v, g.ints(list(starts) + list(ends))]
        if mode == PaddingMode.CONSTANT:
            inputs.append(g.const(np.asarray(value).astype(g.dtype(v))))
        return back(g.node("Pad", inputs, mode=onnx_mode))
    out = x
    for axis in axes:
        out = g.node("Gather", [out, g.ints(pad_indices(mode, sizes[axis], starts[axis], ends[axis]))], axis=axis)
    return out


def torch_movable(torch, v):
    """``(value, back)``: uint16/32/64 ``v`` viewed as the signed type of its width (same bits; torch's CPU has few
    kernels for them), and the inverse view; other dtypes unchanged."""
    signed = _SAME_WIDTH_SIGNED.get(str(v.dtype).removeprefix("torch."))
    if signed is None:
        return v, lambda r: r
    dtype = v.dtype
    return v.view(getattr(torch, signed)), lambda r: r.view(dtype)


def torch_index(torch, values, like):
    """A compile-time int64 index array as a tensor on ``like``'s device."""
    return torch.from_numpy(np.ascontiguousarray(values, dtype=np.int64)).to(like.device)


def pad_torch(torch, x, mode: PaddingMode, value, starts, ends):
    """constant_pad_nd (CONSTANT) or index_select per padded dimension (the index modes); a new tensor."""
    v, back = torch_movable(torch, x)
    axes = _padded_axes(starts, ends)
    if mode == PaddingMode.CONSTANT:
        if not axes:
            return back(v.clone())
        scalar = np.asarray(value)
        if v.dtype != x.dtype:  # the signed view: the same bits as a signed value
            scalar = scalar.view(np.dtype(str(v.dtype).removeprefix("torch.")))
        pad = []
        for s, e in zip(reversed(starts), reversed(ends)):  # torch lists (start, end) pairs from the last dimension
            pad += [int(s), int(e)]
        # constant_pad_nd itself: F.pad's value is a float, which rounds int64 values beyond 2**53.
        return back(torch.constant_pad_nd(v, pad, scalar.item()))
    out = v
    for axis in axes:
        index = torch_index(torch, pad_indices(mode, x.shape[axis], starts[axis], ends[axis]), v)
        out = torch.index_select(out, axis, index)
    return back(out if axes else v.clone())


def padding_value(value, data_type, compute_dtype) -> np.ndarray:
    """PaddingValue as a 0-d array: held in the output's DataType (PADDING1's typed union; FLOAT16 rounded to
    nearest), then in the dtype the lowering computes in (float32 for FLOAT16)."""
    return np.asarray(np.asarray(value, dtype=data_type.numpy_dtype), dtype=compute_dtype)


# ----------------------------------------------------------------------------------------------- depth/space
def block_plan(sizes, block: int, depth_to_space: bool, order: DepthSpaceOrder):
    """(5-D shape to read the input as, permutation, output Sizes) for a depth/space rearrangement."""
    n, c, h, w = sizes
    b = block
    dcr = order == DepthSpaceOrder.DEPTH_COLUMN_ROW
    if depth_to_space:
        c_out = c // (b * b)
        out = [n, c_out, h * b, w * b]
        # DCR: [n, bh, bw, (c, h), w] -> [n, (c, h), bh, w, bw]; CRD: [(n, c), bh, bw, h, w] -> [(n, c), h, bh, w, bw]
        shape = [n, b, b, c_out * h, w] if dcr else [n * c_out, b, b, h, w]
        return shape, (0, 3, 1, 4, 2), out
    hb, wb = h // b, w // b
    out = [n, c * b * b, hb, wb]
    # DCR: [n, (c, h), bh, w, bw] -> [n, bh, bw, (c, h), w]; CRD: [(n, c), h, bh, w, bw] -> [(n, c), bh, bw, h, w]
    shape = [n, c * hb, b, wb, b] if dcr else [n * c, hb, b, wb, b]
    return shape, (0, 2, 4, 1, 3), out


def _order(desc) -> DepthSpaceOrder:
    return getattr(desc, "order", DepthSpaceOrder.DEPTH_COLUMN_ROW)  # the v0 operators are DCR (their pages)


def block_reference(desc, x: np.ndarray, depth_to_space: bool) -> np.ndarray:
    shape, perm, out = block_plan(desc.input_tensor.sizes, desc.block_size, depth_to_space, _order(desc))
    return np.ascontiguousarray(x.reshape(shape).transpose(perm)).reshape(out)


def block_onnx(g, desc, x: str, depth_to_space: bool) -> str:
    shape, perm, out = block_plan(desc.input_tensor.sizes, desc.block_size, depth_to_space, _order(desc))
    t = g.node("Transpose", [g.node("Reshape", [x, g.ints(shape)])], perm=list(perm))
    return g.node("Reshape", [t, g.ints(out)])


def block_torch(torch, desc, x, depth_to_space: bool):
    shape, perm, out = block_plan(desc.input_tensor.sizes, desc.block_size, depth_to_space, _order(desc))
    v, back = torch_movable(torch, x)
    moved = v.reshape(shape).permute(perm).clone(memory_format=torch.contiguous_format)  # a copy, never a view
    return back(moved.reshape(out))


# ----------------------------------------------------------------------------------------------- block samples
# Shared by the SAMPLES of DEPTH_TO_SPACE(1) and SPACE_TO_DEPTH(1).
EXACT: SampleOptions = dict(atol=0, rtol=0, float16_atol=0, float16_rtol=0, why="a rearrangement of input elements: exact")
# The docs' examples (DEPTH_TO_SPACE1 and SPACE_TO_DEPTH1 pages, copied; the v0 pages show the DCR pair): a
# {1, 8, 2, 3} depth tensor whose channel k holds 9k + 0 .. 9k + 5, and its {1, 2, 4, 6} space forms, BlockSize 2.
DOCS_DEPTH = (9 * np.arange(8).reshape(8, 1) + np.arange(6)).astype(np.float32).reshape(1, 8, 2, 3)
# DEPTH_COLUMN_ROW: output (c, h * 2 + bh, w * 2 + bw) reads channel (bh * 2 + bw) * 2 + c at (h, w).
DOCS_SPACE_DCR = np.array([[[[0, 18, 1, 19, 2, 20], [36, 54, 37, 55, 38, 56], [3, 21, 4, 22, 5, 23],
                             [39, 57, 40, 58, 41, 59]],
                            [[9, 27, 10, 28, 11, 29], [45, 63, 46, 64, 47, 65], [12, 30, 13, 31, 14, 32],
                             [48, 66, 49, 67, 50, 68]]]], np.float32)
# COLUMN_ROW_DEPTH: channel c * 4 + bh * 2 + bw.
DOCS_SPACE_CRD = np.array([[[[0, 9, 1, 10, 2, 11], [18, 27, 19, 28, 20, 29], [3, 12, 4, 13, 5, 14],
                             [21, 30, 22, 31, 23, 32]],
                            [[36, 45, 37, 46, 38, 47], [54, 63, 55, 64, 56, 65], [39, 48, 40, 49, 41, 50],
                             [57, 66, 58, 67, 59, 68]]]], np.float32)


def block_desc(cls, data_type, in_sizes, block, depth_to_space, in_strides=None, **order):
    n, c, h, w = in_sizes
    b = block
    out = [n, c // (b * b), h * b, w * b] if depth_to_space else [n, c * b * b, h // b, w // b]
    return cls(input_tensor=td(data_type, in_sizes, in_strides), output_tensor=td(data_type, out), block_size=block,
               **order)


def integer_samples(cls, depth_to_space, types, **order) -> list[Sample]:
    """Every integer DataType in ``types`` with its extremes, BlockSize 2 on one pixel of 4 channels (DCR and CRD
    agree there: channel bh * 2 + bw goes to (bh, bw))."""
    out = []
    for t in types:
        lo, hi = ew.int_range(np.dtype(t.lower()))
        depth = ew.int_array([lo, hi, 0, lo + 1], t).reshape(1, 4, 1, 1)
        space = depth.reshape(1, 1, 2, 2)
        x, y = (depth, space) if depth_to_space else (space, depth)
        desc = block_desc(cls, t, list(x.shape), 2, depth_to_space, **order)
        out.append(Sample(f"int_{t.lower()}_extremes", desc, {"InputTensor": x}, {"OutputTensor": y},
                          **(EXACT | {"why": "integers are copied bit for bit"})))
    return out
