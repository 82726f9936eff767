"""DML_OPERATOR_BATCH_NORMALIZATION_TRAINING_GRAD: shape rules the descriptor file cannot express.

The docs: "Any dimension in MeanTensor, VarianceTensor, and ScaleTensor can be set to 1, and be
automatically broadcast to match InputTensor, but otherwise must equal the corresponding dimension's
size from InputTensor." OutputScaleGradientTensor and OutputBiasGradientTensor have the same
"MeanDimensions" shape, so the rule is applied to them too. (The docs' OutputGradient formula has a
typo, "InputCentered = InputCentered - mean(InputCentered)" for "Input - mean(Input)"; it does not
affect shapes.) The generic validator already checks the two same-Sizes groups.
"""
from __future__ import annotations

from ..errors import Problem
from ._shapes import broadcast_problems

MEAN_DIMENSIONS = ("MeanTensor", "VarianceTensor", "ScaleTensor", "OutputScaleGradientTensor", "OutputBiasGradientTensor")


def check(desc, level) -> list[Problem]:
    """Each MeanDimensions tensor: every size 1 or equal to InputTensor's."""
    return broadcast_problems(desc, MEAN_DIMENSIONS)
