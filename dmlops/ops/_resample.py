"""The resampling engine shared by UPSAMPLE_2D, RESAMPLE, RESAMPLE1/2/3 and their gradients RESAMPLE_GRAD(1).

Every variant is separable: one host-side table per dimension, computed from the descriptor alone, applied to
one dimension after the other (dimension 0 first, the last dimension last), on every backend through the same
Gather / Sub / Mul / Add steps (ONNX) or index_select / sub / mul / add (torch), so DirectML's float32 order of
operations is reproduced and no framework resize op with its own coordinate rules is involved.

Source coordinate of output element ``o`` of a dimension (float32, in this order; DirectML's vectors match it bit
for bit, the other orders tried do not):

* RESAMPLE, RESAMPLE1/2/3: ``x = (o - OutputPixelOffset) * (1 / Scale) - InputPixelOffset`` (the docs' relation
  OutputX = (InputX + InputPixelOffset) * Scale + OutputPixelOffset solved for InputX; a reciprocal, not a
  division: RESAMPLE/RESAMPLE1/RESAMPLE2 float32_linear_* differ in up to 42 elements with a division). RESAMPLE
  is RESAMPLE1 with offsets 0.5 and -0.5.
* UPSAMPLE_2D: ``x = (o + 0.5) / Scale - 0.5`` with a division (UPSAMPLE_2D float32_linear_2x3 differs in 22
  elements with the reciprocal), pixel centres as RESAMPLE.
* Gradients: ``x = (o - InputPixelOffset) * (1 / Scale) - OutputPixelOffset``: DirectML's RESAMPLE_GRAD(1) swaps
  the two offsets (see ``grad_axis``).

Nearest neighbor rounds ``x`` as: RESAMPLE/RESAMPLE1/UPSAMPLE_2D and RESAMPLE_GRAD ``floor(x + 0.5)`` (ties up:
RESAMPLE1 float32_nearest_neighbor_scales_2.0_1.5_offset_0.0 reads x = 0.5 as 1); RESAMPLE2/3 and
RESAMPLE_GRAD1 ``ceil(x)`` (INCREASING) or ``floor(x)`` (DECREASING), as the docs say. INT8/UINT8 RESAMPLE and
RESAMPLE1 round down, ``floor(x)``, as RESAMPLE2 DECREASING (RESAMPLE sample_uint8_nearest: Scale 1.5 reads x =
-0.17, 0.5, 1.17, 1.83, 2.5, 3.17 as columns 0, 0, 1, 1, 2, 3 where a float tensor reads 0, 1, 1, 2, 3, 3;
RESAMPLE1 has no integer vector and is taken to do the same). The docs' remark that
RESAMPLE1 equals RESAMPLE2 DECREASING with OutputPixelOffsets - 0.5 does not hold for Scale != 1 (it would read
(o + 1) / 1.5 - 0.5 = 0.5 as 0 where DirectML reads 1: RESAMPLE1 float32_nearest_neighbor_scales_2.0_1.5_*);
it holds with InputPixelOffsets - 0.5. The index is clamped to [0, Size - 1] ("the output edges are clamped").

Linear clamps ``x`` to [0, Size - 1], takes ``i0 = floor(x)``, ``i1 = min(i0 + 1, Size - 1)``, ``t = x - i0``
and computes ``a + (b - a) * t`` per dimension (``a * (1 - t) + b * t`` differs from DirectML in up to 42
elements of the float32 vectors). Dimensions whose table is the identity (Scale 1, offsets cancelling) are not
interpolated at all. INT8/UINT8 tensors (feature level 6.2) are interpolated in float32 and truncated toward
zero (RESAMPLE2 uint8_linear_*: truncation matches all 84 elements, round-to-nearest 33 to 37 of them differ);
nearest copies them.

RESAMPLE3 Antialiased (no vectors: feature level 6.4): the docs stretch the linear filter by max(1, 1 / Scale)
"assuming ... 1/Scales > 2", so dmlops applies it per dimension only where the interpolation is linear and
1 / Scale > 2 (ONNX Resize's antialias applies to every downscale: the two differ for scales in [0.5, 1)). The
stretched filter is a triangle of half-width f = 1 / Scale around x, its taps clipped to the tensor and the
weights normalized to sum 1 (torch's antialias, and ONNX Resize with exclude_outside=1; ONNX's default
exclude_outside=0 reads taps outside the tensor as the edge element instead: which one DirectML does is
unverified), summed in increasing input index.
"""
from __future__ import annotations

import itertools
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from . import _elementwise as ew

F32 = np.float32


@dataclass(frozen=True)
class Axis:
    """One dimension's forward table: ``kind`` is "identity", "gather" (``index``), "lerp" (``index``, ``index1``,
    ``t``: a + (b - a) * t) or "weights" (``index``/``weight`` [out, K], summed over K in order)."""

    kind: str
    size_in: int
    size_out: int
    index: np.ndarray | None = None
    index1: np.ndarray | None = None
    t: np.ndarray | None = None
    weight: np.ndarray | None = None


# ------------------------------------------------------------------------------------------ coordinates
def source(size_out: int, scale: float, in_offset: float, out_offset: float, kind: str) -> np.ndarray:
    """float32 source coordinates of every output position (module docstring: the three kinds)."""
    o = np.arange(size_out, dtype=F32)
    s, a, b = F32(scale), F32(in_offset), F32(out_offset)
    with np.errstate(all="ignore"):
        if kind == "upsample":
            return (o + F32(0.5)) / s - F32(0.5)
        if kind == "grad":
            return (o - a) * (F32(1) / s) - b
        return (o - b) * (F32(1) / s) - a


def nearest_index(x: np.ndarray, size_in: int, rounding: str) -> np.ndarray:
    """int64 indices: ``rounding`` "half_up" (floor(x + 0.5)), "ceil" or "floor", clamped to the tensor."""
    rounders: dict[str, Callable[[np.ndarray], np.ndarray]] = {
        "half_up": lambda v: np.floor(v + F32(0.5)), "ceil": np.ceil, "floor": np.floor}
    with np.errstate(all="ignore"):
        r = rounders[rounding](x)
    return np.clip(np.nan_to_num(r, nan=0.0), 0, size_in - 1).astype(np.int64)


def linear_taps(x: np.ndarray, size_in: int):
    """(i0, i1, t): x clamped to [0, Size - 1], i0 = floor(x), i1 = min(i0 + 1, Size - 1), t = x - i0."""
    xc = np.clip(np.nan_to_num(x, nan=0.0), F32(0), F32(size_in - 1)).astype(F32)
    i0 = np.floor(xc)
    t = (xc - i0).astype(F32)
    i0 = i0.astype(np.int64)
    return i0, np.minimum(i0 + 1, size_in - 1), t


def antialias_taps(x: np.ndarray, size_in: int, stretch: float):
    """(index [out, K], weight [out, K]) of the stretched triangle filter (module docstring); padding columns
    repeat the last tap with weight 0."""
    f = F32(stretch)
    rows = []
    for xo in x.astype(np.float64):
        lo, hi = max(int(np.floor(xo - float(f))), 0), min(int(np.ceil(xo + float(f))), size_in - 1)
        idx = np.arange(lo, hi + 1)
        w = np.maximum(F32(1) - np.abs(idx.astype(F32) - F32(xo)) / f, F32(0)).astype(F32)
        keep = w > 0
        if not keep.any():  # x outside the tensor by more than f: the nearest edge
            idx, w = np.array([min(max(int(np.rint(xo)), 0), size_in - 1)]), np.array([1], F32)
        else:
            idx, w = idx[keep], w[keep]
        rows.append((idx, (w / w.sum(dtype=F32)).astype(F32)))
    k = max(len(i) for i, _ in rows)
    index = np.array([np.pad(i, (0, k - len(i)), mode="edge") for i, _ in rows], np.int64)
    weight = np.array([np.pad(w, (0, k - len(w))) for _, w in rows], F32)
    return index, weight


def forward_axis(size_in: int, size_out: int, scale: float, in_offset: float, out_offset: float, *,
                 linear: bool, rounding: str, coordinate: str = "resample", antialias: bool = False) -> Axis:
    """The forward table of one dimension."""
    x = source(size_out, scale, in_offset, out_offset, coordinate)
    if linear and antialias and F32(1) / F32(scale) > F32(2):
        index, weight = antialias_taps(x, size_in, float(F32(1) / F32(scale)))
        return Axis("weights", size_in, size_out, index=index, weight=weight)
    if linear:
        i0, i1, t = linear_taps(x, size_in)
        if not t.any():
            index = i0
        else:
            return Axis("lerp", size_in, size_out, index=i0, index1=i1, t=t)
    else:
        index = nearest_index(x, size_in, rounding)
    if size_in == size_out and np.array_equal(index, np.arange(size_in)):
        return Axis("identity", size_in, size_out)
    return Axis("gather", size_in, size_out, index=index)


def desc_axes(desc, sizes_in, sizes_out, *, rounding: str, coordinate: str = "resample") -> list[Axis]:
    """Forward tables of a RESAMPLE* descriptor (Scales, optional pixel offsets, InterpolationMode,
    Antialiased)."""
    n = len(sizes_in)
    ins = getattr(desc, "input_pixel_offsets", None) or (0.5,) * n
    outs = getattr(desc, "output_pixel_offsets", None) or (-0.5,) * n
    linear = desc.interpolation_mode.name == "LINEAR"
    aa = bool(getattr(desc, "antialiased", False))
    return [forward_axis(a, b, s, i, o, linear=linear, rounding=rounding, coordinate=coordinate, antialias=aa)
            for a, b, s, i, o in zip(sizes_in, sizes_out, desc.scales, ins, outs)]


def rounding_of(desc) -> str:
    """RoundingDirection as a rounding rule (RESAMPLE2/3, RESAMPLE_GRAD1); for the others "half_up", except INT8 /
    UINT8 RESAMPLE / RESAMPLE1, which round down (module docstring)."""
    rd = getattr(desc, "rounding_direction", None)
    if rd is None:
        t = getattr(desc, "input_tensor", None)
        return "floor" if t is not None and t.data_type.name in ("INT8", "UINT8") else "half_up"
    return "ceil" if rd.name == "INCREASING" else "floor"


# ------------------------------------------------------------------------------------------ forward
def _shape(ndim: int, axis: int, v: np.ndarray) -> list[int]:
    return [v.shape[0] if d == axis else 1 for d in range(ndim)] + list(v.shape[1:])


def reference_forward(axes: list[Axis], x: np.ndarray) -> np.ndarray:
    """NumPy: the tables applied dimension by dimension (float32; integers interpolated in float32 and
    truncated)."""
    dtype = x.dtype
    integer = dtype.kind in "iu"
    v = x
    if integer and any(a.kind in ("lerp", "weights") for a in axes):
        v = x.astype(F32)
    with np.errstate(all="ignore"):
        for d, a in enumerate(axes):
            if a.kind == "gather":
                assert a.index is not None
                v = np.take(v, a.index, axis=d)
            elif a.kind == "lerp":
                assert a.index is not None and a.index1 is not None and a.t is not None
                lo, hi = np.take(v, a.index, axis=d), np.take(v, a.index1, axis=d)
                v = lo + (hi - lo) * a.t.reshape(_shape(v.ndim, d, a.t))
            elif a.kind == "weights":
                assert a.index is not None and a.weight is not None
                acc: np.ndarray | None = None
                for k in range(a.index.shape[1]):
                    w = a.weight[:, k].reshape(_shape(v.ndim, d, a.weight[:, k]))
                    term = np.take(v, a.index[:, k], axis=d) * w
                    acc = term if acc is None else acc + term
                assert acc is not None  # K >= 1 taps
                v = acc
    return ew.convert(v, dtype) if v.dtype != dtype else v


def onnx_forward(axes: list[Axis], g, x: str) -> str:
    """The same steps as ONNX Gather / Sub / Mul / Add."""
    dtype = g.dtype(x)
    v = x
    if dtype.kind in "iu" and any(a.kind in ("lerp", "weights") for a in axes):
        v = g.cast(x, F32)
    ndim = len(axes)
    for d, a in enumerate(axes):
        if a.kind == "gather":
            v = g.node("Gather", [v, g.const(a.index)], axis=d)
        elif a.kind == "lerp":
            assert a.t is not None
            lo = g.node("Gather", [v, g.const(a.index)], axis=d)
            hi = g.node("Gather", [v, g.const(a.index1)], axis=d)
            t = g.const(a.t.reshape(_shape(ndim, d, a.t)))
            v = g.node("Add", [lo, g.node("Mul", [g.node("Sub", [hi, lo]), t])])
        elif a.kind == "weights":
            assert a.index is not None and a.weight is not None
            acc: str | None = None
            for k in range(a.index.shape[1]):
                w = g.const(a.weight[:, k].reshape(_shape(ndim, d, a.weight[:, k])))
                term = g.node("Mul", [g.node("Gather", [v, g.const(a.index[:, k])], axis=d), w])
                acc = term if acc is None else g.node("Add", [acc, term])
            assert acc is not None  # K >= 1 taps
            v = acc
    return ew.onnx_convert(g, v, dtype) if g.dtype(v) != dtype else v


def torch_forward(axes: list[Axis], torch, x):
    """The same steps as torch index_select / sub / mul / add."""
    dtype = x.dtype
    v = x
    if not dtype.is_floating_point and any(a.kind in ("lerp", "weights") for a in axes):
        v = x.to(torch.float32)
    dev = x.device

    def idx(a):
        return torch.as_tensor(a, device=dev)

    for d, a in enumerate(axes):
        if a.kind == "gather":
            v = v.index_select(d, idx(a.index))
        elif a.kind == "lerp":
            assert a.t is not None
            lo, hi = v.index_select(d, idx(a.index)), v.index_select(d, idx(a.index1))
            v = lo + (hi - lo) * idx(a.t.reshape(_shape(v.dim(), d, a.t)))
        elif a.kind == "weights":
            assert a.index is not None and a.weight is not None
            acc = None
            for k in range(a.index.shape[1]):
                w = idx(a.weight[:, k].reshape(_shape(v.dim(), d, a.weight[:, k])))
                term = v.index_select(d, idx(a.index[:, k])) * w
                acc = term if acc is None else acc + term
            v = acc
    return ew.torch_convert(torch, v, dtype) if v.dtype != dtype else v


# ------------------------------------------------------------------------------------------ gradients
@dataclass(frozen=True)
class GradAxis:
    """One dimension's transposed table: for every gradient-output position (the forward input), the forward
    output positions that read it, in increasing order (``index`` [in, K], padded with ``size_out``: a zero) and
    their weights (``weight`` [in, K], 0 in the padding); ``identity`` when it is a plain copy."""

    identity: bool
    size_in: int
    size_out: int
    index: np.ndarray | None = None
    weight: np.ndarray | None = None


def grad_axis(size_in: int, size_out: int, scale: float, in_offset: float, out_offset: float, *,
              linear: bool, rounding: str) -> GradAxis:
    """The transposed table of one dimension.

    DirectML's gradient reads the forward mapping with the two pixel offsets swapped, x = (o - InputPixelOffset)
    / Scale - OutputPixelOffset: with the usual offsets (0.5, -0.5) that is the forward coordinate shifted by
    1 - 1 / Scale, or both offsets negated. RESAMPLE_GRAD float32_nearest_neighbor_scales_2.0_1.5 sends output
    rows {0}, {1, 2}, {3, 4, 5} to input rows 0, 1, 2 (the forward RESAMPLE1 reads rows 0, 0, 1, 1, 2, 2),
    RESAMPLE_GRAD1 float32_nearest_neighbor_scales_2.0_1.5 (INCREASING) leaves input row and column 0 at 0, and
    both linear vectors match this transpose and no transpose of the forward tables. Offsets (0.3, -0.2)
    (RESAMPLE_GRAD sample_linear_3d_down) tell the three readings apart: only the swap meets DirectML (the
    negated offsets miss it by up to 0.74). Forward taps of weight 0 (t = 0) are left out."""
    x = source(size_out, scale, in_offset, out_offset, "grad")
    taps: list[list[tuple[int, np.float32]]] = [[] for _ in range(size_in)]
    if linear:
        i0, i1, t = linear_taps(x, size_in)
        for o in range(size_out):
            for i, w in ((i0[o], F32(1) - t[o]), (i1[o], t[o])):
                if w != 0:
                    taps[i].append((o, F32(w)))
    else:
        for o, i in enumerate(nearest_index(x, size_in, rounding)):
            taps[i].append((o, F32(1)))
    if size_in == size_out and all(len(tp) == 1 and tp[0] == (i, 1) for i, tp in enumerate(taps)):
        return GradAxis(True, size_in, size_out)
    k = max(1, max(len(tp) for tp in taps))
    index = np.full((size_in, k), size_out, np.int64)
    weight = np.zeros((size_in, k), F32)
    for i, tp in enumerate(taps):
        for j, (o, w) in enumerate(tp):
            index[i, j], weight[i, j] = o, w
    return GradAxis(False, size_in, size_out, index=index, weight=weight)


def desc_grad_axes(desc) -> list[GradAxis]:
    """Transposed tables of a RESAMPLE_GRAD(1) descriptor."""
    sizes_out = desc.input_gradient_tensor.sizes   # the forward output
    sizes_in = desc.output_gradient_tensor.sizes   # the forward input
    linear = desc.interpolation_mode.name == "LINEAR"
    rounding = rounding_of(desc)
    return [grad_axis(a, b, s, i, o, linear=linear, rounding=rounding) for a, b, s, i, o in
            zip(sizes_in, sizes_out, desc.scales, desc.input_pixel_offsets, desc.output_pixel_offsets)]


def grad_terms(axes: list[GradAxis]):
    """For every combination of table columns, in DirectML's order (the forward output positions in row-major
    order, dimension 0 outermost): per dimension the index column (None: identity) and the weight tensor, the
    per-dimension weights multiplied in dimension order in float32 (None when all are 1)."""
    ndim = len(axes)
    # An identity axis has no index/weight table (grad_axis); testing the tables themselves lets mypy see it.
    cols = [range(1) if a.index is None else range(a.index.shape[1]) for a in axes]
    for combo in itertools.product(*cols):
        index = [None if a.index is None else a.index[:, k] for a, k in zip(axes, combo)]
        w = None
        for d, (a, k) in enumerate(zip(axes, combo)):
            if a.weight is None or np.all(a.weight[:, k] == 1):
                continue
            wd = a.weight[:, k].reshape([-1 if j == d else 1 for j in range(ndim)])
            w = wd if w is None else (w * wd).astype(F32)
        yield index, w


def reference_grad(axes: list[GradAxis], gy: np.ndarray) -> np.ndarray:
    """NumPy: every gradient-output element sums its contributions in DirectML's order (``grad_terms``)."""
    v = gy.astype(F32)
    pad = [(0, 0 if a.identity else 1) for a in axes]
    v = np.pad(v, pad)  # one zero at the end of every gathered dimension: the padding columns read it
    acc: np.ndarray | None = None
    with np.errstate(all="ignore"):
        for index, w in grad_terms(axes):
            term = v
            for d, i in enumerate(index):
                if i is not None:
                    term = np.take(term, i, axis=d)
            if w is not None:
                term = term * w
            acc = term if acc is None else acc + term
    assert acc is not None  # grad_terms yields at least one term
    return acc


def onnx_grad(axes: list[GradAxis], g, gy: str) -> str:
    """The same sums as ONNX Concat (the zero) / Gather / Mul / Add."""
    dtype = g.dtype(gy)
    shape = [a.size_out for a in axes]
    v = gy
    for d, a in enumerate(axes):
        if not a.identity:
            zshape = list(shape)
            zshape[d] = 1
            v = g.node("Concat", [v, g.const(np.zeros(zshape, dtype))], axis=d)
            shape[d] += 1
    acc: str | None = None
    for index, w in grad_terms(axes):
        term = v
        for d, i in enumerate(index):
            if i is not None:
                term = g.node("Gather", [term, g.const(i)], axis=d)
        if w is not None:
            term = g.node("Mul", [term, g.const(w.astype(dtype))])
        acc = term if acc is None else g.node("Add", [acc, term])
    assert acc is not None  # grad_terms yields at least one term
    return acc


def torch_grad(axes: list[GradAxis], torch, gy):
    """The same sums as torch cat / index_select / mul / add."""
    v = gy
    dev = gy.device
    for d, a in enumerate(axes):
        if not a.identity:
            zshape = list(v.shape)
            zshape[d] = 1
            v = torch.cat([v, torch.zeros(zshape, dtype=v.dtype, device=dev)], dim=d)
    acc = None
    for index, w in grad_terms(axes):
        term = v
        for d, i in enumerate(index):
            if i is not None:
                term = term.index_select(d, torch.as_tensor(i, device=dev))
        if w is not None:
            term = term * torch.as_tensor(w, device=dev)
        acc = term if acc is None else acc + term
    return acc


# ------------------------------------------------------------------------------------------ op modules
def forward_axes(desc) -> list[Axis]:
    """The forward tables of an UPSAMPLE_2D or RESAMPLE* descriptor."""
    sizes_in, sizes_out = desc.input_tensor.sizes, desc.output_tensor.sizes
    if desc.OPERATOR_TYPE == "UPSAMPLE_2D":
        n = len(sizes_in)
        scales = [1] * (n - 2) + [desc.scale_size.height, desc.scale_size.width]
        linear = desc.interpolation_mode.name == "LINEAR"
        return [forward_axis(a, b, s, 0.5, -0.5, linear=linear, rounding="half_up", coordinate="upsample")
                for a, b, s in zip(sizes_in, sizes_out, scales)]
    return desc_axes(desc, sizes_in, sizes_out, rounding=rounding_of(desc))


def reference(desc, x):
    """OutputTensor in NumPy (an op module's ``reference``)."""
    return {"OutputTensor": reference_forward(forward_axes(desc), x["InputTensor"])}


def to_onnx(desc, g, x):
    """OutputTensor in ONNX (an op module's ``to_onnx``)."""
    return {"OutputTensor": onnx_forward(forward_axes(desc), g, x["InputTensor"])}


def to_torch(desc, torch, x):
    """OutputTensor in torch (an op module's ``to_torch``)."""
    return {"OutputTensor": torch_forward(forward_axes(desc), torch, x["InputTensor"])}


def grad_reference(desc, x):
    """OutputGradientTensor in NumPy."""
    return {"OutputGradientTensor": reference_grad(desc_grad_axes(desc), x["InputGradientTensor"])}


def grad_to_onnx(desc, g, x):
    """OutputGradientTensor in ONNX."""
    return {"OutputGradientTensor": onnx_grad(desc_grad_axes(desc), g, x["InputGradientTensor"])}


def grad_to_torch(desc, torch, x):
    """OutputGradientTensor in torch."""
    return {"OutputGradientTensor": torch_grad(desc_grad_axes(desc), torch, x["InputGradientTensor"])}


def sample_desc(op: str, data_type: str, sizes_in, sizes_out, mode: str, scales, offsets=(0.5, -0.5), **extra):
    """A RESAMPLE* / RESAMPLE_GRAD* descriptor for SAMPLES (``offsets``: one InputPixelOffset and one
    OutputPixelOffset for every dimension; RESAMPLE has none)."""
    from .. import descs
    from ..sample import td

    cls = {"RESAMPLE": descs.Resample, "RESAMPLE1": descs.Resample1, "RESAMPLE2": descs.Resample2,
           "RESAMPLE3": descs.Resample3, "RESAMPLE_GRAD": descs.ResampleGrad,
           "RESAMPLE_GRAD1": descs.ResampleGrad1}[op]
    n = len(sizes_in)
    fields = dict(interpolation_mode=mode, scales=tuple(float(s) for s in scales), **extra)
    if op != "RESAMPLE":
        fields.update(input_pixel_offsets=(float(offsets[0]),) * n, output_pixel_offsets=(float(offsets[1]),) * n)
    if op.startswith("RESAMPLE_GRAD"):
        return cls(input_gradient_tensor=td(data_type, sizes_in), output_gradient_tensor=td(data_type, sizes_out),
                   **fields)
    return cls(input_tensor=td(data_type, sizes_in), output_tensor=td(data_type, sizes_out), **fields)
