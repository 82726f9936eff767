"""DML_OPERATOR_ACTIVATION_HARDMAX: the effective-rank rule the descriptor file cannot express.

The docs: InputTensor "must have an effective rank no greater than 2. The effective rank of a tensor
is the DimensionCount of the tensor, excluding leftmost dimensions of size 1" ({1, 1, BatchCount,
Width} is valid and equivalent to {BatchCount, Width}). OutputTensor has the same Sizes (checked by
the generic validator), so only InputTensor is checked, as for ACTIVATION_SOFTMAX. DirectML's vectors
hold only effective rank 2 ({1, 1, 4, 5}, accepted); a higher effective rank is refused here on the
docs' word alone. Rules only: no lowering yet.
"""
from __future__ import annotations

from ..errors import Problem
from ._shapes import effective_rank_problems


def check(desc, level) -> list[Problem]:
    """InputTensor's effective rank (leading 1s dropped) is at most 2."""
    return effective_rank_problems(desc)
