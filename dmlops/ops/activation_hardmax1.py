"""DML_OPERATOR_ACTIVATION_HARDMAX1: the Axes rule the descriptor file cannot express.

The docs: Axes "must be in the range [0, InputTensor.DimensionCount - 1]". dmlops also rejects a
repeated axis (the reduction over a set of axes names each once), as for ACTIVATION_SOFTMAX1.
DirectML agrees: it refuses Axes {1, 1} on a 1-dimensional tensor (vector
gap_factory_tier_5_1_dt_0_rank_min; out of range and repeated at once, so the vectors do not tell
which of the two it objects to). An empty Axes list is not rejected: the docs do not forbid it, and
DirectML accepts AxisCount 0 for ACTIVATION_SOFTMAX1 and ACTIVATION_LOG_SOFTMAX1, which came with
HARDMAX1 in DML_FEATURE_LEVEL_5_1 (for HARDMAX1 itself unverified). Rules only: no lowering yet.
"""
from __future__ import annotations

from ..errors import Problem
from ..validation import tensor
from ._shapes import axes_problems


def check(desc, level) -> list[Problem]:
    """Each axis below InputTensor's DimensionCount; no axis repeated."""
    x = tensor(desc, "InputTensor")
    rank = x.dimension_count if x is not None and x.dimension_count else None
    return axes_problems(desc.OPERATOR_TYPE, desc.axes, rank)
