"""DML_OPERATOR_AVERAGE_POOLING_GRAD: shape rules the descriptor file cannot express.

OutputGradientTensor has the Sizes of the forward AVERAGE_POOLING's InputTensor and InputGradientTensor those
of its OutputTensor. So: DimensionCount (the length of Strides, WindowSize, StartPadding and EndPadding) is
the tensors' DimensionCount - 2 ("the spatial dimension count is 2 if 4D tensors are provided, or 3 if 5D");
Strides and WindowSize are at least 1; and InputGradientTensor is {BatchCount, ChannelCount, Output...} with
Output = (OutputGradientSize + StartPadding + EndPadding - WindowSize) / Strides + 1 (floor), the forward
formula. Shared rules: dmlops/ops/_windows.py.
"""
from __future__ import annotations

from ..errors import Problem
from ._windows import pooling_problems


def check(desc, level) -> list[Problem]:
    """DimensionCount, Strides and WindowSize >= 1, the window inside the padded OutputGradientTensor,
    InputGradientTensor sizes from the forward output formula."""
    return pooling_problems(desc, sources=("OutputGradientTensor",), targets=("InputGradientTensor",))
