"""DML_OPERATOR_TOP_K: shape rules the descriptor file cannot express.

From the docs page: Axis "must be less than the DimensionCount of the InputTensor"; OutputValueTensor and
OutputIndexTensor "must have sizes equal to the InputTensor, except for the dimension specified by the Axis
parameter, which must have a size equal to K"; K "must be greater than 0". The page also says K must be "less
than the number of elements in the InputTensor along the dimension specified by Axis", but DirectML runs
K equal to that number (an Axis of size 1 with K = 1 is accepted), so dmlops allows K up to it: DirectML
wins over the page.
"""
from __future__ import annotations

from ..errors import Problem
from . import _layout as L


def check(desc, level) -> list[Problem]:
    """Axis in range; 1 <= K <= InputTensor.Sizes[Axis]; both outputs are InputTensor with Sizes[Axis] = K."""
    return L.top_k_problems(desc)
