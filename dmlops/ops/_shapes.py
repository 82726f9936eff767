"""Shape helpers shared by the hand-written check() hooks (broadcasting, axis lists).

Each helper returns Problems in the dmlops message shape and assumes nothing about tensors it
is not given: callers pass only tensors that are present and of the rank the relation needs.
"""
from __future__ import annotations

from ..errors import Problem
from ..types import TensorDesc
from ..validation import tensor


def sizes(t: TensorDesc | None, rank: int | None = None) -> list[int] | None:
    """The Sizes of ``t`` as a list, or None when ``t`` is absent or (given ``rank``) of another rank."""
    if t is None or (rank is not None and t.dimension_count != rank):
        return None
    return list(t.sizes)


def broadcast_problem(op: str, field: str, t: TensorDesc, target: list[int], target_field: str) -> Problem | None:
    """``t`` must have, in each dimension, size 1 or the size of ``target`` (same rank assumed)."""
    found = list(t.sizes)
    bad = [f"dimension {i} is {s} (allowed: 1 or {n})" for i, (s, n) in enumerate(zip(found, target)) if s not in (1, n)]
    if not bad:
        return None
    return Problem(op, field, "broadcast",
                   f"Sizes {found} do not broadcast to {target_field} Sizes {list(target)}: {', '.join(bad)}.")


def broadcast_problems(desc, names, source: str = "InputTensor") -> list[Problem]:
    """The broadcast rule against ``source`` for each tensor in ``names`` that is present and of its rank."""
    out: list[Problem] = []
    target = sizes(tensor(desc, source))
    if not target:
        return out
    for name in names:
        t = tensor(desc, name)
        if t is not None and t.dimension_count == len(target):
            p = broadcast_problem(desc.OPERATOR_TYPE, name, t, target, source)
            if p:
                out.append(p)
    return out


def axes_problems(op: str, axes, rank: int | None, tensor_field: str = "InputTensor",
                  require_one: bool = False) -> list[Problem]:
    """Axes: each in [0, rank - 1] (skipped when ``rank`` is None), none repeated, and at least one if required."""
    out = []
    if require_one and not axes:
        out.append(Problem(op, "Axes", "axes", "is empty (AxisCount 0); at least one axis is required."))
    if rank is not None:
        for a in dict.fromkeys(axes):  # an out-of-range axis listed twice is said once (and as repeated below)
            if a >= rank:
                out.append(Problem(op, "Axes", "axes", f"axis {a} is out of range for a {rank}-dimensional "
                                                       f"{tensor_field} (allowed: 0 to {rank - 1})."))
    seen, repeated = set(), []
    for a in axes:
        if a in seen and a not in repeated:
            repeated.append(a)
        seen.add(a)
    for a in repeated:
        out.append(Problem(op, "Axes", "axes", f"axis {a} appears more than once; each axis may be listed once."))
    return out


def effective_rank_problems(desc, name: str = "InputTensor", limit: int = 2) -> list[Problem]:
    """``name``'s effective rank (DimensionCount without leading dimensions of size 1) is at most ``limit``."""
    t = tensor(desc, name)
    if t is None:
        return []
    found = list(t.sizes)
    lead = 0
    while lead < len(found) - 1 and found[lead] == 1:
        lead += 1
    effective = len(found) - lead
    if effective <= limit:
        return []
    return [Problem(desc.OPERATOR_TYPE, name, "effective_rank",
                    f"Sizes {found} have an effective rank of {effective} (allowed: at most {limit}; "
                    f"leading dimensions of size 1 do not count).")]
