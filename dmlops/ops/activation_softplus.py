"""DML_OPERATOR_ACTIVATION_SOFTPLUS: the Steepness rule the descriptor file cannot express.

The docs (in the text misplaced under OutputTensor): "The Steepness coefficient. A typical default
for this value is 1.0. This value cannot be less than 1."
"""
from __future__ import annotations

from ..errors import Problem


def check(desc, level) -> list[Problem]:
    """Steepness >= 1 (NaN is rejected too)."""
    s = desc.steepness
    if s >= 1:
        return []
    return [Problem(desc.OPERATOR_TYPE, "Steepness", "range", f"{s!r} is less than 1 (allowed: 1 or more).")]
