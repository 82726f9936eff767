"""Selection shared by ARGMIN / ARGMAX (index of the extreme over several axes) and TOP_K / TOP_K1 (the K best
values and their indices along one axis), in NumPy, ONNX and torch.

Orders, from DirectML's vectors and docs (the op modules cite the cases):

* ARGMIN / ARGMAX: the index counts row-major over the reduced Axes in dimension order (a repeated axis counts
  once); INCREASING keeps the first extreme, DECREASING the last; -0 and +0 are equal; NaN is the extreme (the first
  NaN, or the last with DECREASING), as REDUCE's ARGMAX/ARGMIN and NumPy/torch treat it. The vectors put NaN only at
  index 0, where it wins both ARGMAX and ARGMIN, which a scan that starts from element 0 and never replaces a NaN
  would also give: NaN elsewhere is dmlops's choice (consistent with dmlops.ops.reduce), not a measured answer.
* TOP_K / TOP_K1: sorted best first (largest first, or smallest first for TOP_K1 INCREASING), ties by ascending
  index whatever the direction (docs, and the vectors' rows of four equal values); NaN never beats a number: the
  vectors' rows {NaN, inf, -inf, a, b} with K = 3 leave NaN out in both directions. dmlops sorts NaN after every
  number, infinities included (NaN vs the opposite infinity is not measured), ties among NaNs by index.

ONNX Runtime's CPU kernels disagree on NaN (ArgMax ignores a NaN after the first element, TopK sorts NaN as the
largest) and lack uint16/uint32/uint64 ArgMax/TopK, so the ONNX lowerings take NaN out explicitly and compare
integers in a wider (or, for UINT64, sign-flipped int64) type. torch.sort's NaN placement is not relied on either.
"""
from __future__ import annotations

import numpy as np

from . import _elementwise as ew

SIGN = np.uint64(1 << 63)


def decreasing(desc) -> bool:
    """AxisDirection is DML_AXIS_DIRECTION_DECREASING (REDUCE's ARGMAX/ARGMIN, which has none, is INCREASING)."""
    return int(getattr(desc, "axis_direction", 0)) == 1


def _axes(desc) -> list[int]:
    return sorted(set(desc.axes))


def _flatten(v, axes, sizes, moveaxis, reshape):
    """``v`` with the reduced axes moved last (in dimension order) and flattened into one."""
    rank = len(sizes)
    keep = [d for d in range(rank) if d not in axes]
    v = moveaxis(v, axes, list(range(len(keep), rank)))
    return reshape(v, [sizes[d] for d in keep] + [-1])


# ------------------------------------------------------------------------------------------ ARGMIN / ARGMAX
def arg_reference(desc, x, is_max: bool) -> dict:
    """The flat index of the extreme over Axes (NumPy's argmax/argmin: the first NaN, or the first extreme)."""
    v = x["InputTensor"]
    flat = _flatten(v, _axes(desc), desc.input_tensor.sizes, np.moveaxis, np.reshape)
    pick = np.argmax if is_max else np.argmin
    if decreasing(desc):
        index = flat.shape[-1] - 1 - pick(flat[..., ::-1], axis=-1)
    else:
        index = pick(flat, axis=-1)
    return {"OutputTensor": index.astype(np.int64).reshape(desc.output_tensor.sizes)}


def _onnx_int64_ordered(g, v: str) -> str:
    """An integer value as int64 with the same order (UINT64: the sign bit flipped, then reinterpreted)."""
    if g.dtype(v) == np.uint64:
        v = g.node("BitwiseXor", [v, g.const(SIGN)])
    return g.cast(v, np.int64)


def arg_onnx(desc, g, x, is_max: bool) -> dict:
    """Transpose the Axes last, Reshape them into one, ArgMax/ArgMin (select_last_index for DECREASING), with NaN
    picked first explicitly (ONNX Runtime's CPU ArgMax skips a NaN that is not the first element)."""
    v = x["InputTensor"]
    sizes, axes = list(desc.input_tensor.sizes), _axes(desc)
    rank = len(sizes)
    keep = [d for d in range(rank) if d not in axes]
    if g.dtype(v).kind in "iu":  # ORT's CPU ArgMax/ArgMin lack int16/uint16/uint32/uint64
        v = _onnx_int64_ordered(g, v)
    if axes != list(range(len(keep), rank)):
        v = g.node("Transpose", [v], perm=keep + axes)
    v = g.node("Reshape", [v, g.ints([sizes[d] for d in keep] + [-1])])
    last = int(decreasing(desc))
    index = g.node("ArgMax" if is_max else "ArgMin", [v], dtype=np.int64, axis=-1, keepdims=0,
                   select_last_index=last)
    if g.dtype(v).kind == "f":
        nan = g.cast(g.node("IsNaN", [v], dtype=np.bool_), np.int32)
        nan_index = g.node("ArgMax", [nan], dtype=np.int64, axis=-1, keepdims=0, select_last_index=last)
        some = g.node("ReduceMax", [nan, g.ints([-1])], keepdims=0)
        some = g.node("Greater", [some, g.const(np.asarray(0, np.int32))], dtype=np.bool_)
        index = g.node("Where", [some, nan_index, index], dtype=np.int64)
    return {"OutputTensor": g.node("Reshape", [index, g.ints(desc.output_tensor.sizes)])}


def arg_torch(desc, torch, x, is_max: bool) -> dict:
    """torch.argmax/argmin over the flattened Axes (the first NaN, or the first extreme); DECREASING flips the axis
    and counts back."""
    v, _ = ew.torch_ordered(torch, x["InputTensor"])  # uint16/uint32 widen, uint64 flips its sign bit
    flat = _flatten(v, _axes(desc), desc.input_tensor.sizes, torch.movedim, torch.reshape)
    pick = torch.argmax if is_max else torch.argmin
    if decreasing(desc):
        index = (flat.shape[-1] - 1) - pick(torch.flip(flat, [-1]), dim=-1)
    else:
        index = pick(flat, dim=-1)
    return {"OutputTensor": index.reshape(desc.output_tensor.sizes)}


# ------------------------------------------------------------------------------------------ TOP_K / TOP_K1
def top_k_reference(desc, x, largest: bool) -> dict:
    """A stable sort along Axis by (NaN last, value best first, index), the first K."""
    v = np.moveaxis(x["InputTensor"], desc.axis, -1)
    if v.dtype.kind == "f":
        nan = np.isnan(v)
        filled = np.where(nan, 0, v)
        key = -filled if largest else filled
        order = np.lexsort((key, nan), axis=-1)  # the last key is the primary one; lexsort is stable
    else:
        order = np.argsort(~v if largest else v, axis=-1, kind="stable")  # ~ reverses integer order, no overflow
    index = order[..., : desc.k]
    values = np.take_along_axis(v, index, axis=-1)
    return {"OutputValueTensor": np.moveaxis(values, -1, desc.axis),
            "OutputIndexTensor": np.moveaxis(index.astype(np.int64), -1, desc.axis)}


def _onnx_top_k(g, v: str, k: int, axis: int, largest: bool) -> str:
    """The int64 indices of TopK (the values output is not used: OnnxGraph gives both outputs the one dtype)."""
    _, index = g.node("TopK", [v, g.ints([k])], outputs=2, dtype=np.int64, axis=axis, largest=int(largest), sorted=1)
    return index


def top_k_onnx(desc, g, x, largest: bool) -> dict:
    """ONNX TopK (ties by lower index, as DirectML). Floats: a first TopK of the NaN flags (K = the axis size, a stable
    partition) moves NaN last, NaN then reads as the worst infinity for the second TopK, and the indices map back
    through the partition. Integers: TopK in a type ONNX Runtime's CPU provider sorts (uint16 -> int32, uint32 ->
    int64, uint64 -> sign-flipped int64). Values are gathered from the input by the indices (exact)."""
    v = x["InputTensor"]
    axis, k = desc.axis, desc.k
    n = desc.input_tensor.sizes[axis]
    dtype = g.dtype(v)
    if dtype.kind == "f":
        nan = g.node("IsNaN", [v], dtype=np.bool_)
        perm = _onnx_top_k(g, g.cast(nan, dtype), n, axis, largest=False)
        moved = g.node("GatherElements", [v, perm], axis=axis)
        worst = g.const(np.asarray(-np.inf if largest else np.inf, dtype))
        moved = g.node("Where", [g.node("IsNaN", [moved], dtype=np.bool_), worst, moved], dtype=dtype)
        index = g.node("GatherElements", [perm, _onnx_top_k(g, moved, k, axis, largest)], axis=axis)
    else:
        if dtype in (np.dtype(np.uint16), np.dtype(np.int16)):
            key = g.cast(v, np.int32)
        elif dtype in (np.dtype(np.uint32), np.dtype(np.uint64)):
            key = _onnx_int64_ordered(g, v)
        else:
            key = v
        index = _onnx_top_k(g, key, k, axis, largest)
    values = g.node("GatherElements", [v, index], axis=axis)
    return {"OutputValueTensor": values, "OutputIndexTensor": index}


def top_k_torch(desc, torch, x, largest: bool) -> dict:
    """torch.sort(stable=True) along Axis, the first K (torch.topk leaves the order of ties unspecified). Floats: a
    first stable sort of the NaN flags moves NaN last; NaN then reads as the worst infinity."""
    v = x["InputTensor"]
    axis, k = desc.axis, desc.k
    if v.is_floating_point():
        _, perm = torch.sort(torch.isnan(v).to(v.dtype), dim=axis, stable=True)
        moved = torch.gather(v, axis, perm)
        worst = torch.full_like(moved, -np.inf if largest else np.inf)
        moved = torch.where(torch.isnan(moved), worst, moved)
        _, order = torch.sort(moved, dim=axis, descending=largest, stable=True)
        index = torch.gather(perm, axis, order.narrow(axis, 0, k))
        values = torch.gather(v, axis, index)
    else:
        key, back = ew.torch_ordered(torch, v)
        _, order = torch.sort(key, dim=axis, descending=largest, stable=True)
        index = order.narrow(axis, 0, k)
        values = back(torch.gather(key, axis, index))
    return {"OutputValueTensor": values, "OutputIndexTensor": index}


def top_k_samples(cls, with_direction: bool) -> list:
    """SAMPLES of TOP_K (``with_direction`` False: always the largest) and TOP_K1."""
    from ..sample import Sample, SampleOptions, td

    exact: SampleOptions = dict(atol=0, rtol=0, why="selection is exact")

    def desc(sizes, axis, k, largest=True, data_type="FLOAT32", index_type="UINT32", strides=None):
        out = list(sizes)
        out[axis] = k
        extra = {"axis_direction": "DECREASING" if largest else "INCREASING"} if with_direction else {}
        return cls(input_tensor=td(data_type, sizes, strides), output_value_tensor=td(data_type, out),
                   output_index_tensor=td(index_type, out), axis=axis, k=k, **extra)

    def want(values, index, dtype=np.float32, index_dtype=np.uint32):
        return {"OutputValueTensor": np.array(values, dtype), "OutputIndexTensor": np.array(index, index_dtype)}

    docs = np.array([[[[0, 1, 10, 11], [3, 2, 9, 8], [4, 5, 6, 7]]]], np.float32)
    tied = np.array([[[[1, 2, 2, 3], [3, 4, 5, 5], [6, 6, 6, 6]]]], np.float32)
    special = np.array([[np.nan, np.inf, -np.inf, 1, np.nan], [0.0, -0.0, 2, -0.0, 0.0]], np.float32)
    rng = np.random.default_rng(71)
    out = [
        # The docs' examples 1 to 3 (largest first; ties by ascending index).
        Sample("docs_axis_3", desc([1, 1, 3, 4], 3, 2), {"InputTensor": docs},
               want([[[[11, 10], [9, 8], [7, 6]]]], [[[[3, 2], [2, 3], [3, 2]]]]), **exact),
        Sample("docs_axis_2", desc([1, 1, 3, 4], 2, 2), {"InputTensor": docs},
               want([[[[4, 5, 10, 11], [3, 2, 9, 8]]]], [[[[2, 2, 0, 0], [1, 1, 1, 1]]]]), **exact),
        Sample("docs_ties", desc([1, 1, 3, 4], 3, 3), {"InputTensor": tied},
               want([[[[3, 2, 2], [5, 5, 4], [6, 6, 6]]]], [[[[3, 1, 2], [2, 3, 1], [0, 1, 2]]]]), **exact),
        # NaN after every number, infinities included, NaNs by index; -0 and +0 tie (indices ascending), by hand.
        Sample("nan_inf_zeros_all", desc([2, 5], 1, 5, index_type="UINT64"), {"InputTensor": special},
               want([[np.inf, 1, -np.inf, np.nan, np.nan], [2, 0, 0, 0, 0]], [[1, 3, 2, 0, 4], [2, 0, 1, 3, 4]],
                    index_dtype=np.uint64), **exact),
        # K equal to the axis size on a 1-dimensional tensor (DirectML runs it; see top_k.py).
        Sample("rank_1_k_all", desc([4], 0, 4), {"InputTensor": np.array([-1, 3, -1, 2], np.float32)},
               want([3, 2, -1, -1], [1, 3, 0, 2]), **exact),
        # Zero strides: one column broadcast over 4 columns, so every row is a 4-way tie: indices 0, 1, 2.
        Sample("broadcast_ties", desc([2, 4], 1, 3, strides=[1, 0]), {"InputTensor": np.array([5, -5], np.float32)},
               want([[5, 5, 5], [-5, -5, -5]], [[0, 1, 2], [0, 1, 2]]), **exact),
        Sample("random_axis_1", desc([2, 6, 3, 4], 1, 4, index_type="UINT64"),
               {"InputTensor": rng.standard_normal((2, 6, 3, 4)).astype(np.float32)}, **exact),
    ]
    if with_direction:
        out += [
            # The docs' example 4: the smallest 3, ascending, ties by index.
            Sample("docs_increasing", desc([1, 1, 3, 4], 3, 3, largest=False), {"InputTensor": tied},
                   want([[[[1, 2, 2], [3, 4, 5], [6, 6, 6]]]], [[[[0, 1, 2], [0, 1, 2], [0, 1, 2]]]]), **exact),
            # Smallest first: NaN still last, after +inf; the zeros tie as above.
            Sample("nan_inf_zeros_increasing", desc([2, 5], 1, 5, largest=False), {"InputTensor": special},
                   want([[-np.inf, 1, np.inf, np.nan, np.nan], [0, 0, 0, 0, 2]], [[2, 3, 1, 0, 4], [0, 1, 3, 4, 2]]),
                   **exact),
            Sample("random_axis_2_increasing", desc([3, 4, 7], 2, 3, largest=False),
                   {"InputTensor": rng.standard_normal((3, 4, 7)).astype(np.float32)}, **exact),
        ]
    # Every integer type, by hand: [hi, lo, hi, 1, lo] -> largest 3: hi, hi, 1 at [0, 2, 3]; smallest 3: lo, lo, 1
    # at [1, 4, 3] (the extremes of the type, so a wider or sign-flipped sort key must keep the order).
    for t in ("INT8", "INT16", "INT32", "INT64", "UINT8", "UINT16", "UINT32", "UINT64"):
        dtype = np.dtype(t.lower())
        lo, hi = int(np.iinfo(dtype).min), int(np.iinfo(dtype).max)
        x = np.array([hi, lo, hi, 1, lo], dtype)
        out.append(Sample(f"int_{t.lower()}", desc([5], 0, 3, data_type=t), {"InputTensor": x},
                          want([hi, hi, 1], [0, 2, 3], dtype), **exact))
        if with_direction:
            out.append(Sample(f"int_{t.lower()}_increasing", desc([5], 0, 3, largest=False, data_type=t),
                              {"InputTensor": x}, want([lo, lo, 1], [1, 4, 3], dtype), **exact))
    return out
