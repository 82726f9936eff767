"""How closely each backend must match DirectML's vectors (tests/test_directml_vectors.py), with the reason.

The default is exact: same bits, -0.0 and NaN included. That holds for selects, comparisons, min/max, casts,
integer arithmetic, data movement and the NaN / ±inf / -0.0 rules, which are facts of DirectML. Float results of
transcendental functions reflect the shader math of the device the vectors were computed on (a CPU device); a GPU's
exp/log/tanh may differ in the last bits, so those operators get a bound in ULP (units in the last place of the
output type) or a relative bound, written here with the reason. An element passes when it is within ``ulps`` ULP
or within ``atol + rtol * |DirectML|``.
"""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Tolerance:
    ulps: int = 0
    rtol: float = 0.0
    atol: float = 0.0
    why: str = "exact: a fact of DirectML"


EXACT = Tolerance()

# Operator type -> tolerance for its float outputs (integer outputs are always compared exactly).
TOLERANCES: dict[str, Tolerance] = {
}


def tolerance(op: str, case_name: str) -> Tolerance:
    """The bound for one case (per operator; a case-specific entry ``OP/case`` wins)."""
    return TOLERANCES.get(f"{op}/{case_name}", TOLERANCES.get(op, EXACT))
