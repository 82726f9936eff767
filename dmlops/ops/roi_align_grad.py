"""DML_OPERATOR_ROI_ALIGN_GRAD: shape rules the descriptor file cannot express.

The forward ROI_ALIGN1's tensors: InputTensor {BatchCount, ChannelCount, InputHeight, InputWidth} (optional,
but "must be supplied when OutputROIGradientTensor is supplied, or when ReductionFunction ==
DML_REDUCE_FUNCTION_MAX"); ROITensor {[1], [1], NumROIs, 4}; BatchIndicesTensor {[1], [1], [1], NumROIs};
InputGradientTensor {NumROIs, ChannelCount, OutputHeight, OutputWidth} (the forward output);
OutputGradientTensor has InputTensor's Sizes; OutputROIGradientTensor "needs to have the same sizes as
ROITensor"; at least one of the two outputs is supplied. ReductionFunction and the sample bounds as in
ROI_ALIGN1. Shared rules: dmlops/ops/_windows.py.
"""
from __future__ import annotations

from ..errors import Problem
from ..validation import shape_problem, tensor
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
