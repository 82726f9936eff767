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

Output spatial sizes, per spatial dimension, with DilatedFilter = 1 + (FilterSize - 1) * Dilation:
  FORWARD:  1 + (InputSize + StartPadding + EndPadding - DilatedFilter) / Stride (floor) + OutputPadding
  BACKWARD: (InputSize - 1) * Stride + DilatedFilter - StartPadding - EndPadding + OutputPadding
The docs give no formula; these are DirectMLX's and onnxruntime's (InitializeKernelOutputDimensions /
InitializeKernelOutputDimsTranspose). OutputPadding is added in both directions because the docs say
it "applies a zero padding to the result of the convolution ... to the end of each spatial dimension
of the output tensor" without naming a direction.
"""
from __future__ import annotations

from ..errors import Problem
from ..schema import snake_case
from ..validation import shape_problem, tensor
from ._shapes import sizes

ARRAYS = ("Strides", "Dilations", "StartPadding", "EndPadding", "OutputPadding")
SPATIAL = {1: ["Width"], 2: ["Height", "Width"], 3: ["Depth", "Height", "Width"]}


def check(desc, level) -> list[Problem]:
    """DimensionCount, Strides/Dilations >= 1, GroupCount, FilterTensor, BiasTensor and OutputTensor sizes."""
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
    extents = []
    for i in range(dims):
        args = [arrays[name][i] for name in ARRAYS]
        size = _output_size(backward, x[2 + i], w[2 + i], *args)
        if size < 1:
            out.append(_window_problem(op, backward, spatial[i], x[2 + i], w[2 + i], *args))
        extents.append(size)
    expected = [x[0], out_channels] + extents
    if min(extents) >= 1 and y != expected:
        out.append(shape_problem(desc, "OutputTensor", y,
                                 _braces(["BatchCount", "OutputChannelCount"] + ["Output" + s for s in spatial]),
                                 expected))
    return out


def _braces(parts) -> str:
    return "{" + ", ".join(parts) + "}"


def _output_size(backward, size, filter_size, stride, dilation, start, end, output_padding) -> int:
    window = 1 + (filter_size - 1) * dilation
    if backward:
        return (size - 1) * stride + window - start - end + output_padding
    padded = size + start + end
    if window > padded:
        return 0
    return 1 + (padded - window) // stride + output_padding


def _window_problem(op, backward, dim, size, filter_size, stride, dilation, start, end, output_padding) -> Problem:
    window = 1 + (filter_size - 1) * dilation
    if backward:
        full = (size - 1) * stride + window + output_padding
        return Problem(op, "StartPadding", "window",
                       f"StartPadding + EndPadding = {start + end} in the {dim} dimension leave no output "
                       f"(allowed: at most {full - 1}, one less than the unpadded output extent {full}).")
    return Problem(op, "FilterTensor", "window",
                   f"the dilated filter extent 1 + ({filter_size} - 1) * {dilation} = {window} in the {dim} dimension "
                   f"exceeds the padded input extent {size} + {start} + {end} = {size + start + end}.")
