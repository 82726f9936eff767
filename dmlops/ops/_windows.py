"""Shape rules shared by the sliding-window, resample, ROI and quantized check() hooks.

One place for the relations that many DirectML pages repeat:

* Sliding windows (pooling, pooling grads, quantized average pooling, FOLD / UNFOLD, integer convolutions):
  DimensionCount (the length of Strides, WindowSize, StartPadding, EndPadding[, Dilations]) is the
  InputTensor's DimensionCount - 2; Strides, WindowSize and Dilations are at least 1; and, per spatial
  dimension, with DilatedWindow = 1 + (WindowSize - 1) * Dilation and PaddedSize = InputSize + StartPadding
  + EndPadding, the output extent is (PaddedSize - DilatedWindow) / Stride + 1 (integer division: floor).
  The pooling pages print this formula without Dilations; DirectML's answers for the pooling versions that
  have Dilations (AVERAGE_POOLING1, LP_POOLING1, MAX_POOLING2: window 2, dilation 2 over 5 x 6 gives 3 x 4)
  use the dilated window, as FOLD / UNFOLD's pages write it. The formula is computed in UINT, so a dilated
  window larger than the padded input has no output: that is reported as its own problem. A window made
  only of padding is allowed (DirectML ran MAX_POOLING over a 1 x 1 input with padding 1 and window 1,
  giving 3 x 3: vector float32_fixed_twin_of_gap_rank4, by its name the corrected twin of a refused rank-4
  descriptor). The integer convolutions check the window but, like CONVOLUTION, leave their spatial output
  sizes free (convolution_problems).
* Resampling: Scales (and the pixel-offset arrays) have one value per dimension of InputTensor, and every
  scale is positive. OutputTensor's Sizes need not be floor(InputSize * Scale): the RESAMPLE pages say
  "the scales don't need to be exactly OutputSize / InputSize" (DirectML crops or clamps at the edges),
  and onnxruntime's DirectML EP passes OutputSize / InputSize rounded to float, whose product with
  InputSize may fall just below the integer.
* Regions of interest: ROITensor {[1], [1], NumROIs, 4 or 5}, BatchIndicesTensor {[1], [1], [1], NumROIs}.
* Quantization parameters: {1, 1, 1, 1} (per tensor) or, where the page allows it, {1, ChannelCount, 1, 1}
  (per channel); tensors of fewer dimensions are these Sizes without leading dimensions.

Helpers look only at tensors that are present and of the rank the relation needs (the generic validator
reports missing tensors, ranks and data types) and never raise.
"""
from __future__ import annotations

from ..errors import Problem
from ..schema import snake_case
from ..validation import shape_problem, tensor
from ._shapes import sizes

SPATIAL = {1: ["Width"], 2: ["Height", "Width"], 3: ["Depth", "Height", "Width"]}
UINT_MAX = 2**32 - 1


def braces(parts) -> str:
    """``{a, b, c}`` from a list of names."""
    return "{" + ", ".join(str(p) for p in parts) + "}"


def join(names) -> str:
    """``A``, ``A and B``, ``A, B and C``."""
    names = list(names)
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


def where(dims: int, i: int) -> str:
    """``the Height dimension`` (up to 3 spatial dimensions) or ``spatial dimension 4``."""
    names = SPATIAL.get(dims)
    return f"the {names[i]} dimension" if names else f"spatial dimension {i}"


def has(desc, name: str) -> bool:
    return hasattr(desc, snake_case(name))


def values(desc, name: str) -> list:
    return list(getattr(desc, snake_case(name)))


def first(desc, names):
    """(name, Sizes) of the first present tensor among ``names``, or (None, None)."""
    for name in names:
        found = sizes(tensor(desc, name))
        if found is not None:
            return name, found
    return None, None


def at_least_one(desc, names) -> list[Problem]:
    """Each value of the arrays ``names`` (those the operator has) is at least 1."""
    out = []
    for name in names:
        if not has(desc, name):
            continue
        for i, v in enumerate(values(desc, name)):
            if v < 1:
                out.append(Problem(desc.OPERATOR_TYPE, f"{name}[{i}]", "range",
                                   f"{v} is not allowed (allowed: 1 or more)."))
    return out


def dimension_count_problem(desc, arrays, dims: int, rank: int, source: str, spatial: bool = True,
                            field: str = "DimensionCount") -> Problem:
    """``DimensionCount`` (the length of the arrays) does not fit ``source``'s rank."""
    expected, how = (rank - 2, "its DimensionCount - 2") if spatial else (rank, "its DimensionCount")
    return Problem(desc.OPERATOR_TYPE, field, "dimension_count",
                   f"{dims} (the length of {join(arrays)}) does not fit {'an' if rank in (8, 11, 18) else 'a'} "
                   f"{rank}-dimensional {source} (expected: {expected}, {how}).")


def window_extents(desc, spatial_sizes, arrays: dict, window: str, source: str, noun: str = "window"):
    """(output extents or None, problems): (Padded - DilatedWindow) / Stride + 1 per spatial dimension."""
    op = desc.OPERATOR_TYPE
    dims = len(spatial_sizes)
    dilations = arrays.get("Dilations")
    out, extents = [], []
    for i, size in enumerate(spatial_sizes):
        k, stride = arrays[window][i], arrays["Strides"][i]
        start, end = arrays["StartPadding"][i], arrays["EndPadding"][i]
        d = dilations[i] if dilations is not None else 1
        extent = 1 + (k - 1) * d
        padded = size + start + end
        if extent > padded:
            what = (f"the dilated {noun} extent 1 + ({k} - 1) * {d} = {extent}" if dilations is not None
                    else f"the {noun} extent {k}")
            out.append(Problem(op, window if noun == "window" else "FilterTensor", "window",
                               f"{what} in {where(dims, i)} exceeds the padded {source} extent "
                               f"{size} + {start} + {end} = {padded}."))
        extents.append((padded - extent) // stride + 1)
    return (None if out else extents), out


def pooling_problems(desc, sources=("InputTensor",), targets=("OutputTensor",), window: str = "WindowSize"):
    """The sliding-window rules of the pooling pages; ``targets`` get {BatchCount, ChannelCount, Output...}.

    ``sources`` are tried in order for the tensor whose Sizes the window slides over (a grad operator may
    know them from two tensors).
    """
    names = [n for n in ("Strides", window, "StartPadding", "EndPadding", "Dilations") if has(desc, n)]
    out = at_least_one(desc, ["Strides", window, "Dilations"])
    source, x = first(desc, sources)
    if x is None or len(x) not in (4, 5):
        return out
    arrays = {n: values(desc, n) for n in names}
    if len({len(v) for v in arrays.values()}) > 1:
        return out  # the generic validator reports arrays of different lengths
    dims, rank = len(arrays["Strides"]), len(x)
    if dims != rank - 2:
        out.append(dimension_count_problem(desc, names, dims, rank, source))
        return out
    if out:
        return out  # a zero stride, window or dilation leaves the output size undefined
    extents, problems = window_extents(desc, x[2:], arrays, window, source)
    out += problems
    if extents is None:
        return out
    expected = x[:2] + extents
    formula = braces(["BatchCount", "ChannelCount"] + ["Output" + s for s in SPATIAL[dims]])
    for name in targets:
        y = sizes(tensor(desc, name), rank)
        if y is not None and y != expected:
            out.append(shape_problem(desc, name, y, formula, expected))
    return out


def p_problems(desc) -> list[Problem]:
    """LP_POOLING(1).P is at least 1: Y = (X1^P + ... + Xn^P) ^ (1/P) has no value for P = 0."""
    if desc.p >= 1:
        return []
    return [Problem(desc.OPERATOR_TYPE, "P", "range", f"{desc.p} is not allowed (allowed: 1 or more).")]


def positive_scales(desc) -> list[Problem]:
    """Every value of Scales is greater than 0 (NaN is not)."""
    return [Problem(desc.OPERATOR_TYPE, f"Scales[{i}]", "range", f"{v} is not allowed (allowed: greater than 0).")
            for i, v in enumerate(desc.scales) if not v > 0]


def resample_problems(desc, sources=("InputTensor", "OutputTensor"), field: str = "DimensionCount") -> list[Problem]:
    """Scales positive, and one value per dimension of the tensors (the count is ``field``)."""
    names = [n for n in ("Scales", "InputPixelOffsets", "OutputPixelOffsets") if has(desc, n)]
    out = positive_scales(desc)
    lengths = {len(values(desc, n)) for n in names}
    source, x = first(desc, sources)
    if x is None or len(lengths) > 1:
        return out
    n = lengths.pop()
    if n != len(x):
        out.append(dimension_count_problem(desc, names, n, len(x), source, spatial=False, field=field))
    return out


def roi_count(desc, width: int, field: str = "ROITensor", ranks=(2, 3, 4)):
    """(NumROIs or None, problems): ``field`` is {[1], [1], NumROIs, width}."""
    r = sizes(tensor(desc, field))
    if r is None or len(r) not in ranks:
        return None, []
    n = r[-2]
    expected = [1] * (len(r) - 2) + [n, width]
    if r == expected:
        return n, []
    return n, [shape_problem(desc, field, r, braces(["1"] * (len(r) - 2) + ["NumROIs", width]), expected)]


def batch_indices_problems(desc, num_rois: int | None, field: str = "BatchIndicesTensor") -> list[Problem]:
    """``field`` is {[1], [1], [1], NumROIs}."""
    b = sizes(tensor(desc, field))
    if b is None or num_rois is None or not 1 <= len(b) <= 4:
        return []
    expected = [1] * (len(b) - 1) + [num_rois]
    if b == expected:
        return []
    return [shape_problem(desc, field, b, braces(["1"] * (len(b) - 1) + ["NumROIs"]), expected)]


def roi_output_problem(desc, field: str, num_rois: int | None, channels: int | None, channel_label: str):
    """``field`` (4-D) is {NumROIs, ChannelCount, OutputHeight, OutputWidth}."""
    y = sizes(tensor(desc, field), 4)
    if y is None or (num_rois is None and channels is None):
        return []
    expected = [num_rois if num_rois is not None else y[0], channels if channels is not None else y[1]] + y[2:]
    if y == expected:
        return []
    return [shape_problem(desc, field, y, braces(["NumROIs", channel_label, "OutputHeight", "OutputWidth"]), expected)]


def quantization_problems(desc, names, rank: int | None, channels: int | None = None,
                          channel_label: str | None = None) -> list[Problem]:
    """Each present tensor of ``names`` is {1, 1, 1, 1} (per tensor) or, when ``channel_label`` is given,
    {1, ChannelCount, 1, 1} (per channel) for a ``rank``-dimensional main tensor; fewer dimensions drop
    leading ones (a per-channel tensor keeps its channel dimension)."""
    out = []
    for name in names:
        t = tensor(desc, name)
        if t is None or rank is None:
            continue
        found = list(t.sizes)
        k = len(found)
        ones = [1] * k
        if found == ones:
            continue
        if channel_label is None or k < rank - 1:
            out.append(shape_problem(desc, name, found, braces(["1"] * k), ones))
            continue
        if channels is None:
            continue  # the channel count is unknown: only all-ones Sizes could be judged
        pad = max(0, k - rank)
        expected = ([1] * pad + [1, channels] + [1] * (rank - 2))[-k:]
        labels = (["1"] * pad + ["1", channel_label] + ["1"] * (rank - 2))[-k:]
        if found != expected:
            out.append(Problem(desc.OPERATOR_TYPE, name, "shape",
                               f"Sizes {found} match neither {braces(['1'] * k)} (per tensor) nor "
                               f"{braces(labels)} = {expected} (per channel)."))
    return out


def convolution_problems(desc):
    """(problems, OutputChannelCount or None, rank or None) for a FORWARD convolution (the integer ones).

    InputTensor {BatchCount, InputChannelCount, [InputHeight], InputWidth}; FilterTensor {OutputChannelCount,
    InputChannelCount / GroupCount, [FilterHeight], FilterWidth}; OutputTensor {BatchCount, OutputChannelCount,
    [OutputHeight], OutputWidth}; GroupCount divides both channel counts; the dilated filter fits the padded
    input. The spatial output sizes are left free, as for CONVOLUTION, where DirectML computed an output one
    element longer than the sliding-window formula (vector edge_forward_output_padding_0_output_too_long).
    """
    op = desc.OPERATOR_TYPE
    names = ["Strides", "Dilations", "StartPadding", "EndPadding"]
    out = at_least_one(desc, ["Strides", "Dilations"])
    groups = desc.group_count
    if groups < 1:
        out.append(Problem(op, "GroupCount", "range", f"{groups} is not allowed (allowed: 1 or more)."))
    settled = not out
    x = sizes(tensor(desc, "InputTensor"))
    if x is None or len(x) not in (3, 4):
        return out, None, None
    rank = len(x)
    arrays = {n: values(desc, n) for n in names}
    if len({len(v) for v in arrays.values()}) > 1:
        return out, None, rank
    dims = len(arrays["Strides"])
    if dims != rank - 2:
        out.append(dimension_count_problem(desc, names, dims, rank, "InputTensor"))
        return out, None, rank
    spatial = SPATIAL[dims]
    in_channels = x[1]
    if groups >= 1 and in_channels % groups:
        out.append(Problem(op, "GroupCount", "groups",
                           f"{groups} does not divide InputTensor's channel count {in_channels} (Sizes[1])."))
        settled = False
    w = sizes(tensor(desc, "FilterTensor"), rank)
    y = sizes(tensor(desc, "OutputTensor"), rank)
    out_channels = w[0] if w is not None else (y[1] if y is not None else None)
    if w is not None and groups >= 1:
        if w[0] % groups:
            out.append(Problem(op, "GroupCount", "groups",
                               f"{groups} does not divide FilterTensor's output channel count {w[0]} (Sizes[0])."))
            settled = False
        if in_channels % groups == 0:
            expected = [w[0], in_channels // groups] + w[2:]
            if w != expected:
                out.append(shape_problem(desc, "FilterTensor", w, braces(
                    ["OutputChannelCount", "InputChannelCount / GroupCount"] + ["Filter" + s for s in spatial]),
                    expected))
                settled = False
    if w is None or y is None or not settled:
        return out, out_channels, rank
    arrays["WindowSize"] = w[2:]
    out += window_extents(desc, x[2:], arrays, "WindowSize", "input", noun="filter")[1]
    # As CONVOLUTION (dmlops/ops/convolution.py): DirectML computes any declared spatial extent; batch and
    # channels are fixed.
    expected = [x[0], w[0]] + y[2:]
    if y != expected:
        out.append(shape_problem(desc, "OutputTensor", y, braces(
            ["BatchCount", "OutputChannelCount"] + ["Output" + s for s in spatial]), expected))
    return out, out_channels, rank


def roi_align_attribute_problems(desc) -> list[Problem]:
    """ReductionFunction is AVERAGE or MAX; MinimumSamplesPerOutput <= MaximumSamplesPerOutput (the clamp bounds)."""
    op = desc.OPERATOR_TYPE
    out = []
    if desc.reduction_function.name not in ("AVERAGE", "MAX"):
        out.append(Problem(op, "ReductionFunction", "enum",
                           f"{desc.reduction_function.dml_name} is not allowed "
                           "(allowed: DML_REDUCE_FUNCTION_AVERAGE or DML_REDUCE_FUNCTION_MAX)."))
    low, high = desc.minimum_samples_per_output, desc.maximum_samples_per_output
    if low > high:
        out.append(Problem(op, "MinimumSamplesPerOutput", "range",
                           f"{low} is greater than MaximumSamplesPerOutput {high} (allowed: at most {high}; the "
                           "sample count is clamped to [MinimumSamplesPerOutput, MaximumSamplesPerOutput])."))
    return out


def roi_align_problems(desc) -> list[Problem]:
    """ROI_ALIGN / ROI_ALIGN1: attributes, ROITensor, BatchIndicesTensor and OutputTensor
    {NumROIs, ChannelCount, OutputHeight, OutputWidth}."""
    out = roi_align_attribute_problems(desc)
    num_rois, problems = roi_count(desc, 4)
    out += problems + batch_indices_problems(desc, num_rois)
    x = sizes(tensor(desc, "InputTensor"), 4)
    out += roi_output_problem(desc, "OutputTensor", num_rois, x[1] if x is not None else None, "ChannelCount")
    return out


def fold_problems(desc, unfold: bool) -> list[Problem]:
    """FOLD / UNFOLD: the image tensor {BatchCount, ChannelCount, Spatial...} has DimensionCount + 2 dimensions;
    the column tensor is {BatchCount, ChannelCount * prod(WindowSizes), BlockCount}, BlockCount = prod over d of
    (Spatial[d] + StartPadding[d] + EndPadding[d] - Dilations[d] * (WindowSizes[d] - 1) - 1) / Strides[d] + 1."""
    op = desc.OPERATOR_TYPE
    names = ["WindowSizes", "Strides", "Dilations", "StartPadding", "EndPadding"]
    image, columns = ("InputTensor", "OutputTensor") if unfold else ("OutputTensor", "InputTensor")
    out = at_least_one(desc, ["WindowSizes", "Strides", "Dilations"])
    settled = not out  # a zero window, stride or dilation leaves the block count undefined
    arrays = {n: values(desc, n) for n in names}
    if len({len(v) for v in arrays.values()}) > 1:
        return out  # the generic validator reports arrays of different lengths
    dims = len(arrays["Strides"])
    if unfold and not 1 <= dims <= 6:
        return out + [Problem(op, "DimensionCount", "range", f"{dims} is not allowed (allowed: 1 to 6).")]
    if not unfold and dims > 6:
        return out + [Problem(op, "DimensionCount", "range", f"{dims} is not allowed (allowed: at most 6).")]
    c = sizes(tensor(desc, columns))
    if c is not None and len(c) != 3:
        out.append(Problem(op, columns, "dimension_count",
                           f"{len(c)} dimensions (Sizes {c}); {columns} is {{BatchCount, ChannelCount * "
                           "prod(WindowSizes), BlockCount} (allowed: 3)."))
        c = None
    x = sizes(tensor(desc, image))
    if x is None or not 3 <= len(x) <= 8:
        return out
    if dims != len(x) - 2:
        out.append(dimension_count_problem(desc, names, dims, len(x), image))
        return out
    if not settled:
        return out
    extents, problems = window_extents(desc, x[2:], arrays, "WindowSizes", image)
    out += problems
    if extents is None or c is None:
        return out
    window, blocks = 1, 1
    for k, n in zip(arrays["WindowSizes"], extents):
        window, blocks = window * k, blocks * n
    expected = [x[0], x[1] * window, blocks]
    if c != expected:
        out.append(shape_problem(desc, columns, c, "{BatchCount, ChannelCount * prod(WindowSizes), BlockCount}",
                                 expected))
    return out
