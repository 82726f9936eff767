"""DML_OPERATOR_GEMM: shape rules the descriptor file cannot express.

ATensor is {BatchCount, ChannelCount, M, K} ({.., K, M} with TransA = TRANSPOSE), BTensor
{BatchCount, ChannelCount, K, N} ({.., N, K} with TransB), OutputTensor {BatchCount, ChannelCount,
M, N}; the leading dimensions are optional from DML_FEATURE_LEVEL_4_0 (2 to 4 dimensions; a 3-D
tensor is read as {ChannelCount, .., ..}, DirectML's right-aligned convention). ATensor defines
BatchCount, ChannelCount, M and K; BTensor defines N. CTensor must have OutputTensor's Sizes, which
the generic validator already checks, as it checks data types and ranks.
"""
from __future__ import annotations

from ..errors import Problem
from ..validation import shape_problem, tensor
from ._shapes import sizes

LEADING = {2: [], 3: ["ChannelCount"], 4: ["BatchCount", "ChannelCount"]}


def _formula(rank: int, last: list[str]) -> str:
    return "{" + ", ".join(LEADING[rank] + last) + "}"


def check(desc, level) -> list[Problem]:
    """BTensor's batch dimensions and K follow ATensor; OutputTensor is {.., M, N}."""
    out = []
    a = sizes(tensor(desc, "ATensor"))
    if a is None or len(a) not in LEADING:
        return out
    rank = len(a)
    lead = a[:-2]
    m, k = (a[-1], a[-2]) if desc.trans_a.name == "TRANSPOSE" else (a[-2], a[-1])
    b = sizes(tensor(desc, "BTensor"), rank)
    if b is None:
        return out
    trans_b = desc.trans_b.name == "TRANSPOSE"
    n = b[-2] if trans_b else b[-1]
    expected_b = lead + ([n, k] if trans_b else [k, n])
    if b != expected_b:
        out.append(shape_problem(desc, "BTensor", b, _formula(rank, ["N", "K"] if trans_b else ["K", "N"]), expected_b))
    output = sizes(tensor(desc, "OutputTensor"), rank)
    if output is not None and output != lead + [m, n]:
        out.append(shape_problem(desc, "OutputTensor", output, _formula(rank, ["M", "N"]), lead + [m, n]))
    return out
