"""Region-of-interest sampling shared by ROI_POOLING, ROI_ALIGN, ROI_ALIGN1 and ROI_ALIGN_GRAD.

The regions are a runtime input, so no table can be built on the host: every backend computes the sampling in its
own graph from the ROI values, with one algorithm written once against the op sets of dmlops/ops/_opset.py (the
same float32 operations in the same order on NumPy, ONNX Runtime and torch). All index arithmetic is
float32 (exact for the integers involved, below 2**24) and becomes int64 only to gather.

ROI align (per axis, DirectML's pseudo-code on the ROI_ALIGN1 page; x and y alike)::

    p1, p2 = ROI[x1], ROI[x2] * SpatialScaleX          size = p2 - p1
    n      = clamp(ceil(size / OutputSize), MinimumSamplesPerOutput, MaximumSamplesPerOutput)
    step   = size / (OutputSize * n)                   (AlignRegionsToCorners: size / (OutputSize * n - 1))
    sample j (0 <= j < n) of output o reads  ((o * n + j) - OutputPixelOffset) * step + p1 - InputPixelOffset

with n = clamp(ceil(|size| / OutputSize), Min, Max): a mirrored region (size < 0) counts its samples by its length.
A sample reads the input when -1 < c < InputSize on both axes (else OutOfBoundsInputValue), at c clamped to
[0, InputSize - 1]: LINEAR interpolates there, NEAREST_NEIGHBOR reads floor(c + 0.5). The samples of one output are
summed (or maxed) y outer, x inner. These are DirectML's answers (dmlops/ops/roi_align1.py says which vectors).

The number of samples is data-dependent, so each axis enumerates a static number of slots K and masks the slots
j >= n. K = MaximumSamplesPerOutput when that is small; otherwise K = max(Min, InputSize + 5) slots placed from the
first sample that can be inside the input (``window``): at most InputSize + 2 samples of one output lie inside
[-1, InputSize] (the spacing is above 1/2 unless n is clamped to the minimum), and the samples left out are all
outside, so they count as OutOfBoundsInputValue without being read.

A BatchIndicesTensor value outside [0, BatchCount) is undefined in DirectML (the docs); dmlops reads every sample of
such a region as outside the input (OutOfBoundsInputValue; ROI_ALIGN_GRAD: no gradient), the same on every
backend, rather than failing in a backend's gather. ROI_POOLING, whose batch index is ROITensor[r, 0] truncated,
gives 0 for such a region (as for an empty bin).
"""
from __future__ import annotations

import numpy as np

from ..errors import DmlOpsError
from ._opset import ONNX, NumPy, Torch

F32 = np.float32
# Gathered elements (ROIs x channels x outputs x sample slots x corners) above which the in-graph sampling is refused.
MAX_ELEMENTS = 1 << 27


# ------------------------------------------------------------------------------------------ array interfaces
def backend(kind, *args):
    """The op set (dmlops/ops/_opset.py, float32) for ``"reference"`` (), ``"onnx"`` (g) or ``"torch"`` (torch,
    device). ONNX selects through ew.onnx_where: a -0.0 read from the input must survive ONNX Runtime's CPU Where."""
    if kind == "onnx":
        return ONNX(*args, keep_negative_zero=True)
    return {"reference": NumPy, "torch": Torch}[kind](*args)


# ------------------------------------------------------------------------------------------------ ROI align
def align_settings(desc) -> dict:
    """Offsets of ROI_ALIGN (fixed: the pixel centres) or ROI_ALIGN1 / ROI_ALIGN_GRAD (fields)."""
    return {"ipo": float(F32(getattr(desc, "input_pixel_offset", 0.5))),
            "opo": float(F32(getattr(desc, "output_pixel_offset", -0.5))),
            "corners": bool(getattr(desc, "align_regions_to_corners", False)),
            "linear": desc.interpolation_mode.name == "LINEAR",
            "max": desc.reduction_function.name == "MAX",
            "low": int(desc.minimum_samples_per_output), "high": int(desc.maximum_samples_per_output),
            # ROI_ALIGN_GRAD has no OutOfBoundsInputValue: 0, as ONNX reads outside the input (roi_align_grad.py)
            "oob": float(F32(getattr(desc, "out_of_bounds_input_value", 0.0))),
            "sx": float(F32(desc.spatial_scale_x)), "sy": float(F32(desc.spatial_scale_y))}


def slots(settings, size: int) -> tuple[int, bool]:
    """(K, windowed): the static sample slots of one axis over an input extent ``size`` (module docstring)."""
    low, high = settings["low"], settings["high"]
    k = min(high, max(low, size + 5))
    return k, k < high


def align_plan(desc, x_sizes, out_hw, num_rois):
    """Static sizes: (B, C, H, W, OH, OW, Ky, Kx, windowed y, windowed x), refused when too large to gather."""
    s = align_settings(desc)
    b, c, h, w = x_sizes
    oh, ow = out_hw
    ky, wy = slots(s, h)
    kx, wx = slots(s, w)
    total = num_rois * c * oh * ow * ky * kx * (4 if s["linear"] else 1)
    if total > MAX_ELEMENTS:
        raise DmlOpsError(
            f"{desc.OPERATOR_TYPE}: the sampling is built in the graph from the runtime ROITensor and gathers "
            f"{total} elements ({num_rois} ROIs x {c} channels x {oh * ow} outputs x {ky} x {kx} sample slots"
            f"{' x 4 corners' if s['linear'] else ''}); dmlops allows {MAX_ELEMENTS}. The slots per axis are "
            f"min(MaximumSamplesPerOutput, max(MinimumSamplesPerOutput, InputSize + 5)): a smaller "
            f"MaximumSamplesPerOutput ({s['high']}) bounds them.")
    return s, (b, c, h, w, oh, ow, ky, kx, wy, wx)


def _axis(A, s, rois, i, scale, out: int, size: int, k: int, windowed: bool, r: int, roi: bool = False):
    """Per-axis sampling, arrays [R, out, K]: dict(lo, hi, lerp, inside, valid, n); with ``roi`` also the
    ROI-gradient reads of ROI_ALIGN_GRAD (rlo = floor, rhi = ceil, rlerp = the fraction of the coordinate clamped to
    [0, InputSize - 1], as the forward's LINEAR mode clamps it; in both interpolation modes)."""
    p1 = A.mul(A.reshape(A.take(rois, i, -1), [r, 1, 1]), A.const(scale))
    p2 = A.mul(A.reshape(A.take(rois, i + 2, -1), [r, 1, 1]), A.const(scale))
    extent = A.sub(p2, p1)
    # DirectML counts the samples of a mirrored region (p2 < p1) by its length: ceil(|size| / OutputSize)
    n = A.minimum(A.maximum(A.ceil(A.div(A.abs(extent), A.const(out))), A.const(s["low"])),
                  A.const(float(s["high"])))
    total = A.mul(n, A.const(out))
    if s["corners"]:
        more = A.lt(A.const(1), total)
        step = A.where(more, A.div(extent, A.where(more, A.sub(total, A.const(1)), A.const(1))), A.const(0))
        opo = 0.0
    else:
        step = A.div(extent, total)
        opo = s["opo"]
    o = A.const(np.arange(out, dtype=F32).reshape(1, out, 1))
    first = A.mul(o, n)
    j = A.const(np.arange(k, dtype=F32).reshape(1, 1, k))
    if windowed:
        # the first sample of output o that can lie inside [-1, size] (one slot of margin for rounding)
        c0 = A.sub(A.add(A.mul(A.sub(first, A.const(opo)), step), p1), A.const(s["ipo"]))
        rising = A.lt(A.const(0), step)
        falling = A.lt(step, A.const(0))
        safe = A.where(A.lor(rising, falling), step, A.const(1))
        t = A.div(A.sub(A.where(rising, A.const(-1.0), A.const(float(size))), c0), safe)
        t = A.where(A.lor(rising, falling), t, A.const(0))
        j0 = A.maximum(A.sub(A.floor(t), A.const(1)), A.const(0))
        j0 = A.where(A.lt(j0, n), j0, A.const(0))  # NaN and beyond-the-samples starts
        j = A.add(j0, j)
    valid = A.lt(j, n)
    c = A.sub(A.add(A.mul(A.sub(A.add(first, j), A.const(opo)), step), p1), A.const(s["ipo"]))
    last = A.const(float(size - 1))
    # both modes: a sample reads the input when -1 < c < InputSize (strictly: DirectML reads c = -1 and c = InputSize
    # as OutOfBoundsInputValue), at c clamped to [0, InputSize - 1]
    inside = A.land(A.lt(A.const(-1.0), c), A.lt(c, A.const(float(size))))
    cc = A.maximum(c, A.const(0))
    if s["linear"]:
        lo = A.floor(cc)
        edge = A.le(last, lo)
        lo = A.where(edge, last, lo)
        hi = A.where(edge, last, A.add(lo, A.const(1)))
        lerp = A.where(edge, A.const(0), A.sub(cc, lo))
    else:
        # nearest: half rounds up (DirectML reads coordinate 0.5 as index 1)
        lo = A.floor(A.add(A.minimum(cc, last), A.const(0.5)))
        hi, lerp = lo, None
    ok = A.land(inside, valid)
    lo = A.where(ok, lo, A.const(0))
    hi = A.where(ok, hi, A.const(0))
    if lerp is not None:
        lerp = A.where(ok, lerp, A.const(0))
    full = [r, out, k]
    got = {"lo": A.expand(lo, full), "hi": A.expand(hi, full), "lerp": None if lerp is None else A.expand(lerp, full),
           "inside": A.expand(inside, full), "valid": A.expand(valid, full), "n": n}
    if roi:
        cf = A.minimum(A.maximum(c, A.const(0)), last)
        rlo = A.floor(cf)
        got["rlo"] = A.expand(A.where(ok, rlo, A.const(0)), full)
        got["rhi"] = A.expand(A.where(ok, A.ceil(cf), A.const(0)), full)
        got["rlerp"] = A.expand(A.where(ok, A.sub(cf, rlo), A.const(0)), full)
    return got


def _grid(A, y, x, plan, r):
    """y arrays [R, OH, Ky] and x arrays [R, OW, Kx] combined into [R, OH, OW, Ky, Kx] (y outer, x inner: the order
    in which DirectML sums the samples, bit for bit on the vectors; the docs' loop has x outer), then flattened to
    [R, 1, Q * S] (Q outputs, S = Ky * Kx slots)."""
    b, c, h, w, oh, ow, ky, kx, _, _ = plan
    shape = [r, oh, ow, ky, kx]

    def yy(v):
        return A.reshape(v, [r, oh, 1, ky, 1])

    def xx(v):
        return A.reshape(v, [r, 1, ow, 1, kx])

    def flat(v):
        return A.reshape(A.expand(v, shape), [r, 1, oh * ow * kx * ky])

    return yy, xx, flat, shape


def in_batch(A, batch, b: int):
    """(index, ok): BatchIndicesTensor as int64 [R] with the indices outside [0, BatchCount) replaced by 0, and the
    [R] mask of those inside. DirectML leaves an index outside the batch undefined (the docs); dmlops reads such a
    region as lying outside the input (module docstring). A UINT64 index of 2**63 or more is negative here."""
    ok = A.land(A.le(0, batch), A.lt(batch, b))
    return A.where(ok, batch, 0), ok


def align_samples(A, s, plan, rois, r, batch, roi: bool = False):
    """Per-axis sampling of every ROI and the 2-D masks and corner indices, flattened to [R, 1, P]; with ``roi``
    also ROI_ALIGN_GRAD's floor/ceil corners ("rcorners": tl, tr, bl, br) and fractions ("ry", "rx"). "batch" is
    the index to read from (``in_batch``); a region whose index is outside the batch has every sample outside."""
    b, c, h, w, oh, ow, ky, kx, wy, wx = plan
    rois = A.reshape(rois, [r, 4])
    y = _axis(A, s, rois, 1, s["sy"], oh, h, ky, wy, r, roi)
    x = _axis(A, s, rois, 0, s["sx"], ow, w, kx, wx, r, roi)
    yy, xx, flat, shape = _grid(A, y, x, plan, r)
    index, ok = in_batch(A, batch, b)
    inside = A.land(flat(A.land(yy(y["inside"]), xx(x["inside"]))), A.reshape(ok, [r, 1, 1]))
    valid = flat(A.land(yy(y["valid"]), xx(x["valid"])))
    W = A.const(float(w))
    corners = {}
    for name, (ya, xa) in {"00": ("lo", "lo"), "10": ("hi", "lo"), "01": ("lo", "hi"), "11": ("hi", "hi")}.items():
        if not s["linear"] and name != "00":
            continue
        corners[name] = A.cast(flat(A.add(A.mul(yy(y[ya]), W), xx(x[xa]))), np.int64)
    out = {"inside": inside, "valid": valid, "corners": corners, "ny": y["n"], "nx": x["n"], "batch": index,
           "windowed": wy or wx, "yvalid": y["valid"], "xvalid": x["valid"]}
    if s["linear"]:
        out["ly"] = flat(yy(y["lerp"]))
        out["lx"] = flat(xx(x["lerp"]))
    if roi:
        out["rcorners"] = {name: A.cast(flat(A.add(A.mul(yy(y[ya]), W), xx(x[xa]))), np.int64)
                           for name, (ya, xa) in {"tl": ("rlo", "rlo"), "tr": ("rlo", "rhi"), "bl": ("rhi", "rlo"),
                                                  "br": ("rhi", "rhi")}.items()}
        out["ry"] = flat(yy(y["rlerp"]))
        out["rx"] = flat(xx(x["rlerp"]))
    return out


def _valid_count(A, y_valid, x_valid, r, oh, ow, ky, kx):
    """Valid enumerated samples per output: [R, OH, OW] = (sum of y slots) * (sum of x slots)."""
    yc = None
    for k in range(ky):
        v = A.take(A.cast(y_valid, F32), k, -1)
        yc = v if yc is None else A.add(yc, v)
    xc = None
    for k in range(kx):
        v = A.take(A.cast(x_valid, F32), k, -1)
        xc = v if xc is None else A.add(xc, v)
    return A.mul(A.reshape(yc, [r, oh, 1]), A.reshape(xc, [r, 1, ow]))


def align_values(A, s, plan, x, smp, r):
    """Every sample's value [R, C, Q, S] (OutOfBoundsInputValue outside the input; slots past n are masked later)."""
    b, c, h, w, oh, ow, ky, kx, _, _ = plan
    planes = A.take(A.reshape(x, [b, c, h * w]), smp["batch"], 0)  # [R, C, HW]
    p = oh * ow * kx * ky

    def read(name):
        return A.reshape(A.gather(planes, smp["corners"][name], 2, [r, c, p]), [r, c, oh * ow, kx * ky])

    if s["linear"]:
        ly = A.reshape(smp["ly"], [r, 1, oh * ow, kx * ky])
        lx = A.reshape(smp["lx"], [r, 1, oh * ow, kx * ky])
        v00, v10, v01, v11 = read("00"), read("10"), read("01"), read("11")
        # DirectML's arithmetic, bit for bit on the vectors: lerp each column in y, then across in x
        left = A.add(v00, A.mul(A.sub(v10, v00), ly))
        right = A.add(v01, A.mul(A.sub(v11, v01), ly))
        v = A.add(left, A.mul(A.sub(right, left), lx))
    else:
        v = read("00")
    inside = A.reshape(smp["inside"], [r, 1, oh * ow, kx * ky])
    return A.where(inside, v, A.const(s["oob"]))


def align_forward(A, desc, x, rois, batch, x_sizes, out_hw, r):
    """OutputTensor [R, C, OH, OW] of ROI_ALIGN / ROI_ALIGN1 (float32)."""
    s, plan = align_plan(desc, x_sizes, out_hw, r)
    b, c, h, w, oh, ow, ky, kx, wy, wx = plan
    smp = align_samples(A, s, plan, rois, r, batch)
    v = align_values(A, s, plan, x, smp, r)
    valid = A.reshape(smp["valid"], [r, 1, oh * ow, kx * ky])
    acc = A.const(-np.inf if s["max"] else 0.0)
    for k in range(kx * ky):  # one sample at a time, in DirectML's order (y outer, x inner)
        value, ok = A.take(v, k, -1), A.take(valid, k, -1)
        if s["max"]:
            acc = A.maximum(acc, A.where(ok, value, A.const(-np.inf)))
        else:
            acc = A.add(acc, A.where(ok, value, A.const(0.0)))
    n = A.reshape(A.mul(smp["ny"], smp["nx"]), [r, 1, 1, 1])  # samples per output of each ROI
    acc = A.reshape(acc, [r, c, oh, ow])
    if smp["windowed"]:
        # samples a window left out lie outside the input: OutOfBoundsInputValue each
        ys = _valid_count(A, smp["yvalid"], smp["xvalid"], r, oh, ow, ky, kx)
        missing = A.sub(n, A.reshape(ys, [r, 1, oh, ow]))
        some = A.lt(A.const(0), missing)
        if s["max"]:
            acc = A.where(some, A.maximum(acc, A.const(s["oob"])), acc)
        else:
            acc = A.add(acc, A.where(some, A.mul(missing, A.const(s["oob"])), A.const(0.0)))
    if s["max"]:
        return acc
    return A.div(acc, n)


def align_input_gradient(A, desc, x, rois, batch, grad, x_sizes, out_hw, r):
    """OutputGradientTensor [B, C, H, W] of ROI_ALIGN_GRAD: each output's gradient sent back through the samples
    the forward read (AVERAGE: 1 / n each; MAX: the first sample holding the maximum), split over the bilinear
    corners, summed per input element (a one-hot MatMul per ROI, then one per batch)."""
    s, plan = align_plan(desc, x_sizes, out_hw, r)
    b, c, h, w, oh, ow, ky, kx, wy, wx = plan
    q, sl = oh * ow, kx * ky
    smp = align_samples(A, s, plan, rois, r, batch)
    valid = A.reshape(smp["valid"], [r, 1, q, sl])
    inside = A.reshape(smp["inside"], [r, 1, q, sl])
    use = A.cast(A.land(valid, inside), F32)  # [R, 1, Q, S]
    g = A.reshape(grad, [r, c, q, 1])
    if s["max"]:
        coef = A.mul(A.mul(g, _max_pick(A, s, plan, x, batch, smp, r)), use)  # [R, C, Q, S]
    else:
        n = A.reshape(A.mul(smp["ny"], smp["nx"]), [r, 1, 1, 1])
        coef = A.mul(A.div(g, n), use)
    if s["linear"]:
        ly = A.reshape(smp["ly"], [r, 1, q, sl])
        lx = A.reshape(smp["lx"], [r, 1, q, sl])
        one = A.const(1)
        weights = {"00": A.mul(A.sub(one, ly), A.sub(one, lx)), "10": A.mul(ly, A.sub(one, lx)),
                   "01": A.mul(A.sub(one, ly), lx), "11": A.mul(ly, lx)}
    else:
        weights = {"00": None}
    hw = A.const(np.arange(h * w, dtype=F32).reshape(1, 1, h * w))
    total = None
    for name, wgt in weights.items():
        contrib = coef if wgt is None else A.mul(coef, wgt)  # [R, C, Q, S]
        contrib = A.reshape(contrib, [r, c, q * sl])
        idx = A.reshape(A.cast(smp["corners"][name], F32), [r, q * sl, 1])
        onehot = A.cast(A.eq(idx, hw), F32)  # [R, P, HW]
        part = A.matmul(contrib, onehot)  # [R, C, HW]
        total = part if total is None else A.add(total, part)
    rows = A.cast(A.eq(A.reshape(A.cast(batch, F32), [1, r]),
                        A.const(np.arange(b, dtype=F32).reshape(b, 1))), F32)  # [B, R]
    out = A.matmul(rows, A.reshape(total, [r, c * h * w]))
    return A.reshape(out, [b, c, h, w])


def _max_pick(A, s, plan, x, batch, smp, r):
    """[R, C, Q, S]: 1 at the first valid sample (y outer, x inner, as the forward sums) holding each output's
    maximum, else 0."""
    b, c, h, w, oh, ow, ky, kx, wy, wx = plan
    q, sl = oh * ow, kx * ky
    valid = A.reshape(smp["valid"], [r, 1, q, sl])
    v = align_values(A, s, plan, x, smp, r)
    best = A.const(-np.inf)
    for k in range(sl):
        best = A.maximum(best, A.where(A.take(valid, k, -1), A.take(v, k, -1), A.const(-np.inf)))
    taken = A.const(np.zeros((1, 1, 1), F32))
    picks = []
    for k in range(sl):
        hit = A.mul(A.cast(A.land(A.take(valid, k, -1), A.eq(A.take(v, k, -1), best)), F32), A.sub(A.const(1), taken))
        picks.append(A.reshape(hit, [r, c, q, 1]))
        taken = A.maximum(taken, hit)
    pick = picks[0]
    for p_ in picks[1:]:
        pick = A.concat([pick, p_], -1)
    return pick


def align_roi_gradient(A, desc, x, rois, batch, grad, x_sizes, out_hw, r):
    """OutputROIGradientTensor [R, 4] of ROI_ALIGN_GRAD: the page's pseudo-code (dmlops/ops/roi_align_grad.py).
    Every contributing sample (AVERAGE: every valid sample inside the input; MAX: the sample the forward picked)
    reads InputTensor at floor/ceil of its clamped coordinate; its image gradients times the InputGradientTensor
    element are summed over channels and samples per output (ReduceSum), then weighted per output position
    (InputGradient width - x, height - y, x, y) and summed over the outputs (a MatMul)."""
    s, plan = align_plan(desc, x_sizes, out_hw, r)
    b, c, h, w, oh, ow, ky, kx, wy, wx = plan
    q, sl = oh * ow, kx * ky
    smp = align_samples(A, s, plan, rois, r, batch, roi=True)
    valid = A.reshape(smp["valid"], [r, 1, q, sl])
    inside = A.reshape(smp["inside"], [r, 1, q, sl])
    use = A.cast(A.land(valid, inside), F32)  # [R, 1, Q, S]
    g = A.reshape(grad, [r, c, q, 1])
    weight = A.mul(g, use)
    if s["max"]:
        weight = A.mul(weight, _max_pick(A, s, plan, x, batch, smp, r))  # [R, C, Q, S]
    planes = A.take(A.reshape(x, [b, c, h * w]), smp["batch"], 0)  # [R, C, HW]
    p = q * sl

    def read(name):
        return A.reshape(A.gather(planes, smp["rcorners"][name], 2, [r, c, p]), [r, c, q, sl])

    tl, tr, bl, br = read("tl"), read("tr"), read("bl"), read("br")
    y_lerp = A.reshape(smp["ry"], [r, 1, q, sl])
    x_lerp = A.reshape(smp["rx"], [r, 1, q, sl])
    one = A.const(1)
    grad_y = A.add(A.mul(A.sub(one, x_lerp), A.sub(bl, tl)), A.mul(x_lerp, A.sub(br, tr)))
    grad_x = A.add(A.mul(A.sub(one, y_lerp), A.sub(tr, tl)), A.mul(y_lerp, A.sub(br, bl)))
    grad_y = A.reduce_sum(A.mul(grad_y, weight), [1, 3])  # [R, Q]
    grad_x = A.reduce_sum(A.mul(grad_x, weight), [1, 3])
    oy, ox = np.divmod(np.arange(q), ow)
    zero = np.zeros(q)
    wx_ = A.const(np.stack([ow - ox, zero, ox, zero], axis=1).astype(F32))  # [Q, 4]
    wy_ = A.const(np.stack([zero, oh - oy, zero, oy], axis=1).astype(F32))
    return A.add(A.matmul(grad_x, wx_), A.matmul(grad_y, wy_))  # [R, 4]


# ---------------------------------------------------------------------------------------------- ROI pooling
def pool_forward(A, desc, x, rois, x_sizes, r):
    """OutputTensor [R, C, PH, PW] of ROI_POOLING: the max over each bin (bins from the docs' integer formulas with
    coordinates rounded half to even), 0 for an empty bin; separable: a masked max over W, then over H."""
    b, c, h, w = x_sizes
    ph, pw = desc.pooled_size.height, desc.pooled_size.width
    rois = A.reshape(rois, [r, 5])
    scale = A.const(float(F32(desc.spatial_scale)))

    def bins(i, pooled, size):
        p1 = A.reshape(A.rint(A.mul(A.take(rois, i, -1), scale)), [r, 1, 1])
        p2 = A.reshape(A.rint(A.mul(A.take(rois, i + 2, -1), scale)), [r, 1, 1])
        extent = A.add(A.sub(p2, p1), A.const(1))
        o = A.const(np.arange(pooled, dtype=F32).reshape(1, pooled, 1))
        start = A.add(A.floor(A.div(A.mul(o, extent), A.const(pooled))), p1)
        end = A.add(A.ceil(A.div(A.mul(A.add(o, A.const(1)), extent), A.const(pooled))), p1)
        start = A.minimum(A.maximum(start, A.const(0)), A.const(size))
        end = A.minimum(A.maximum(end, A.const(0)), A.const(size))
        at = A.const(np.arange(size, dtype=F32).reshape(1, 1, size))
        return A.land(A.le(start, at), A.lt(at, end)), A.lt(start, end)  # [R, P, size], [R, P, 1]

    my, ey = bins(2, ph, h)
    mx, ex = bins(1, pw, w)
    # the batch index is ROITensor[r, 0] truncated toward zero; a region whose index is outside [0, BatchCount)
    # (or NaN) pools nothing: 0, as an empty bin (DirectML leaves it undefined)
    index = A.take(rois, 0, -1)
    ok = A.land(A.lt(-1.0, index), A.lt(index, float(b)))
    planes = A.reshape(A.take(x, A.cast(A.where(ok, index, 0.0), np.int64), 0), [r, c, h, 1, w])
    ninf = A.const(-np.inf)
    # NaN is skipped (read as -inf; a bin of NaN only gives NaN), as DirectML's REDUCE MAX does (its vectors): its
    # max returns the non-NaN operand. The backends' own max reductions differ (ONNX Runtime's CPU ReduceMax skips
    # NaN, NumPy and torch propagate it), so none is left to decide.
    number = A.lnot(A.ne(planes, planes))
    planes = A.where(number, planes, ninf)
    in_x, in_y = A.reshape(mx, [r, 1, 1, pw, w]), A.reshape(my, [r, 1, ph, h, 1])
    t = A.reduce_max(A.where(in_x, planes, ninf), 4)  # [R, C, H, PW]
    y = A.reduce_max(A.where(in_y, A.reshape(t, [r, c, 1, h, pw]), ninf), 3)  # [R, C, PH, PW]
    seen = A.reduce_max(A.where(A.land(in_x, number), A.const(1.0), A.const(0.0)), 4)  # whether a bin holds a number
    seen = A.reduce_max(A.where(in_y, A.reshape(seen, [r, c, 1, h, pw]), A.const(0.0)), 3)
    y = A.where(A.lt(0.0, seen), y, A.const(np.nan))
    filled = A.land(A.land(A.reshape(ey, [r, 1, ph, 1]), A.reshape(ex, [r, 1, 1, pw])), A.reshape(ok, [r, 1, 1, 1]))
    return A.where(filled, y, A.const(0.0))


# ------------------------------------------------------------------------------------------ backend entry points
def inputs(kind, x, batch_field: str | None = "BatchIndicesTensor", *args):
    """(op set, ROIs as float32, batch indices as int64 [R] or None) for ``kind``."""
    A = backend(kind, *args)
    rois, batch = x["ROITensor"], x.get(batch_field) if batch_field else None
    if batch is not None:
        if kind == "torch":
            from . import _elementwise as ew

            batch = ew.torch_bits(args[0], batch)[0]  # UINT32 / UINT64 in a dtype torch has kernels for
        batch = A.reshape(A.cast(batch, np.int64), [-1])
    return A, A.cast(rois, F32), batch


def num_rois(desc) -> int:
    return int(desc.roi_tensor.sizes[-2])
