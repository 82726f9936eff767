"""DML_OPERATOR_MAX_POOLING1: MAX_POOLING with the optional OutputIndicesTensor of each window's winner.

Semantics (DirectML's vectors; dmlops/ops/_max_pooling.py has the rule): OutputTensor as MAX_POOLING (NaN and
padding never win; a window made only of padding gives the lowest finite value). OutputIndicesTensor holds the
winner's index into InputTensor counted "as a contiguous one-dimensional array", batch and channel included
(float32_win3x2_s1x2_pad[1, 0][1, 1]: channel 1 of {1, 2, 5, 6} answers 32 to 59), as ONNX MaxPool's Indices
output does; torch's return_indices count within one (batch, channel) plane. A tie names the first element
(the docs; no vector has one); a window that nothing wins (only padding, NaN, -inf or the lowest value) names 0,
a decision no vector checks. The index is logical: the input's Strides do not enter it.

Shape rules the descriptor file cannot express:

As MAX_POOLING: DimensionCount (the length of Strides, WindowSize, StartPadding and EndPadding) is
InputTensor's DimensionCount - 2; Strides and WindowSize are at least 1; OutputTensor is {BatchCount,
ChannelCount, Output...} with Output = (InputSize + StartPadding + EndPadding - WindowSize) / Strides + 1
(floor). The optional OutputIndicesTensor has the same Sizes as OutputTensor ("Both the OutputTensor and
OutputIndicesTensor have the same tensor sizes"); both are checked against the formula, so a wrong
OutputTensor does not make a right OutputIndicesTensor look wrong. Shared rules: dmlops/ops/_windows.py.
"""
from __future__ import annotations

from ..errors import Problem
from . import _max_pooling as mp
from ._windows import pooling_problems


def check(desc, level) -> list[Problem]:
    """DimensionCount, Strides and WindowSize >= 1, the window inside the padded input, OutputTensor and
    OutputIndicesTensor sizes."""
    return pooling_problems(desc, targets=("OutputTensor", "OutputIndicesTensor"))


def _indices(desc) -> bool:
    """Whether OutputIndicesTensor is asked for (the winners' indices are then tracked)."""
    return desc.output_indices_tensor is not None


def _outputs(desc, value, index):
    out = {"OutputTensor": value}
    if desc.output_indices_tensor is not None:
        out["OutputIndicesTensor"] = index
    return out


def reference(desc, x):
    """The window maxima and their whole-tensor flat indices (dmlops.ops._max_pooling)."""
    return _outputs(desc, *mp.reference_pool(desc, x["InputTensor"], _indices(desc))[:2])


def to_onnx(desc, g, x):
    """The running maximum over one Slice per window element and the winner's window element, its whole-tensor
    index from that (past 256 elements: Gather through the window table, ReduceMax, a ReduceMin of indices)."""
    return _outputs(desc, *mp.onnx_pool(desc, g, x["InputTensor"], desc.input_tensor.sizes,
                                            _indices(desc))[:2])


def to_torch(desc, torch, x):
    """The running maximum over strided views and the winner's window element, its index from that (past 256
    elements: index_select through the window table, amax, the first winner's index as a negated amax)."""
    return _outputs(desc, *mp.torch_pool(desc, torch, x["InputTensor"], _indices(desc))[:2])


SAMPLES = mp.index_samples("MaxPooling1")
