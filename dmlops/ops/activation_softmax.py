"""DML_OPERATOR_ACTIVATION_SOFTMAX: the effective-rank rule the descriptor file cannot express.

The docs: InputTensor "must have an effective rank no greater than 2. The effective rank of a tensor
is the DimensionCount of the tensor, excluding leftmost dimensions of size 1." OutputTensor has the
same Sizes (checked by the generic validator), so only InputTensor is checked.
"""
from __future__ import annotations

from ..errors import Problem
from ._shapes import effective_rank_problems


def check(desc, level) -> list[Problem]:
    """InputTensor's effective rank (leading 1s dropped) is at most 2."""
    return effective_rank_problems(desc)
