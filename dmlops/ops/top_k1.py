"""DML_OPERATOR_TOP_K1: shape rules the descriptor file cannot express.

TOP_K's rules (see top_k.py; AxisDirection changes the order, not the shapes): Axis "must be less than the
DimensionCount of the InputTensor"; OutputValueTensor and OutputIndexTensor equal InputTensor's Sizes but
along Axis, where they are K; K > 0. The page's "K less than the number of elements along Axis" is relaxed to
"at most" because DirectML runs K equal to it: DirectML wins over the page.
"""
from __future__ import annotations

from ..errors import Problem
from . import _layout as L


def check(desc, level) -> list[Problem]:
    """Axis in range; 1 <= K <= InputTensor.Sizes[Axis]; both outputs are InputTensor with Sizes[Axis] = K."""
    return L.top_k_problems(desc)
