"""DML_OPERATOR_BATCH_NORMALIZATION_TRAINING: shape rules the descriptor file cannot express.

The docs: "Any dimension in ScaleTensor and BiasTensor can be set to 1, and be automatically broadcast
to match InputTensor, but otherwise must equal the corresponding dimension's size from InputTensor."
OutputMeanTensor and OutputVarianceTensor have the same "ScaleDimensions" shape (the statistics are
computed across the dimensions where ScaleTensor and BiasTensor are 1), so the rule is applied to them
too. The generic validator already checks the two same-Sizes groups (ScaleDimensions; InputTensor,
FusedAddTensor and OutputTensor).
"""
from __future__ import annotations

from ..errors import Problem
from ._shapes import broadcast_problems

SCALE_DIMENSIONS = ("ScaleTensor", "BiasTensor", "OutputMeanTensor", "OutputVarianceTensor")


def check(desc, level) -> list[Problem]:
    """Each ScaleDimensions tensor: every size 1 or equal to InputTensor's."""
    return broadcast_problems(desc, SCALE_DIMENSIONS)
