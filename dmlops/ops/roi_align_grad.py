"""DML_OPERATOR_ROI_ALIGN_GRAD: the gradients of ROI_ALIGN1 (every attribute as there).

OutputGradientTensor (the gradient for the forward InputTensor): each InputGradientTensor element is sent back
through the samples its forward output reduced, as dmlops's ROI_ALIGN1 takes them (dmlops/ops/roi_align1.py): for
AVERAGE, 1 / (n_y * n_x) of it to every sample inside the input; for MAX, all of it to the first sample (in the
docs' loop order) holding the maximum, InputTensor being required for it. A LINEAR sample splits its share over its
four corners with the bilinear weights (1 - ly)(1 - lx), ly (1 - lx), (1 - ly) lx, ly lx (two corners clamped onto
one element add up); a NEAREST sample gives it to the element read. Samples outside the input (which read
OutOfBoundsInputValue) send nothing back. The struct has no OutOfBoundsInputValue: for MAX, a sample outside the
input counts as 0 (what ONNX reads there, and what onnxruntime's DirectML provider passes to ROI_ALIGN1) and, when
it holds the maximum, the gradient goes nowhere (a decision: the docs are silent). Shares are summed per input
element and over the regions of one batch. This reproduces the docs' example (nearest, one sample per output, four
regions of a 4 x 4 input). Summation order is the lowering's (a one-hot MatMul per region, then one per batch), so
backends agree to float32 rounding.

No DirectML vector covers ROI_ALIGN_GRAD: the docs' example and torch autograd of dmlops's torch ROI_ALIGN1
lowering (tests/test_oracle_roi.py) are the oracles.

OutputROIGradientTensor is refused at compile time on every backend: the docs give it only as pseudo-code "assuming
MinimumSamplesPerOutput == 1 and MaximumSamplesPerOutput == 1", which (a) is not the derivative of the forward
(the coordinate of sample o moves by (OutputSize - o - 0.5) / OutputSize * SpatialScale per unit of x1, while
the pseudo-code multiplies the image gradient by (inputWidth - o) and by o, with no scale, no pixel offsets and
no division), so torch autograd cannot serve as its oracle; (b) names an "inputWidth" that may be InputTensor's
width or InputGradientTensor's; (c) reads InputTensor at floor and ceil (an integer coordinate gives a zero image
gradient) with no rule for out-of-bounds samples, NEAREST, MAX or other sample counts; and no vector settles any of
it.

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

from ..errors import DmlOpsError, Problem
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
    channels = (x_sizes or gradient or [None, None])[1]
    out += roi_output_problem(desc, "InputGradientTensor", num_rois, channels, "ChannelCount")
    if x_sizes is not None and gradient is not None and gradient != x_sizes:
        out.append(shape_problem(desc, "OutputGradientTensor", gradient, "InputTensor's Sizes", x_sizes))
    rois = sizes(tensor(desc, "ROITensor"))
    roi_grad_sizes = sizes(roi_gradient)
    if rois is not None and roi_grad_sizes is not None and roi_grad_sizes != rois:
        out.append(shape_problem(desc, "OutputROIGradientTensor", roi_grad_sizes, "ROITensor's Sizes", rois))
    return out


def _refuse_roi_gradient(desc, backend):
    if desc.output_roi_gradient_tensor is not None:
        raise DmlOpsError(
            f"ROI_ALIGN_GRAD.OutputROIGradientTensor is not supported by dmlops ({backend}): the docs define it only "
            "by pseudo-code for MinimumSamplesPerOutput == MaximumSamplesPerOutput == 1 that is not the derivative "
            "of ROI_ALIGN1 and leaves inputWidth, offsets, scales and out-of-bounds samples open, and no DirectML "
            "vector shows it; supply OutputGradientTensor only.")


def _x_sizes(desc):
    t = desc.output_gradient_tensor if desc.output_gradient_tensor is not None else desc.input_tensor
    return list(t.sizes)


def _run(kind, desc, x, *args):
    A, rois, batch = _roi.inputs(kind, x, "BatchIndicesTensor", *args)
    y = _roi.align_input_gradient(A, desc, x["InputTensor"], rois, batch, x["InputGradientTensor"], _x_sizes(desc),
                                  list(desc.input_gradient_tensor.sizes[2:]), _roi.num_rois(desc))
    return {"OutputGradientTensor": y}


def reference(desc, x):
    """The shares of dmlops/ops/_roi.py in NumPy float32."""
    _refuse_roi_gradient(desc, "reference")
    f = lambda v: None if v is None else np.asarray(v, np.float32)  # noqa: E731
    return _run("reference", desc, dict(x, InputTensor=f(x["InputTensor"]),
                                        InputGradientTensor=f(x["InputGradientTensor"])))


def to_onnx(desc, g, x):
    """In-graph sampling as ROI_ALIGN1, shares by Equal one-hot matrices and MatMul (no scatter-add kernel is
    registered by the DirectML provider at opset 18)."""
    _refuse_roi_gradient(desc, "onnxruntime")
    return _run("onnx", desc, x, g)


def to_torch(desc, torch, x):
    """The same with torch ops (matmul of one-hot matrices)."""
    _refuse_roi_gradient(desc, "torch")
    f = lambda v: None if v is None else v.to(torch.float32)  # noqa: E731
    gr = f(x["InputGradientTensor"])
    return _run("torch", desc, dict(x, InputTensor=f(x["InputTensor"]), InputGradientTensor=gr), torch, gr.device)


# ----------------------------------------------------------------------------------------------- samples
def make(in_sizes, num, out_hw, reduction="AVERAGE", mode="LINEAR", low=1, high=1, scale=(1.0, 1.0),
         with_input=True, ipo=0.5, opo=-0.5, corners=False, roi_gradient=False):
    from ..descs import RoiAlignGrad

    return RoiAlignGrad(
        input_tensor=td("FLOAT32", in_sizes) if with_input else None,
        input_gradient_tensor=td("FLOAT32", [num, in_sizes[1]] + list(out_hw)),
        roi_tensor=td("FLOAT32", [1, 1, num, 4]), batch_indices_tensor=td("UINT32", [1, 1, 1, num]),
        output_gradient_tensor=td("FLOAT32", in_sizes),
        output_roi_gradient_tensor=td("FLOAT32", [1, 1, num, 4]) if roi_gradient else None,
        reduction_function=reduction, interpolation_mode=mode, spatial_scale_x=scale[0], spatial_scale_y=scale[1],
        input_pixel_offset=ipo, output_pixel_offset=opo,
        minimum_samples_per_output=low, maximum_samples_per_output=high, align_regions_to_corners=corners)


def inputs(image, grad, rois, batch):
    rois = np.asarray(rois, np.float32)
    out = {"InputGradientTensor": np.asarray(grad, np.float32), "ROITensor": rois.reshape(1, 1, -1, 4),
           "BatchIndicesTensor": np.asarray(batch, np.uint32).reshape(1, 1, 1, -1)}
    if image is not None:
        out["InputTensor"] = np.asarray(image, np.float32)
    return out


def _samples():
    f32 = np.float32
    docs_image = np.arange(1, 17, dtype=f32).reshape(1, 1, 4, 4)
    docs_rois = [[0, 0, 2, 2], [2, 0, 4, 2], [0, 2, 2, 4], [2, 2, 4, 4]]
    docs_grad = np.arange(1, 13, dtype=f32).reshape(4, 1, 1, 3)
    # The docs' example, as printed: each region's outputs read columns 0, 0, 1 of its top row (ROI_ALIGN1's
    # docs_nearest_example), so region 0 sends 1 + 2 to (0, 0) and 3 to (0, 1); region 1: 4 + 5 to (0, 2), 6 to
    # (0, 3); region 2: 7 + 8 to (2, 0), 9 to (2, 1); region 3: 10 + 11 to (2, 2), 12 to (2, 3).
    docs_out = np.array([[3, 3, 9, 6], [0, 0, 0, 0], [15, 9, 21, 12], [0, 0, 0, 0]], f32).reshape(1, 1, 4, 4)
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
        # gives 2 more. ROI [2, 2, 4, 4]: n = 2 per axis, samples at 2 and 3; only (2, 2) lies inside [-1, 2]
        # (clamped onto element (1, 1)): 100 / 4 = 25 there; the other three samples send nothing.
        Sample("average_linear_by_hand", make([1, 1, 2, 2], 3, [1, 1], high=4, with_input=False),
               inputs(None, np.array([4, 8, 100], f32).reshape(3, 1, 1, 1), [[0.5, 0.5, 1.5, 1.5], [0, 0, 2, 2],
                                                                             [2, 2, 4, 4]], [0, 0, 0]),
               {"OutputGradientTensor": np.array([[[[3, 3], [3, 28]]]], f32)}, **exact),
        # MAX over the 2 x 2 samples of ROI [0, 0, 2, 2] (the pixels themselves): the maximum 4 is at (1, 1).
        Sample("max_linear_by_hand", make([1, 1, 2, 2], 1, [1, 1], "MAX", high=4),
               inputs(square, np.array([2.5], f32).reshape(1, 1, 1, 1), [[0, 0, 2, 2]], [0]),
               {"OutputGradientTensor": np.array([[[[0, 0], [0, 2.5]]]], f32)}, **exact),
    ]
    for reduction, mode in (("AVERAGE", "LINEAR"), ("MAX", "LINEAR"), ("AVERAGE", "NEAREST_NEIGHBOR"),
                            ("MAX", "NEAREST_NEIGHBOR")):
        out.append(Sample(f"random_{reduction.lower()}_{mode.lower()}",
                          make([2, 3, 6, 5], 4, [2, 3], reduction, mode, high=3, scale=(1.0, 0.9)),
                          inputs(image, grad, rois, [0, 1, 0, 1])))
    return out


SAMPLES = _samples()
