"""DML_OPERATOR_ROI_ALIGN_GRAD: the gradients of ROI_ALIGN1 (every attribute as there).

OutputGradientTensor (the gradient for the forward InputTensor): each InputGradientTensor element is sent back
through the samples its forward output reduced, as DirectML's ROI_ALIGN1 takes them (dmlops/ops/roi_align1.py): for
AVERAGE, 1 / (n_y * n_x) of it to every sample inside the input; for MAX, all of it to the first sample (in the
order the forward sums them: y outer, x inner) holding the maximum, InputTensor being required for it. A LINEAR
sample splits its share over its four corners with the bilinear weights (1 - ly)(1 - lx), ly (1 - lx), (1 - ly) lx,
ly lx (two corners clamped onto one element add up); a NEAREST sample gives it to the element read. Samples outside
the input (which read OutOfBoundsInputValue) send nothing back. The struct has no OutOfBoundsInputValue: for MAX, a
sample outside the input counts as 0 (what ONNX reads there, and what onnxruntime's DirectML provider passes to
ROI_ALIGN1) and, when it holds the maximum, the gradient goes nowhere (a decision: the docs are silent). Shares are
summed per input element and over the regions of one batch. A region whose BatchIndicesTensor value is outside
[0, BatchCount) (the docs: undefined) sends nothing back to either output: all its samples lie outside the input,
as in the forward. Summation order is the lowering's (a one-hot MatMul per region, then one per batch), so
backends agree to float32 rounding.

The docs' example (nearest, one sample per output, four regions of a 4 x 4 input) prints the gradient of a forward
DirectML does not compute: its forward reads index 0 for coordinate 0.5 ([[1, 1, 2]], ...), while DirectML's
ROI_ALIGN1 rounds half up and gives [[5, 6, 6]], ... for that input (vector ROI_ALIGN1-sample_docs_nearest_example).
dmlops sends the gradient back through the samples DirectML's forward reads (sample docs_example_average): a
decision, since no ROI_ALIGN_GRAD vector exists.

OutputROIGradientTensor (the gradient for ROITensor, [x1, y1, x2, y2] per region, with ROITensor's Sizes) is the
page's pseudo-code ("For OutputROIGradientTensor, the math is a little different") implemented literally, and
UNVERIFIED against DirectML (no vector; the pseudo-code is not the derivative of the forward, so torch autograd is
no oracle for it). Per ROI, per InputGradientTensor element (every channel), per sample that contributed to it:
read InputTensor (the ROI's batch, the element's channel) at top/bottom = floor/ceil of the sample's y and
left/right = floor/ceil of its x, yLerp = y - top, xLerp = x - left;
imageGradY = (1 - xLerp)(bottomLeft - topLeft) + xLerp (bottomRight - topRight),
imageGradX = (1 - yLerp)(topRight - topLeft) + yLerp (bottomRight - bottomLeft), both times the InputGradientTensor
element g; then ROI[0] += imageGradX (inputWidth - ox), ROI[1] += imageGradY (inputHeight - oy), ROI[2] +=
imageGradX ox, ROI[3] += imageGradY oy, (oy, ox) the element's position. Interpretations (decisions, not
DirectML's answers):

* inputWidth / inputHeight are InputGradientTensor's width and height (OutputWidth / OutputHeight of the forward):
  in the formula they pair with the InputGradient coordinate ox, so (inputWidth - ox) and ox are the (unnormalised)
  weights of x1 and x2 across the pooled width; InputTensor's width would make the two weights unrelated to it.
  No SpatialScale, pixel offsets or division is applied: the page has none.
* The samples are the forward ROI_ALIGN1's, as dmlops/ops/_roi.py computes them (n per axis from the ROI,
  MinimumSamplesPerOutput / MaximumSamplesPerOutput, AlignRegionsToCorners, the offsets), also where the page's
  "assuming MinimumSamplesPerOutput == 1 and MaximumSamplesPerOutput == 1" does not hold: with several samples per
  output, each contributing sample adds its own term with the whole InputGradientTensor element as its
  inputGradientWeight (the pseudo-code's one weight per contributing sample; it is not divided by n as the
  OutputGradientTensor path divides it for AVERAGE).
* Out-of-bounds samples: a sample the forward reads from the input (-1 < coordinate < InputSize on both axes, in
  both modes, as DirectML's forward) contributes, its coordinate clamped to [0, InputSize - 1] on each axis as
  the forward clamps it (so on a clamped axis floor = ceil and that image gradient is 0); a sample that reads
  OutOfBoundsInputValue (a constant) contributes nothing.
* An integer coordinate gives floor = ceil, so its image gradient across that axis is 0 (the page's floor/ceil, not
  the forward's floor/floor + 1).
* MAX: only the sample the forward picked (the first, y outer and x inner, holding the maximum, as for
  OutputGradientTensor) contributes; when that sample is outside the input, nothing does.
* NEAREST_NEIGHBOR: the same formula on the unrounded sample coordinate (the page gives only one formula).
* Channels: every channel's elements contribute to the same four sums.

Summation order is the lowering's (per output: a sum over channels and samples; then a MatMul with the four weight
columns over the outputs), not the page's loop order, so backends agree to float32 rounding only.

No DirectML vector covers ROI_ALIGN_GRAD: the docs' example, torch autograd of dmlops's torch ROI_ALIGN1 lowering
(OutputGradientTensor) and a NumPy loop transcribed from the page's pseudo-code (OutputROIGradientTensor) in
tests/test_oracle_roi.py are the oracles.

Shape rules the descriptor file cannot express:

The forward ROI_ALIGN1's tensors: InputTensor {BatchCount, ChannelCount, InputHeight, InputWidth} (optional,
but "must be supplied when OutputROIGradientTensor is supplied, or when ReductionFunction ==
DML_REDUCE_FUNCTION_MAX"); ROITensor {[1], [1], NumROIs, 4}; BatchIndicesTensor {[1], [1], [1], NumROIs};
InputGradientTensor {NumROIs, ChannelCount, OutputHeight, OutputWidth} (the forward output);
OutputGradientTensor has InputTensor's Sizes; OutputROIGradientTensor "needs to have the same sizes as
ROITensor"; at least one of the two outputs is supplied. ReductionFunction and the sample bounds as in
ROI_ALIGN1. Shared rules: dmlops/ops/_windows.py.
"""
from __future__ import annotations

import numpy as np

from ..errors import Problem
from ..sample import Sample, td
from ..validation import shape_problem, tensor
from . import _roi
from ._shapes import sizes
from ._windows import batch_indices_problems, roi_align_attribute_problems, roi_count, roi_output_problem


def check(desc, level) -> list[Problem]:
    """Required tensors, attributes, ROITensor, BatchIndicesTensor, InputGradientTensor, OutputGradientTensor and
    OutputROIGradientTensor sizes."""
    op = desc.OPERATOR_TYPE
    out = []
    x = tensor(desc, "InputTensor")
    roi_gradient = tensor(desc, "OutputROIGradientTensor")
    if tensor(desc, "OutputGradientTensor") is None and roi_gradient is None:
        out.append(Problem(op, None, "required", "OutputGradientTensor and OutputROIGradientTensor are both null; "
                                                 "at least one must be supplied."))
    if x is None and roi_gradient is not None:
        out.append(Problem(op, "InputTensor", "required",
                           "is missing (null); it is required when OutputROIGradientTensor is supplied."))
    if x is None and desc.reduction_function.name == "MAX":
        out.append(Problem(op, "InputTensor", "required",
                           "is missing (null); it is required when ReductionFunction is DML_REDUCE_FUNCTION_MAX."))
    out += roi_align_attribute_problems(desc)
    num_rois, problems = roi_count(desc, 4)
    out += problems + batch_indices_problems(desc, num_rois)
    x_sizes = sizes(x, 4)
    gradient = sizes(tensor(desc, "OutputGradientTensor"), 4)
    channels = x_sizes[1] if x_sizes else gradient[1] if gradient else None
    out += roi_output_problem(desc, "InputGradientTensor", num_rois, channels, "ChannelCount")
    if x_sizes is not None and gradient is not None and gradient != x_sizes:
        out.append(shape_problem(desc, "OutputGradientTensor", gradient, "InputTensor's Sizes", x_sizes))
    rois = sizes(tensor(desc, "ROITensor"))
    roi_grad_sizes = sizes(roi_gradient)
    if rois is not None and roi_grad_sizes is not None and roi_grad_sizes != rois:
        out.append(shape_problem(desc, "OutputROIGradientTensor", roi_grad_sizes, "ROITensor's Sizes", rois))
    return out


def _x_sizes(desc):
    t = desc.output_gradient_tensor if desc.output_gradient_tensor is not None else desc.input_tensor
    return list(t.sizes)


def _run(kind, desc, x, *args):
    A, rois, batch = _roi.inputs(kind, x, "BatchIndicesTensor", *args)
    r, out_hw = _roi.num_rois(desc), list(desc.input_gradient_tensor.sizes[2:])
    out = {}
    if desc.output_gradient_tensor is not None:
        out["OutputGradientTensor"] = _roi.align_input_gradient(A, desc, x["InputTensor"], rois, batch,
                                                                x["InputGradientTensor"], _x_sizes(desc), out_hw, r)
    if desc.output_roi_gradient_tensor is not None:
        y = _roi.align_roi_gradient(A, desc, x["InputTensor"], rois, batch, x["InputGradientTensor"], _x_sizes(desc),
                                    out_hw, r)
        out["OutputROIGradientTensor"] = A.reshape(y, list(desc.output_roi_gradient_tensor.sizes))
    return out


def reference(desc, x):
    """The shares and the ROI gradient of dmlops/ops/_roi.py in NumPy float32."""
    f = lambda v: None if v is None else np.asarray(v, np.float32)  # noqa: E731
    return _run("reference", desc, dict(x, InputTensor=f(x["InputTensor"]),
                                        InputGradientTensor=f(x["InputGradientTensor"])))


def to_onnx(desc, g, x):
    """In-graph sampling as ROI_ALIGN1, shares by Equal one-hot matrices and MatMul (no scatter-add kernel is
    registered by the DirectML provider at opset 18); the ROI gradient by GatherElements, ReduceSum and MatMul."""
    return _run("onnx", desc, x, g)


def to_torch(desc, torch, x):
    """The same with torch ops (matmul of one-hot matrices; gather, sum and matmul for the ROI gradient)."""
    f = lambda v: None if v is None else v.to(torch.float32)  # noqa: E731
    gr = f(x["InputGradientTensor"])
    return _run("torch", desc, dict(x, InputTensor=f(x["InputTensor"]), InputGradientTensor=gr), torch, gr.device)


# ----------------------------------------------------------------------------------------------- samples
def make(in_sizes, num, out_hw, reduction="AVERAGE", mode="LINEAR", low=1, high=1, scale=(1.0, 1.0),
         with_input=True, ipo=0.5, opo=-0.5, corners=False, roi_gradient=False, output_gradient=True, roi_dims=4):
    from ..descs import RoiAlignGrad

    roi_sizes = [1] * (roi_dims - 2) + [num, 4]
    return RoiAlignGrad(
        input_tensor=td("FLOAT32", in_sizes) if with_input else None,
        input_gradient_tensor=td("FLOAT32", [num, in_sizes[1]] + list(out_hw)),
        roi_tensor=td("FLOAT32", roi_sizes), batch_indices_tensor=td("UINT32", [1, 1, 1, num]),
        output_gradient_tensor=td("FLOAT32", in_sizes) if output_gradient else None,
        output_roi_gradient_tensor=td("FLOAT32", roi_sizes) if roi_gradient else None,
        reduction_function=reduction, interpolation_mode=mode, spatial_scale_x=scale[0], spatial_scale_y=scale[1],
        input_pixel_offset=ipo, output_pixel_offset=opo,
        minimum_samples_per_output=low, maximum_samples_per_output=high, align_regions_to_corners=corners)


def inputs(image, grad, rois, batch, roi_dims=4):
    rois = np.asarray(rois, np.float32)
    out = {"InputGradientTensor": np.asarray(grad, np.float32),
           "ROITensor": rois.reshape([1] * (roi_dims - 2) + [-1, 4]),
           "BatchIndicesTensor": np.asarray(batch, np.uint32).reshape(1, 1, 1, -1)}
    if image is not None:
        out["InputTensor"] = np.asarray(image, np.float32)
    return out


def _samples():
    f32 = np.float32
    docs_image = np.arange(1, 17, dtype=f32).reshape(1, 1, 4, 4)
    docs_rois = [[0, 0, 2, 2], [2, 0, 4, 2], [0, 2, 2, 4], [2, 2, 4, 4]]
    docs_grad = np.arange(1, 13, dtype=f32).reshape(4, 1, 1, 3)
    # The docs' example, with the forward DirectML computes: the page prints a forward that reads columns 0, 0, 1
    # of each region's top row, but DirectML's ROI_ALIGN1 reads columns 0, 1, 1 of its bottom row (nearest rounds
    # half up: x = -1/6, 1/2, 7/6 -> 0, 1, 1 and y = 1/2 -> 1; vector ROI_ALIGN1-sample_docs_nearest_example). So
    # region 0 sends 1 to (1, 0) and 2 + 3 to (1, 1); region 1: 4 to (1, 2), 5 + 6 to (1, 3); region 2: 7 to
    # (3, 0), 8 + 9 to (3, 1); region 3: 10 to (3, 2), 11 + 12 to (3, 3). (The page prints
    # [[3, 3, 9, 6], [0, 0, 0, 0], [15, 9, 21, 12], [0, 0, 0, 0]].)
    docs_out = np.array([[0, 0, 0, 0], [1, 5, 4, 11], [0, 0, 0, 0], [7, 17, 10, 23]], f32).reshape(1, 1, 4, 4)
    exact = dict(atol=0, rtol=0, why="exact: sums of small integers and quarters")
    square = np.array([[[[1, 2], [3, 4]]]], f32)
    rng = np.random.default_rng(150)
    image = rng.uniform(-3, 3, (2, 3, 6, 5)).astype(f32)
    rois = [[0, 0, 3, 4], [1, 1, 4, 5], [0.5, 1.5, 2.5, 3.2], [4.2, 5.5, -0.7, 0.25]]
    grad = rng.uniform(-2, 2, (4, 3, 2, 3)).astype(f32)
    out = [
        Sample("docs_example_average", make([1, 1, 4, 4], 4, [1, 3], mode="NEAREST_NEIGHBOR", with_input=False),
               inputs(None, docs_grad, docs_rois, [0, 0, 0, 0]), {"OutputGradientTensor": docs_out}, **exact),
        Sample("docs_example_max", make([1, 1, 4, 4], 4, [1, 3], "MAX", "NEAREST_NEIGHBOR"),
               inputs(docs_image, docs_grad, docs_rois, [0, 0, 0, 0]), {"OutputGradientTensor": docs_out}, **exact),
        # ROI [0.5, 0.5, 1.5, 1.5] to 1 x 1: one sample at (0.5, 0.5), weights 1/4 each: gradient 4 gives 1 to every
        # element. ROI [0, 0, 2, 2] (adaptive, Max 4): 2 x 2 samples on the four pixels, 1/4 each: gradient 8
        # gives 2 more. ROI [1, 1, 3, 3]: n = 2 per axis, samples at 1 and 2; only (1, 1) lies inside (-1, 2) (2 is
        # InputSize: outside, as DirectML's forward reads it): 100 / 4 = 25 there; the other three send nothing.
        Sample("average_linear_by_hand", make([1, 1, 2, 2], 3, [1, 1], high=4, with_input=False),
               inputs(None, np.array([4, 8, 100], f32).reshape(3, 1, 1, 1), [[0.5, 0.5, 1.5, 1.5], [0, 0, 2, 2],
                                                                             [1, 1, 3, 3]], [0, 0, 0]),
               {"OutputGradientTensor": np.array([[[[3, 3], [3, 28]]]], f32)}, **exact),
        # MAX over the 2 x 2 samples of ROI [0, 0, 2, 2] (the pixels themselves): the maximum 4 is at (1, 1).
        Sample("max_linear_by_hand", make([1, 1, 2, 2], 1, [1, 1], "MAX", high=4),
               inputs(square, np.array([2.5], f32).reshape(1, 1, 1, 1), [[0, 0, 2, 2]], [0]),
               {"OutputGradientTensor": np.array([[[[0, 0], [0, 2.5]]]], f32)}, **exact),
        # OutputROIGradientTensor, the page's pseudo-code (module docstring), on a 2 x 3 input [[1, 2, 4], [3, 5, 9]],
        # output 1 x 2 (inputWidth 2, inputHeight 1), gradients [2, 4]. ROI [0.5, 0.5, 2.5, 1.5]: one sample per
        # output at y = 0.5, x = 0.5 and 1.5 ((o + 0.5) * 1 + 0.5 - 0.5).
        # o = 0: corners 1, 2 / 3, 5: gradY = .5 (3 - 1) + .5 (5 - 2) = 2.5, gradX = .5 (2 - 1) + .5 (5 - 3) = 1.5;
        #   times 2: 5, 3. ROI += [3 (2 - 0), 5 (1 - 0), 3 * 0, 5 * 0] = [6, 5, 0, 0].
        # o = 1: corners 2, 4 / 5, 9: gradY = .5 * 3 + .5 * 5 = 4, gradX = .5 * 2 + .5 * 4 = 3; times 4: 16, 12.
        #   ROI += [12 (2 - 1), 16 (1 - 0), 12 * 1, 16 * 0] = [12, 16, 12, 0]. Total [18, 21, 12, 0].
        # ROI [5, 5, 7, 6]: every sample (y = 5) lies outside (-1, 2): [0, 0, 0, 0]. ROITensor {NumROIs, 4}.
        Sample("roi_gradient_by_hand_x", make([1, 1, 2, 3], 2, [1, 2], roi_gradient=True, output_gradient=False,
                                              roi_dims=2),
               inputs(np.array([[1, 2, 4], [3, 5, 9]], f32).reshape(1, 1, 2, 3), np.array([2, 4, 0, 0], f32)
                      .reshape(2, 1, 1, 2), [[0.5, 0.5, 2.5, 1.5], [5, 5, 7, 6]], [0, 0], roi_dims=2),
               {"OutputROIGradientTensor": np.array([[18, 21, 12, 0], [0, 0, 0, 0]], f32)}, **exact),
        # The same transposed (3 x 2 input [[1, 3], [2, 5], [4, 9]], output 2 x 1, ROI [0.5, 0.5, 1.5, 2.5]):
        # o = 0 at (0.5, 0.5): gradY = .5 (2 - 1) + .5 (5 - 3) = 1.5, gradX = .5 (3 - 1) + .5 (5 - 2) = 2.5; times 2:
        #   3, 5. ROI += [5 (1 - 0), 3 (2 - 0), 0, 0] = [5, 6, 0, 0].
        # o = 1 at (1.5, 0.5): corners 2, 5 / 4, 9: gradY = .5 * 2 + .5 * 4 = 3, gradX = .5 * 3 + .5 * 5 = 4; times 4:
        #   12, 16. ROI += [16 (1 - 0), 12 (2 - 1), 16 * 0, 12 * 1] = [16, 12, 0, 12]. Total [21, 18, 0, 12].
        # OutputGradientTensor: each sample splits its gradient in quarters over its four corners: 2 / 4 to rows
        # 0 and 1, 4 / 4 to rows 1 and 2.
        Sample("roi_gradient_by_hand_y", make([1, 1, 3, 2], 1, [2, 1], roi_gradient=True),
               inputs(np.array([[1, 3], [2, 5], [4, 9]], f32).reshape(1, 1, 3, 2),
                      np.array([2, 4], f32).reshape(1, 1, 2, 1), [[0.5, 0.5, 1.5, 2.5]], [0]),
               {"OutputGradientTensor": np.array([[0.5, 0.5], [1.5, 1.5], [1, 1]], f32).reshape(1, 1, 3, 2),
                "OutputROIGradientTensor": np.array([21, 18, 0, 12], f32).reshape(1, 1, 1, 4)}, **exact),
    ]
    for reduction, mode in (("AVERAGE", "LINEAR"), ("MAX", "LINEAR"), ("AVERAGE", "NEAREST_NEIGHBOR"),
                            ("MAX", "NEAREST_NEIGHBOR")):
        out.append(Sample(f"random_{reduction.lower()}_{mode.lower()}",
                          make([2, 3, 6, 5], 4, [2, 3], reduction, mode, high=3, scale=(1.0, 0.9), roi_gradient=True),
                          inputs(image, grad, rois, [0, 1, 0, 1])))
    out.append(Sample("random_corners_roi_gradient_only",
                      make([2, 3, 6, 5], 4, [2, 3], low=2, high=2, corners=True, roi_gradient=True,
                           output_gradient=False, roi_dims=3),
                      inputs(image, grad, rois, [1, 0, 0, 1], roi_dims=3)))
    return out


SAMPLES = _samples()
