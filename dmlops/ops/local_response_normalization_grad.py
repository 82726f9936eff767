"""DML_OPERATOR_LOCAL_RESPONSE_NORMALIZATION_GRAD: rules the descriptor file cannot express.

From the docs: LocalSize "must be at least 1" (the page swaps the forward page's wording of what
LocalSize spans for CrossChannel TRUE and FALSE; that changes the math, not the rule). InputTensor,
InputGradientTensor and OutputGradientTensor share DataType and Sizes (the descriptor's 'same' rule)
and are 4-D (its support tier). As for the forward operator, an even LocalSize is allowed.
Only check() is written so far.
"""
from __future__ import annotations

from ..errors import Problem
from .local_response_normalization import local_size_problems


def check(desc, level) -> list[Problem]:
    """LocalSize is at least 1."""
    return local_size_problems(desc)
