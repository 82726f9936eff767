"""DML_OPERATOR_MEAN_VARIANCE_NORMALIZATION2: shape rules the descriptor file cannot express.

The docs page is "TBD" for the description, UseMean and UseVariance; its members InputTensor,
ScaleTensor, BiasTensor, OutputTensor, AxisCount and Axes repeat MEAN_VARIANCE_NORMALIZATION1's text,
so the same rules apply (see mean_variance_normalization1.py): Axes in range and unique, OutputTensor
of InputTensor's Sizes, ScaleTensor and BiasTensor broadcastable to InputTensor. The operator was
introduced in DML_FEATURE_LEVEL_6_3, so the feature-level exceptions of MVN1 (ChannelCount before
4_0, Scale/Bias pairing before 5_2) never apply. UseMean and UseVariance constrain no shape (ONNX
Runtime uses UseMean FALSE for RMS normalization). No DirectML vectors exist (the test device stops at
DML_FEATURE_LEVEL_6_2): the docs decide.
"""
from __future__ import annotations

from ..errors import Problem
from .mean_variance_normalization1 import mvn_problems


def check(desc, level) -> list[Problem]:
    """Axes in range and unique; OutputTensor of InputTensor's Sizes; Scale/Bias broadcast to InputTensor."""
    return mvn_problems(desc, level, channel_before_4_0=False)
