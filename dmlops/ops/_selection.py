"""Selection shared by ARGMIN / ARGMAX / REDUCE's ARGMIN and ARGMAX / ACTIVATION_HARDMAX(1) (the index of the
extreme over several axes) and TOP_K / TOP_K1 (the K best values and their indices along one axis), in NumPy, ONNX
and torch.

DirectML's rules, from its vectors (the op modules cite the cases); the docs say nothing about NaN:

* The extreme (ARGMAX, ARGMIN, HARDMAX): a scan of the reduced elements (row-major over the reduced axes in
  dimension order, a repeated axis counted once) that starts from element 0 and replaces its pick by a later element
  that is strictly better (INCREASING: the first extreme wins ties) or at least as good (DECREASING: the last one
  wins). A comparison with NaN is false, so a NaN at element 0 is never replaced (the rows {NaN, inf, -inf, a, b}
  give 0 for ARGMAX and ARGMIN) and a NaN anywhere else is never picked ([5, NaN, 7, NaN] gives 2 in both
  directions; [1, NaN, 3, 2] gives ARGMAX 2 and ARGMIN 0; HARDMAX [0, NaN, 5] puts its 1 on the 5). In closed form:
  element 0 when it is NaN, else the first (last) best of the non-NaN elements. -0 and +0 are equal.
* TOP_K / TOP_K1: K rounds of a scan over the elements not yet taken (in index order) that replaces its pick by an
  element x when !(x <= pick) (largest first; !(x >= pick) for smallest first): a strictly better element, or any
  element when the pick or x is NaN. DirectML's answers for [NaN, inf, -inf, 1, NaN] with K = 5 are indices
  [4, 1, 3, 2, 0] (largest first) and [4, 2, 3, 1, 0] (smallest first), and for {NaN, inf, -inf, a, b} with K = 3
  the three best numbers. In closed form: the NaNs cut the sequence into runs; the order is the last run sorted
  (best first, ties by index), the NaN before it, the run before that sorted, its NaN, ..., the first run sorted.
  That is a stable sort by (the count of NaNs up to and including the element, descending; numbers before the NaN
  of their run; value, best first; index). Without NaN: best first, ties by ascending index, -0 and +0 tie.

ONNX Runtime's CPU kernels disagree on NaN (ArgMax skips a later NaN, TopK sorts NaN as the largest) and lack
uint16/uint32/uint64 ArgMax/TopK, so the ONNX lowerings never hand them a NaN and compare integers in a wider (or,
for UINT64, sign-flipped int64) type. torch.sort's and torch.argmax's NaN placement is not relied on either.
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


# ------------------------------------------------------------------------------------------ the extreme
def extreme_index(flat: np.ndarray, is_max: bool, last: bool) -> np.ndarray:
    """DirectML's index of the extreme along the last axis (module docstring): element 0 if it is NaN, else the
    first (``last``: the last) best non-NaN element."""
    pick = np.argmax if is_max else np.argmin
    n = flat.shape[-1]
    if flat.dtype.kind == "f":
        nan = np.isnan(flat)
        filled = np.where(nan, -np.inf if is_max else np.inf, flat)
        best = (np.max if is_max else np.min)(filled, axis=-1, keepdims=True)
        hit = (flat == best).astype(np.int8)  # NaN is never a hit
        index = n - 1 - np.argmax(hit[..., ::-1], axis=-1) if last else np.argmax(hit, axis=-1)
        return np.where(nan[..., 0], 0, index)
    if last:
        return n - 1 - pick(flat[..., ::-1], axis=-1)
    return pick(flat, axis=-1)


def onnx_extreme_index(g, flat: str, is_max: bool, last: bool) -> str:
    """:func:`extreme_index` of a rank-2 or higher ONNX value along its last axis, as int64 (keepdims=0). Floats:
    the best of the non-NaN elements (ReduceMax/Min with NaN as the worst infinity), the first (last) element equal
    to it (an ArgMax of the hits), element 0 where that is NaN; integers: ArgMax/ArgMin in int64."""
    dtype = g.dtype(flat)
    if dtype.kind != "f":
        if dtype == np.uint64:
            flat = g.node("BitwiseXor", [flat, g.const(SIGN)])
        flat = g.cast(flat, np.int64)  # ORT's CPU ArgMax/ArgMin lack int16/uint16/uint32/uint64
        return g.node("ArgMax" if is_max else "ArgMin", [flat], dtype=np.int64, axis=-1, keepdims=0,
                      select_last_index=int(last))
    flat = g.cast(flat, np.float32)  # float16 is exact in float32; ORT's CPU reductions all take float32
    nan = g.node("IsNaN", [flat], dtype=np.bool_)
    worst = ew.onnx_const(g, -np.inf if is_max else np.inf, np.float32)
    filled = g.node("Where", [nan, worst, flat], dtype=np.float32)
    best = g.node("ReduceMax" if is_max else "ReduceMin", [filled, g.ints([-1])], keepdims=1)
    hit = g.cast(g.node("Equal", [flat, best], dtype=np.bool_), np.int32)
    index = g.node("ArgMax", [hit], dtype=np.int64, axis=-1, keepdims=0, select_last_index=int(last))
    first = g.node("Gather", [nan, g.const(np.asarray(0, np.int64))], dtype=np.bool_, axis=-1)
    return g.node("Where", [first, g.const(np.asarray(0, np.int64)), index], dtype=np.int64)


def torch_extreme_index(torch, flat, is_max: bool, last: bool):
    """:func:`extreme_index` in torch (an int64 tensor without the last axis)."""
    n = flat.shape[-1]
    if flat.is_floating_point():
        nan = torch.isnan(flat)
        filled = torch.where(nan, torch.full_like(flat, -np.inf if is_max else np.inf), flat)
        # torch-directml has amax but no amin: the minimum is -amax(-x) (exact)
        best = torch.amax(filled, dim=-1, keepdim=True) if is_max else -torch.amax(-filled, dim=-1, keepdim=True)
        hit = (flat == best).to(flat.dtype)  # 0/1; argmax of a float tensor returns the first maximum
        index = (n - 1) - torch.argmax(torch.flip(hit, [-1]), dim=-1) if last else torch.argmax(hit, dim=-1)
        return torch.where(nan[..., 0], torch.zeros_like(index), index)
    v, _ = ew.torch_ordered(torch, flat)  # uint16/uint32 widen, uint64 flips its sign bit
    pick = torch.argmax if is_max else torch.argmin
    if last:
        return (n - 1) - pick(torch.flip(v, [-1]), dim=-1)
    return pick(v, dim=-1)


# ------------------------------------------------------------------------------------------ ARGMIN / ARGMAX
def arg_reference(desc, x, is_max: bool) -> dict:
    """:func:`extreme_index` over the flattened Axes."""
    v = x["InputTensor"]
    flat = _flatten(v, _axes(desc), desc.input_tensor.sizes, np.moveaxis, np.reshape)
    index = extreme_index(flat, is_max, decreasing(desc))
    return {"OutputTensor": index.astype(np.int64).reshape(desc.output_tensor.sizes)}


def arg_onnx(desc, g, x, is_max: bool) -> dict:
    """Transpose the Axes last, Reshape them into one, then :func:`onnx_extreme_index`."""
    v = x["InputTensor"]
    sizes, axes = list(desc.input_tensor.sizes), _axes(desc)
    rank = len(sizes)
    keep = [d for d in range(rank) if d not in axes]
    if axes != list(range(len(keep), rank)):
        v = g.node("Transpose", [v], perm=keep + axes)
    v = g.node("Reshape", [v, g.ints([sizes[d] for d in keep] + [-1])])
    index = onnx_extreme_index(g, v, is_max, decreasing(desc))
    return {"OutputTensor": g.node("Reshape", [index, g.ints(desc.output_tensor.sizes)])}


def arg_torch(desc, torch, x, is_max: bool) -> dict:
    """movedim + reshape the Axes into one, then :func:`torch_extreme_index`."""
    flat = _flatten(x["InputTensor"], _axes(desc), desc.input_tensor.sizes, torch.movedim, torch.reshape)
    index = torch_extreme_index(torch, flat, is_max, decreasing(desc))
    return {"OutputTensor": index.reshape(desc.output_tensor.sizes)}


# ------------------------------------------------------------------------------------------ TOP_K / TOP_K1
def top_k_reference(desc, x, largest: bool) -> dict:
    """A stable sort along Axis by (NaNs so far descending, NaN after its run's numbers, value best first, index),
    the first K (module docstring)."""
    v = np.moveaxis(x["InputTensor"], desc.axis, -1)
    if v.dtype.kind == "f":
        nan = np.isnan(v)
        run = np.cumsum(nan, axis=-1)
        filled = np.where(nan, 0, v)
        key = -filled if largest else filled
        order = np.lexsort((key, nan, -run), axis=-1)  # the last key is the primary one; lexsort is stable
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
    """ONNX TopK (ties by lower index, as DirectML). Floats, two passes (a radix sort on two keys): a first TopK of
    the values (NaN read as 0, K = the axis size) orders every run best first, then a second TopK, smallest first, of
    the run key NaN - 2 * CumSum(NaN) read through that order puts the runs last to first, each NaN after its run;
    the indices map back through the first order. Integers: TopK in a type ONNX Runtime's CPU provider sorts
    (uint16 -> int32, uint32 -> int64, uint64 -> sign-flipped int64). Values are gathered from the input by the
    indices (exact)."""
    v = x["InputTensor"]
    axis, k = desc.axis, desc.k
    n = desc.input_tensor.sizes[axis]
    dtype = g.dtype(v)
    if dtype.kind == "f":
        nan = g.node("IsNaN", [v], dtype=np.bool_)
        filled = g.node("Where", [nan, ew.onnx_const(g, 0, dtype), v], dtype=dtype)
        perm = _onnx_top_k(g, filled, n, axis, largest)
        flags = g.cast(nan, np.int64)
        runs = g.node("CumSum", [flags, g.const(np.asarray(axis, np.int64))])
        key = g.node("Sub", [flags, g.node("Add", [runs, runs])])
        moved = g.node("GatherElements", [key, perm], axis=axis)
        index = g.node("GatherElements", [perm, _onnx_top_k(g, moved, k, axis, largest=False)], axis=axis)
    else:
        if dtype in (np.dtype(np.uint16), np.dtype(np.int16)):
            key = g.cast(v, np.int32)
        elif dtype in (np.dtype(np.uint32), np.dtype(np.uint64)):
            key = v
            if dtype == np.uint64:
                key = g.node("BitwiseXor", [key, g.const(SIGN)])
            key = g.cast(key, np.int64)
        else:
            key = v
        index = _onnx_top_k(g, key, k, axis, largest)
    values = g.node("GatherElements", [v, index], axis=axis)
    return {"OutputValueTensor": values, "OutputIndexTensor": index}


def top_k_torch(desc, torch, x, largest: bool) -> dict:
    """torch.sort(stable=True) along Axis, the first K (torch.topk leaves the order of ties unspecified). Floats: the
    two stable sorts of :func:`top_k_onnx` (values with NaN read as 0, then the run key)."""
    v = x["InputTensor"]
    axis, k = desc.axis, desc.k
    if v.is_floating_point():
        nan = torch.isnan(v)
        _, perm = torch.sort(torch.where(nan, torch.zeros_like(v), v), dim=axis, descending=largest, stable=True)
        flags = nan.to(torch.int64)
        key = flags - 2 * torch.cumsum(flags, dim=axis)
        _, order = torch.sort(torch.gather(key, axis, perm), dim=axis, stable=True)
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
        # DirectML's order (sample_nan_inf_zeros_all; module docstring): the run after the last NaN (empty), that
        # NaN (4), the run before it sorted (inf, 1, -inf), its NaN (0); -0 and +0 tie (indices ascending).
        Sample("nan_inf_zeros_all", desc([2, 5], 1, 5, index_type="UINT64"), {"InputTensor": special},
               want([[np.nan, np.inf, 1, -np.inf, np.nan], [2, 0, -0.0, -0.0, 0]], [[4, 1, 3, 2, 0], [2, 0, 1, 3, 4]],
                    index_dtype=np.uint64), **exact),
        # By the rule, with new inputs: runs [3, NaN, 1, 5, NaN, 2, -1] -> 2, -1, then NaN (4), 5, 1, NaN (1), 3;
        # K = 4 stops inside the middle run.
        Sample("nan_runs", desc([7], 0, 4), {"InputTensor": np.array([3, np.nan, 1, 5, np.nan, 2, -1], np.float32)},
               want([2, -1, np.nan, 5], [5, 6, 4, 3]), **exact),
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
            # Smallest first, the same runs (sample_nan_inf_zeros_increasing): NaN (4), -inf, 1, inf, NaN (0); the
            # zeros tie as above.
            Sample("nan_inf_zeros_increasing", desc([2, 5], 1, 5, largest=False), {"InputTensor": special},
                   want([[np.nan, -np.inf, 1, np.inf, np.nan], [0, -0.0, -0.0, 0, 2]],
                        [[4, 2, 3, 1, 0], [0, 1, 3, 4, 2]]), **exact),
            # A NaN last in the sequence comes first; NaN at element 0 comes last: [NaN, 2, -3, NaN] -> NaN (3),
            # -3, 2, NaN (0).
            Sample("nan_ends_increasing", desc([4], 0, 4, largest=False),
                   {"InputTensor": np.array([np.nan, 2, -3, np.nan], np.float32)},
                   want([np.nan, -3, 2, np.nan], [3, 2, 1, 0]), **exact),
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
