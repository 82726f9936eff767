"""DML_OPERATOR_CONVOLUTION: shape rules the descriptor file cannot express.

Layouts (docs): InputTensor {BatchCount, InputChannelCount, [InputDepth], [InputHeight], InputWidth},
OutputTensor {BatchCount, OutputChannelCount, spatial...}, BiasTensor {1, OutputChannelCount, 1, ..}.
DimensionCount (the length of Strides, Dilations, StartPadding, EndPadding and OutputPadding) is
InputTensor's DimensionCount - 2.

FilterTensor: FORWARD {OutputChannelCount, InputChannelCount / GroupCount, FilterSpatial...};
BACKWARD (transposed) {InputChannelCount, OutputChannelCount / GroupCount, FilterSpatial...}. The docs
page does not spell the BACKWARD layout out; this is the ONNX ConvTranspose layout that onnxruntime's
DirectML execution provider passes to DML unchanged (OperatorHelper.cpp: output channels =
FilterTensor.Sizes[1] * GroupCount).

Output spatial sizes. The docs give no formula and DirectML does not tie OutputTensor's spatial sizes to one:
it ran a FORWARD convolution whose output was one element longer than
  FORWARD:  1 + (InputSize + StartPadding + EndPadding - DilatedFilter) / Stride (floor) + OutputPadding
(the DirectMLX / onnxruntime formula, DilatedFilter = 1 + (FilterSize - 1) * Dilation; BACKWARD's is
(InputSize - 1) * Stride + DilatedFilter - StartPadding - EndPadding + OutputPadding) and computed the extra
element from a window reaching past EndPadding into zeros (vector edge_forward_output_padding_0_output_too_long).
So DirectML computes, per spatial dimension, the first ComputedSize = OutputSize - OutputPadding elements, each
from its window over the input extended with zeros, and writes OutputPadding zeros after them. The validator
asks for at least one computed element per dimension (OutputPadding < OutputSize), a dilated filter that fits the
padded input (FORWARD) and paddings that leave some output (BACKWARD); what DirectML does beyond that is not known.

Math (the lowerings below), per group, with W flipped along every spatial axis when Mode is
CONVOLUTION (the docs' "Mode interactions" table: CONVOLUTION flips the filter relative to
CROSS_CORRELATION in both directions; onnxruntime's DirectML EP maps ONNX Conv to CROSS_CORRELATION
+ FORWARD and ONNX ConvTranspose to CROSS_CORRELATION + BACKWARD), for o < ComputedSize:
  FORWARD:  Y[n, m, o] = sum_{c, k} Xpad[n, c, o * Stride + k * Dilation] * W[m, c, k], Xpad = X with
            StartPadding zeros before it and zeros after it (EndPadding, or more when the output asks for it);
  BACKWARD: Full[n, m, i * Stride + k * Dilation] += X[n, c, i] * W[c, m, k] (the full transposed
            convolution), Y[n, m, o] = Full[n, m, o + StartPadding] (zero past Full's end). EndPadding only
            shortens the natural output size; it crops nothing from a longer declared output.
Bias ({1, OutputChannelCount, 1, ..}) is added to the computed elements; the OutputPadding elements are zeros
without bias (DirectML's vectors backward_1d_output_padding_bias, edge_*_output_padding_1). This differs from
ONNX/PyTorch output_padding, which (when EndPadding > 0) un-crops real values; onnxruntime's DirectML EP zeroes
OutputPadding before calling DML for that reason (DmlOperatorConvolution.cpp), so ONNX's output_padding p with
pads e maps to EndPadding e - p here.
"""
from __future__ import annotations

import itertools

import numpy as np

from ..errors import Problem
from ..sample import Sample, td
from ..schema import snake_case
from ..validation import shape_problem, tensor
from . import _torch_fused
from ._shapes import sizes

ARRAYS = ("Strides", "Dilations", "StartPadding", "EndPadding", "OutputPadding")
SPATIAL = {1: ["Width"], 2: ["Height", "Width"], 3: ["Depth", "Height", "Width"]}


def check(desc, level) -> list[Problem]:
    """DimensionCount, Strides/Dilations >= 1, GroupCount, FilterTensor, BiasTensor and OutputTensor sizes,
    OutputPadding below the output extent."""
    op = desc.OPERATOR_TYPE
    out = []
    arrays = {name: list(getattr(desc, snake_case(name))) for name in ARRAYS}
    for name in ("Strides", "Dilations"):
        for i, v in enumerate(arrays[name]):
            if v < 1:
                out.append(Problem(op, f"{name}[{i}]", "range", f"{v} is not allowed (allowed: 1 or more)."))
    groups = desc.group_count
    if groups < 1:
        out.append(Problem(op, "GroupCount", "range", f"{groups} is not allowed (allowed: 1 or more)."))
    settled = not out  # the output formula needs Strides, Dilations and GroupCount >= 1

    x = sizes(tensor(desc, "InputTensor"))
    if x is None or not 3 <= len(x) <= 5:
        return out
    rank = len(x)
    counts = {len(v) for v in arrays.values()}
    if len(counts) > 1:
        return out  # the generic validator reports arrays of different lengths
    dims = counts.pop()
    if dims != rank - 2:
        out.append(Problem(op, "DimensionCount", "dimension_count",
                           f"{dims} (the length of {', '.join(ARRAYS[:-1])} and {ARRAYS[-1]}) does not fit a "
                           f"{rank}-dimensional InputTensor (expected: {rank - 2}, its DimensionCount - 2)."))
        return out
    backward = desc.direction.name == "BACKWARD"
    spatial = SPATIAL[dims]
    in_channels = x[1]
    if groups >= 1 and in_channels % groups:
        out.append(Problem(op, "GroupCount", "groups",
                           f"{groups} does not divide InputTensor's channel count {in_channels} (Sizes[1])."))
        settled = False

    w = sizes(tensor(desc, "FilterTensor"), rank)
    out_channels = None
    if w is not None and groups >= 1:
        out_channels = w[1] * groups if backward else w[0]
        if not backward and w[0] % groups:
            out.append(Problem(op, "GroupCount", "groups",
                               f"{groups} does not divide FilterTensor's output channel count {w[0]} (Sizes[0])."))
            settled = False
        if in_channels % groups == 0:
            if backward:
                expected = [in_channels, w[1]] + w[2:]
                names = ["InputChannelCount", "OutputChannelCount / GroupCount"]
            else:
                expected = [w[0], in_channels // groups] + w[2:]
                names = ["OutputChannelCount", "InputChannelCount / GroupCount"]
            if w != expected:
                out.append(shape_problem(desc, "FilterTensor", w, _braces(names + ["Filter" + s for s in spatial]),
                                         expected))
                settled = False

    y = sizes(tensor(desc, "OutputTensor"), rank)
    if out_channels is None and y is not None:
        out_channels = y[1]
    bias = sizes(tensor(desc, "BiasTensor"), rank)
    if bias is not None and out_channels is not None:
        expected = [1, out_channels] + [1] * dims
        if bias != expected:
            out.append(shape_problem(desc, "BiasTensor", bias, _braces(["1", "OutputChannelCount"] + ["1"] * dims),
                                     expected))

    if w is None or y is None or not settled:
        return out
    for i in range(dims):
        args = [arrays[name][i] for name in ARRAYS[:-1]]
        if _natural_size(backward, x[2 + i], w[2 + i], *args) < 1:
            out.append(_window_problem(op, backward, spatial[i], x[2 + i], w[2 + i], *args))
    # DirectML computes any declared spatial extent (module docstring); batch and channels are fixed.
    assert out_channels is not None  # FilterTensor's, else OutputTensor's (present here)
    expected = [x[0], out_channels] + y[2:]
    if y != expected:
        out.append(shape_problem(desc, "OutputTensor", y,
                                 _braces(["BatchCount", "OutputChannelCount"] + ["Output" + s for s in spatial]),
                                 expected))
    for i, (size, padding) in enumerate(zip(y[2:], arrays["OutputPadding"])):
        if padding >= size:
            out.append(Problem(op, f"OutputPadding[{i}]", "output_padding",
                               f"{padding} leaves no computed element in the {spatial[i]} dimension of OutputTensor "
                               f"(Sizes[{2 + i}] = {size}); allowed: less than {size}."))
    return out


def _braces(parts) -> str:
    return "{" + ", ".join(parts) + "}"


def _natural_size(backward, size, filter_size, stride, dilation, start, end) -> int:
    """The output extent the DirectMLX / onnxruntime formulas give without OutputPadding (< 1: none)."""
    window = 1 + (filter_size - 1) * dilation
    if backward:
        return (size - 1) * stride + window - start - end
    padded = size + start + end
    if window > padded:
        return 0
    return 1 + (padded - window) // stride


def _window_problem(op, backward, dim, size, filter_size, stride, dilation, start, end) -> Problem:
    window = 1 + (filter_size - 1) * dilation
    if backward:
        full = (size - 1) * stride + window
        return Problem(op, "StartPadding", "window",
                       f"StartPadding + EndPadding = {start + end} in the {dim} dimension leave no output "
                       f"(allowed: at most {full - 1}, one less than the unpadded output extent {full}).")
    return Problem(op, "FilterTensor", "window",
                   f"the dilated filter extent 1 + ({filter_size} - 1) * {dilation} = {window} in the {dim} dimension "
                   f"exceeds the padded input extent {size} + {start} + {end} = {size + start + end}.")


def _flip(desc) -> bool:
    return desc.mode.name == "CONVOLUTION"


def _backward(desc) -> bool:
    return desc.direction.name == "BACKWARD"


def _computed_sizes(desc) -> list[int]:
    """The spatial extents DirectML computes: the declared sizes minus OutputPadding (zeros after them)."""
    return [s - p for s, p in zip(desc.output_tensor.sizes[2:], desc.output_padding)]


def _forward_end_padding(desc) -> list[int]:
    """EndPadding, grown where the computed extent reaches past the padded input (DirectML reads zeros there)."""
    x, w = desc.input_tensor.sizes[2:], desc.filter_tensor.sizes[2:]
    out = []
    for size, k, stride, dilation, start, end, computed in zip(x, w, desc.strides, desc.dilations, desc.start_padding,
                                                              desc.end_padding, _computed_sizes(desc)):
        needed = (computed - 1) * stride + (k - 1) * dilation + 1 - size - start
        out.append(max(end, needed))
    return out


def _full_sizes(desc) -> list[int]:
    """The extents of the full (uncropped) transposed convolution of BACKWARD."""
    return [(s - 1) * st + (k - 1) * d + 1 for s, st, k, d in
            zip(desc.input_tensor.sizes[2:], desc.strides, desc.filter_tensor.sizes[2:], desc.dilations)]


def _windows(size, count, stride):
    """The slice that picks ``count`` elements ``stride`` apart from ``size`` onwards."""
    return slice(size, size + (count - 1) * stride + 1, stride)


def reference(desc, x):
    """Direct (shift-and-accumulate) convolution in float64, one einsum per filter offset."""
    v, w = x["InputTensor"].astype(np.float64), x["FilterTensor"].astype(np.float64)
    dims, groups = len(desc.strides), desc.group_count
    spatial = tuple(range(2, 2 + dims))
    if _flip(desc):
        w = np.flip(w, spatial)
    n, c = v.shape[:2]
    vg = v.reshape(n, groups, c // groups, *v.shape[2:])
    kernel = w.shape[2:]
    computed = _computed_sizes(desc)
    if _backward(desc):
        # W is {C, M / groups, K..}: scatter each input element into the full output, then take ComputedSize
        # elements from StartPadding on (zeros past the full output's end).
        wg = w.reshape(groups, c // groups, *w.shape[1:])
        full = _full_sizes(desc)
        size = [max(f, a + e) for f, a, e in zip(full, desc.start_padding, computed)]
        acc = np.zeros((n, groups, w.shape[1], *size))
        for k in itertools.product(*map(range, kernel)):
            where = tuple(_windows(ki * d, s, st) for ki, d, s, st in zip(k, desc.dilations, v.shape[2:], desc.strides))
            acc[(Ellipsis, *where)] += np.einsum("ngc...,gcm->ngm...", vg, wg[(Ellipsis, *k)])
        acc = acc[(Ellipsis, *(slice(a, a + e) for a, e in zip(desc.start_padding, computed)))]
    else:
        # W is {M, C / groups, K..}: gather one strided window of the padded input per filter offset.
        m = w.shape[0]
        wg = w.reshape(groups, m // groups, *w.shape[1:])
        vg = np.pad(vg, [(0, 0)] * 3 + list(zip(desc.start_padding, _forward_end_padding(desc))))
        acc = np.zeros((n, groups, m // groups, *computed))
        for k in itertools.product(*map(range, kernel)):
            where = tuple(_windows(ki * d, o, st) for ki, d, o, st in zip(k, desc.dilations, computed, desc.strides))
            acc += np.einsum("ngc...,gmc->ngm...", vg[(Ellipsis, *where)], wg[(Ellipsis, *k)])
    acc = acc.reshape(n, -1, *acc.shape[3:])
    if x["BiasTensor"] is not None:
        acc = acc + x["BiasTensor"].astype(np.float64)
    y = np.zeros(desc.output_tensor.sizes)
    y[(Ellipsis, *(slice(0, s) for s in computed))] = acc  # OutputPadding: zeros, without bias (DirectML)
    return {"OutputTensor": y}


def to_onnx(desc, g, x):
    """ONNX Conv / ConvTranspose (Slice with step -1 flips W for Mode CONVOLUTION), Slice / Pad to the computed
    extent, Add bias, Pad for OutputPadding."""
    w = x["FilterTensor"]
    dims = len(desc.strides)
    axes = list(range(2, 2 + dims))
    if _flip(desc):
        big = np.iinfo(np.int64).max
        w = g.node("Slice", [w, g.ints([-1] * dims), g.ints([-big] * dims), g.ints(axes), g.ints([-1] * dims)])
    computed = _computed_sizes(desc)
    kw = dict(strides=list(desc.strides), dilations=list(desc.dilations), group=desc.group_count)
    if _backward(desc):
        # ConvTranspose crops StartPadding, and as much of the end as leaves the computed extent (or none).
        full = _full_sizes(desc)
        end = [max(f - a - e, 0) for f, a, e in zip(full, desc.start_padding, computed)]
        y = g.node("ConvTranspose", [x["InputTensor"], w], pads=list(desc.start_padding) + end, **kw)
        natural = [f - a - b for f, a, b in zip(full, desc.start_padding, end)]
    else:
        end = _forward_end_padding(desc)
        y = g.node("Conv", [x["InputTensor"], w], pads=list(desc.start_padding) + end, **kw)
        natural = [_natural_size(False, s, k, st, d, a, b) for s, k, st, d, a, b in
                   zip(desc.input_tensor.sizes[2:], desc.filter_tensor.sizes[2:], desc.strides, desc.dilations,
                       desc.start_padding, end)]
    if any(n > c for n, c in zip(natural, computed)):
        y = g.node("Slice", [y, g.ints([0] * dims), g.ints(computed), g.ints(axes)])
    if any(n < c for n, c in zip(natural, computed)):  # BACKWARD past the full output: zeros
        y = g.node("Pad", [y, g.ints([0] * (dims + 2) + [0, 0] + [max(c - n, 0) for n, c in zip(natural, computed)])],
                   mode="constant")
    if x["BiasTensor"] is not None:
        y = g.node("Add", [y, x["BiasTensor"]])
    if any(desc.output_padding):  # zeros without bias (DirectML)
        y = g.node("Pad", [y, g.ints([0] * (dims + 2) + [0, 0] + list(desc.output_padding))], mode="constant")
    return {"OutputTensor": y}


# The torch lowering: one framework call (issue 22 item 2) ----------------------------------------------------------
# torch pads symmetrically: F.conv{1,2,3}d(padding=p) reads the input with p zeros on both sides, and
# F.conv_transpose{1,2,3}d(padding=p, output_padding=q) is Full[p : Full - p + q] (Full extended with zeros; q must be
# below the stride or the dilation). DirectML's window o reads from o * Stride - StartPadding on, over zeros outside
# the input whatever EndPadding says (EndPadding only sizes the natural output), and BACKWARD is
# Full[StartPadding : StartPadding + ComputedSize]. So with p = StartPadding both are torch's output, cut to
# ComputedSize (a view) where torch's is longer: one call whenever torch's output is at least that long (FORWARD:
# the padded input holds the dilated filter; BACKWARD: an output_padding below the stride or dilation makes up any
# shortfall). Otherwise the input is padded explicitly first (FORWARD) or the full transposed output cropped and
# padded (BACKWARD). A padded depthwise convolution (one channel per group) is padded explicitly too: torch's CPU
# depthwise kernel skips the padded taps, so an infinite filter tap over the padding gave 0 where every other
# backend, and torch's own other kernels, multiply the padding's zeros (NaN).


def _torch_call(desc):
    """(padding, output_padding) of the one torch call that gives DirectML's computed elements (see above), or None."""
    window = [1 + (k - 1) * d for k, d in zip(desc.filter_tensor.sizes[2:], desc.dilations)]
    computed, start = _computed_sizes(desc), list(desc.start_padding)
    if not _backward(desc):
        if any(w > s + 2 * p or 1 + (s + 2 * p - w) // st < c for s, w, p, st, c in
               zip(desc.input_tensor.sizes[2:], window, start, desc.strides, computed)):
            return None
        return start, None
    extra = [max(c - (f - 2 * p), 0) for f, p, c in zip(_full_sizes(desc), start, computed)]
    if any(f - 2 * p + q < 1 or q >= max(st, d) for f, p, q, st, d in
           zip(_full_sizes(desc), start, extra, desc.strides, desc.dilations)):
        return None
    return start, extra


def _depthwise(desc) -> bool:
    """One input and one output channel per group (torch's depthwise kernels)."""
    channels = desc.input_tensor.sizes[1]
    return desc.group_count == channels == desc.filter_tensor.sizes[0] and channels > 1


TORCH_APPLIES_FUSED_ACTIVATION = True  # lower_torch leaves FusedActivation to to_torch (_torch_fused)


def to_torch(desc, torch, x):
    """One F.conv{1,2,3}d / F.conv_transpose{1,2,3}d call with the bias (see above; the general path pads or crops
    explicitly), OutputPadding's zeros after it, FusedActivation in place."""
    f = torch.nn.functional
    v, w, bias = x["InputTensor"], x["FilterTensor"], x["BiasTensor"]
    dims = len(desc.strides)
    if _flip(desc):
        w = torch.flip(w, list(range(2, 2 + dims)))
    b = None if bias is None else bias.reshape(-1)
    kw = dict(stride=list(desc.strides), dilation=list(desc.dilations), groups=desc.group_count)
    computed = _computed_sizes(desc)
    call = _torch_call(desc)
    if call is not None and not _backward(desc) and any(call[0]) and _depthwise(desc):
        call = None  # torch's depthwise kernels skip padded taps: an infinite filter tap there gave 0, not NaN
    with _torch_fused.exact_float32(torch, v.device):
        if call is not None and not _backward(desc):
            y = getattr(f, f"conv{dims}d")(v, w, b, padding=call[0], **kw)
        elif call is not None:
            y = getattr(f, f"conv_transpose{dims}d")(v, w, b, padding=call[0], output_padding=call[1], **kw)
        elif not _backward(desc):
            # F.pad takes (start, end) pairs from the last dimension backwards.
            pads = [p for a, e in zip(reversed(desc.start_padding), reversed(_forward_end_padding(desc)))
                    for p in (a, e)]
            y = getattr(f, f"conv{dims}d")(f.pad(v, pads), w, b, **kw)
        else:
            y = getattr(f, f"conv_transpose{dims}d")(v, w, **kw)
            y = y[(Ellipsis, *(slice(a, a + c) for a, c in zip(desc.start_padding, computed)))]
            short = [c - s for c, s in zip(computed, y.shape[2:])]
            if any(short):  # past the full output: zeros, then the bias on them too
                y = f.pad(y, [p for s in reversed(short) for p in (0, s)])
            if bias is not None:
                y = y + bias
    if any(s > c for s, c in zip(y.shape[2:], computed)):
        y = y[(Ellipsis, *(slice(0, c) for c in computed))]
    if any(desc.output_padding):  # zeros without bias (DirectML)
        y = f.pad(y, [p for o in reversed(desc.output_padding) for p in (0, o)])
    return {"OutputTensor": _torch_fused.fused_activation_(desc, torch, y)}


def _conv(x, w, y, bias=False, mode="CROSS_CORRELATION", direction="FORWARD", strides=None, dilations=None,
          start=None, end=None, output_padding=None, groups=1, act=None, strides_x=None):
    from ..descs import Convolution

    dims = len(x) - 2
    zeros, ones = (0,) * dims, (1,) * dims
    return Convolution(
        input_tensor=td("FLOAT32", x, strides_x), filter_tensor=td("FLOAT32", w),
        bias_tensor=td("FLOAT32", [1, y[1]] + [1] * dims) if bias else None, output_tensor=td("FLOAT32", y),
        mode=mode, direction=direction, strides=strides or ones, dilations=dilations or ones,
        start_padding=start or zeros, end_padding=end or zeros, output_padding=output_padding or zeros,
        group_count=groups, fused_activation=act)


def _samples():
    from ..descs import ActivationRelu

    rng = np.random.default_rng(11)

    def r(*shape):
        return rng.uniform(-1, 1, shape).astype(np.float32)

    f32 = np.float32
    ramp = np.array([[[1, 2, 3, 4, 5]]], f32)
    w2 = np.array([[[[1, 2], [3, 4]]]], f32)
    x2 = np.array([[[[1, 2], [3, 4]]]], f32)
    exact = dict(atol=0, rtol=0, float16_atol=0, float16_rtol=0, why="small integers: exact")
    return [
        # By hand: cross-correlation with W = [1, 0, -1] gives x[i] - x[i + 2] = -2, plus bias 10.
        Sample("cross_correlation_1d_bias", _conv([1, 1, 5], [1, 1, 3], [1, 1, 3], bias=True),
               {"InputTensor": ramp, "FilterTensor": np.array([[[1, 0, -1]]], f32),
                "BiasTensor": np.array([[[10]]], f32)},
               {"OutputTensor": np.array([[[8, 8, 8]]], f32)}, **exact),
        # By hand: Mode CONVOLUTION flips W to [-1, 0, 1]: x[i + 2] - x[i] = 2.
        Sample("convolution_mode_1d", _conv([1, 1, 5], [1, 1, 3], [1, 1, 3], mode="CONVOLUTION"),
               {"InputTensor": ramp, "FilterTensor": np.array([[[1, 0, -1]]], f32)},
               {"OutputTensor": np.array([[[2, 2, 2]]], f32)}, **exact),
        # By hand: transposed, stride 2, 2x2 filter: each input value v writes the block v * W into its own 2x2 tile.
        Sample("backward_2d_stride2", _conv([1, 1, 2, 2], [1, 1, 2, 2], [1, 1, 4, 4], direction="BACKWARD",
                                            strides=(2, 2)),
               {"InputTensor": x2, "FilterTensor": w2},
               {"OutputTensor": np.array([[[[1, 2, 2, 4], [3, 4, 6, 8], [3, 6, 4, 8], [9, 12, 12, 16]]]], f32)},
               **exact),
        # By hand: BACKWARD with Mode CONVOLUTION writes the flipped block v * [[4, 3], [2, 1]].
        Sample("backward_2d_convolution_mode", _conv([1, 1, 2, 2], [1, 1, 2, 2], [1, 1, 4, 4], mode="CONVOLUTION",
                                                     direction="BACKWARD", strides=(2, 2)),
               {"InputTensor": x2, "FilterTensor": w2},
               {"OutputTensor": np.array([[[[4, 3, 8, 6], [2, 1, 4, 2], [12, 9, 16, 12], [6, 3, 8, 4]]]], f32)},
               **exact),
        # By hand: x = [1, 2], W = [1, 1], stride 2: full output [1, 1, 2, 2]; the bias 1 is added to it;
        # OutputPadding appends one zero, without bias (DirectML's answer).
        Sample("backward_1d_output_padding_bias", _conv([1, 1, 2], [1, 1, 2], [1, 1, 5], bias=True,
                                                        direction="BACKWARD", strides=(2,), output_padding=(1,)),
               {"InputTensor": np.array([[[1, 2]]], f32), "FilterTensor": np.array([[[1, 1]]], f32),
                "BiasTensor": np.array([[[1]]], f32)},
               {"OutputTensor": np.array([[[2, 2, 3, 3, 0]]], f32)}, **exact),
        # By hand: start padding 1 and end padding 2 around [1, 2, 3] with W = [1, 1]: [0+1, 1+2, 2+3, 3+0, 0+0].
        Sample("forward_1d_asymmetric_padding", _conv([1, 1, 3], [1, 1, 2], [1, 1, 5], start=(1,), end=(2,)),
               {"InputTensor": np.array([[[1, 2, 3]]], f32), "FilterTensor": np.array([[[1, 1]]], f32)},
               {"OutputTensor": np.array([[[1, 3, 5, 3, 0]]], f32)}, **exact),
        Sample("forward_2d_strides_dilations_padding_groups_bias",
               _conv([2, 4, 7, 6], [6, 2, 3, 2], [2, 6, 3, 5], bias=True, strides=(2, 1), dilations=(2, 2),
                     start=(1, 0), end=(2, 1), groups=2),
               {"InputTensor": r(2, 4, 7, 6), "FilterTensor": r(6, 2, 3, 2), "BiasTensor": r(1, 6, 1, 1)}),
        Sample("forward_2d_output_padding_fused_relu",
               _conv([1, 2, 4, 4], [3, 2, 3, 3], [1, 3, 3, 4], bias=True, start=(1, 1), end=(1, 1), strides=(2, 2),
                     output_padding=(1, 2), act=ActivationRelu()),
               {"InputTensor": r(1, 2, 4, 4), "FilterTensor": r(3, 2, 3, 3), "BiasTensor": r(1, 3, 1, 1)}),
        Sample("depthwise_2d_convolution_mode", _conv([1, 3, 5, 5], [3, 1, 3, 3], [1, 3, 5, 5], mode="CONVOLUTION",
                                                      start=(1, 1), end=(1, 1), groups=3),
               {"InputTensor": r(1, 3, 5, 5), "FilterTensor": r(3, 1, 3, 3)}),
        # NHWC storage: InputTensor {N, C, H, W} = {1, 2, 3, 3} read channel-last through strides {18, 1, 6, 2}.
        Sample("forward_2d_nhwc_strided_input",
               _conv([1, 2, 3, 3], [2, 2, 2, 2], [1, 2, 2, 2], strides_x=[18, 1, 6, 2]),
               {"InputTensor": r(18), "FilterTensor": r(2, 2, 2, 2)}),
        Sample("backward_2d_padding_dilation_groups_output_padding_bias",
               _conv([2, 4, 3, 4], [4, 3, 3, 2], [2, 6, 7, 10], bias=True, direction="BACKWARD", strides=(2, 3),
                     dilations=(2, 1), start=(1, 0), end=(2, 1), output_padding=(1, 0), groups=2),
               {"InputTensor": r(2, 4, 3, 4), "FilterTensor": r(4, 3, 3, 2), "BiasTensor": r(1, 6, 1, 1)}),
        Sample("forward_3d", _conv([1, 2, 4, 5, 3], [2, 2, 2, 3, 2], [1, 2, 4, 2, 3], bias=True, strides=(1, 2, 1),
                                   start=(1, 0, 1), end=(0, 1, 0)),
               {"InputTensor": r(1, 2, 4, 5, 3), "FilterTensor": r(2, 2, 2, 3, 2), "BiasTensor": r(1, 2, 1, 1, 1)}),
        Sample("backward_3d_convolution_mode_groups",
               _conv([1, 2, 2, 3, 2], [2, 2, 2, 2, 2], [1, 4, 3, 5, 4], mode="CONVOLUTION", direction="BACKWARD",
                     strides=(1, 2, 2), start=(0, 1, 0), end=(0, 0, 0), groups=2),
               {"InputTensor": r(1, 2, 2, 3, 2), "FilterTensor": r(2, 2, 2, 2, 2)}),
    ]


SAMPLES = _samples()
