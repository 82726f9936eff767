"""DML_OPERATOR_TOP_K: the K largest elements of each sequence along Axis, largest first, in OutputValueTensor, and
their positions within the sequence in OutputIndexTensor (UINT32, or UINT64 from DML_FEATURE_LEVEL_5_0).

Ties keep ascending element index (the docs' example 3; the vectors' float32/float16_axis3_k3 rows of four equal
values give indices 0, 1, 2, or 4, 0, 1 where a larger value comes first); -0 and +0 tie. NaN, from DirectML's
answers (dmlops/ops/_selection.py states the rule and its closed form): K rounds of a scan that takes an element
when it is larger than the pick or either is NaN, so the NaNs cut the sequence into runs and the order is the run
after the last NaN sorted, that NaN, the run before it sorted, its NaN, and so on back to the first run:
[NaN, inf, -inf, 1, NaN] gives indices [4, 1, 3, 2, 0] (sample_nan_inf_zeros_all), and the rows
{NaN, inf, -inf, a, b} of float32_axis3_k3 and float16_axis3_k3 with K = 3 select inf, a, b. ONNX TopK (lower
index first for ties) and a stable torch.sort (torch.topk leaves the order of ties unspecified) lower it, each twice
for floats: the values, then the NaN-run key; dmlops/ops/_selection.py has the details.

Shape rules the descriptor file cannot express:

From the docs page: Axis "must be less than the DimensionCount of the InputTensor"; OutputValueTensor and
OutputIndexTensor "must have sizes equal to the InputTensor, except for the dimension specified by the Axis
parameter, which must have a size equal to K"; K "must be greater than 0". The page also says K must be "less
than the number of elements in the InputTensor along the dimension specified by Axis", but DirectML runs
K equal to that number (an Axis of size 1 with K = 1 is accepted), so dmlops allows K up to it: DirectML
wins over the page.
"""
from __future__ import annotations

from ..errors import Problem
from . import _layout as L
from . import _selection as sel


def check(desc, level) -> list[Problem]:
    """Axis in range; 1 <= K <= InputTensor.Sizes[Axis]; both outputs are InputTensor with Sizes[Axis] = K."""
    return L.top_k_problems(desc)


def reference(desc, x):
    """A stable NumPy sort along Axis by DirectML's key (NaN runs last to first, largest first, index), the first K."""
    return sel.top_k_reference(desc, x, largest=True)


def to_onnx(desc, g, x):
    """Two ONNX TopKs (sorted, ties by lower index): the values, then the NaN-run key."""
    return sel.top_k_onnx(desc, g, x, largest=True)


def to_torch(desc, torch, x):
    """Two torch.sort(stable=True) along Axis (floats), the first K."""
    return sel.top_k_torch(desc, torch, x, largest=True)


def _samples():
    from ..descs import TopK

    return sel.top_k_samples(TopK, with_direction=False)


SAMPLES = _samples()
