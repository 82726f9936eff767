"""DML_OPERATOR_TOP_K1: TOP_K with AxisDirection: DECREASING selects the K largest, largest first; INCREASING the K
smallest, smallest first. Indices count within the sequence (UINT32, or UINT64 from DML_FEATURE_LEVEL_5_0).

Ties keep ascending element index whatever the direction (the docs' examples 3 and 4; the vectors'
*_axis3_k3_increasing/decreasing rows of four equal values give 0, 1, 2, or 4, 0, 1 where a better value comes
first; int32_axis3_k3_increasing [-5, -19, 16, -5, -2] gives 1, 0, 3); -0 and +0 tie. NaN, from DirectML's
answers (dmlops/ops/_selection.py states the rule and its closed form): K rounds of a scan that takes an element
when it is better than the pick or either is NaN. So the NaNs cut the sequence into runs, and the order is the run
after the last NaN sorted, that NaN, the run before it sorted, its NaN, and so on back to the first run:
[NaN, inf, -inf, 1, NaN] gives indices [4, 2, 3, 1, 0] INCREASING and [4, 1, 3, 2, 0] DECREASING
(sample_nan_inf_zeros_*), and the rows {NaN, inf, -inf, a, b} with K = 3 select -inf, a, b (INCREASING) and inf,
a, b (DECREASING). ONNX Runtime's TopK and torch.sort put NaN first or last instead. A
descriptor without AxisDirection reads as INCREASING (see the descriptor's deviations). ONNX TopK(largest) and a
stable torch.sort lower it; dmlops/ops/_selection.py has the details.

Shape rules the descriptor file cannot express (TOP_K's; AxisDirection changes the order, not the shapes): Axis
"must be less than the DimensionCount of the InputTensor"; OutputValueTensor and OutputIndexTensor equal
InputTensor's Sizes but along Axis, where they are K; K > 0. The page's "K less than the number of elements along
Axis" is relaxed to "at most" because DirectML runs K equal to it: DirectML wins over the page.
"""
from __future__ import annotations

from ..errors import Problem
from . import _layout as L
from . import _selection as sel


def check(desc, level) -> list[Problem]:
    """Axis in range; 1 <= K <= InputTensor.Sizes[Axis]; both outputs are InputTensor with Sizes[Axis] = K."""
    return L.top_k_problems(desc)


def reference(desc, x):
    """A stable NumPy sort along Axis by DirectML's key (NaN runs last to first, best first, index), the first K."""
    return sel.top_k_reference(desc, x, largest=sel.decreasing(desc))


def to_onnx(desc, g, x):
    """Two ONNX TopKs (sorted, ties by lower index): the values, then the NaN-run key."""
    return sel.top_k_onnx(desc, g, x, largest=sel.decreasing(desc))


def to_torch(desc, torch, x):
    """Two torch.sort(stable=True) along Axis (floats), the first K."""
    return sel.top_k_torch(desc, torch, x, largest=sel.decreasing(desc))


def _samples():
    from ..descs import TopK1

    return sel.top_k_samples(TopK1, with_direction=True)


SAMPLES = _samples()
