"""DML_OPERATOR_ELEMENT_WISE_CLIP_GRAD1: the MinMaxDataType rule the descriptor file cannot express.

The docs: MinMaxDataType is "the data type of the Min and Max members, which must match
OutputTensor.DataType"; the page copies CLIP1's text, and this operator's output is
OutputGradientTensor, which is what the rule compares with (all three tensors share one DataType).
DirectML refuses MinMaxDataType FLOAT32 with FLOAT16 tensors (vector
gap_factory_tier_5_0_dt_1_rank_default). Whether Min and Max are representable in MinMaxDataType is
the generic validator's rule. Min > Max is not rejected: the docs do not forbid it, and DirectML
accepts it for ELEMENT_WISE_CLIP1 and ELEMENT_WISE_CLIP_GRAD (for CLIP_GRAD1 itself unverified).
Rules only: no lowering yet.
"""
from __future__ import annotations

from ..errors import Problem
from .element_wise_clip1 import min_max_problems


def check(desc, level) -> list[Problem]:
    """MinMaxDataType is OutputGradientTensor's DataType."""
    return min_max_problems(desc, "OutputGradientTensor")
