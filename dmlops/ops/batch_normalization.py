"""DML_OPERATOR_BATCH_NORMALIZATION: shape rules the descriptor file cannot express.

The docs: "Any dimension in MeanTensor, VarianceTensor, ScaleTensor, and BiasTensor can be set to 1,
and be automatically broadcast to match InputTensor, but otherwise must equal the corresponding
dimension's size from InputTensor." Spatial = FALSE "will require the Width and Height dimensions of
MeanTensor and VarianceTensor to not be broadcast"; Spatial was deprecated in DML_FEATURE_LEVEL_4_0
and has no effect from then on. The generic validator already checks data types, ranks and
InputTensor/OutputTensor Sizes.
"""
from __future__ import annotations

from ..errors import Problem
from ..types import FeatureLevel
from ..validation import tensor
from ._shapes import broadcast_problem, sizes

PER_CHANNEL = ("MeanTensor", "VarianceTensor", "ScaleTensor", "BiasTensor")


def check(desc, level) -> list[Problem]:
    """Mean/Variance/Scale/Bias broadcastable to InputTensor; Spatial = false (before FL 4.0) keeps H and W whole."""
    op = desc.OPERATOR_TYPE
    out = []
    source = tensor(desc, "InputTensor")
    target = sizes(source)
    if not target:
        return out
    for name in PER_CHANNEL:
        t = tensor(desc, name)
        if sizes(t, len(target)) is None:
            continue
        p = broadcast_problem(op, name, t, target, "InputTensor")
        if p:
            out.append(p)
        elif name in ("MeanTensor", "VarianceTensor") and not desc.spatial and level < FeatureLevel.FL_4_0:
            out.extend(_spatial_problem(op, name, list(t.sizes), target, level))
    return out


def _spatial_problem(op, name, found, target, level) -> list[Problem]:
    # Height and Width are the last two dimensions of the NCHW / NCDHW layouts the docs describe.
    if len(target) < 4 or found[-2:] == target[-2:]:
        return []
    expected = found[:-2] + target[-2:]
    return [Problem(op, name, "spatial",
                    f"Sizes {found} broadcast the Height or Width dimension, which Spatial = false does not allow at "
                    f"{level.dml_name} (expected: {expected}); DML_FEATURE_LEVEL_4_0 ignores Spatial.")]
