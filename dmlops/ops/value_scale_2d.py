"""DML_OPERATOR_VALUE_SCALE_2D: the ChannelCount rules the descriptor file cannot express.

The docs: ChannelCount "determines the size of the Bias array" (dmlops derives it from Bias). "This
field must be set to either 1 or 3, and must also match the size of the Channel dimension of the
input tensor", InputTensor being {BatchCount, ChannelCount, Height, Width}. DirectML refuses
ChannelCount 2 on a {1, 1, 1, 1} input and accepts ChannelCount 1 there and 3 on {2, 3, 4, 5}
(vectors gap_factory_tier_1_0_dt_0_rank_default, float32_fixed_twin_of_gap_1x1x1x1, float32); the
refused case breaks both rules, so the "1 or 3" rule is enforced on the docs' word (ONNX Runtime's
ImageScaler kernel checks only the Channel dimension). The Channel rule is checked only on a
4-dimensional InputTensor (other ranks are the support tiers' to report). Rules only: no lowering yet.
"""
from __future__ import annotations

from ..errors import Problem
from ..validation import tensor

CHANNEL_COUNTS = (1, 3)


def check(desc, level) -> list[Problem]:
    """ChannelCount (Bias's length) is 1 or 3 and equals InputTensor's Channel dimension (Sizes[1])."""
    op = desc.OPERATOR_TYPE
    n = len(desc.bias)
    out = []
    if n not in CHANNEL_COUNTS:
        out.append(Problem(op, "Bias", "count", f"{n} elements (ChannelCount {n}); ChannelCount must be 1 or 3."))
    x = tensor(desc, "InputTensor")
    if x is not None and x.dimension_count == 4 and x.sizes[1] != n:
        out.append(Problem(op, "Bias", "shape",
                           f"{n} elements (ChannelCount {n}), but InputTensor's Channel dimension is {x.sizes[1]} "
                           f"(Sizes {list(x.sizes)}); ChannelCount must match it."))
    return out
