"""DML_OPERATOR_BATCH_NORMALIZATION_GRAD: shape rules the descriptor file cannot express.

MeanTensor, VarianceTensor, ScaleTensor and the two parameter-gradient outputs share one shape
("MeanDimensions"); the docs sum the gradients "across the set of dimensions for which MeanTensor,
ScaleTensor and VarianceTensor sizes equal one", so every other dimension must equal InputTensor's
(the broadcast rule BATCH_NORMALIZATION and BATCH_NORMALIZATION_TRAINING_GRAD state outright). The
generic validator already checks that those five tensors share Sizes, and that InputTensor,
InputGradientTensor and OutputGradientTensor do.
"""
from __future__ import annotations

from ..errors import Problem
from ._shapes import broadcast_problems

MEAN_DIMENSIONS = ("MeanTensor", "VarianceTensor", "ScaleTensor", "OutputScaleGradientTensor", "OutputBiasGradientTensor")


def check(desc, level) -> list[Problem]:
    """Each MeanDimensions tensor: every size 1 or equal to InputTensor's."""
    return broadcast_problems(desc, MEAN_DIMENSIONS)
