"""DML_OPERATOR_MAX_POOLING2: MAX_POOLING1 with Dilations.

Semantics (DirectML's vectors; dmlops/ops/_max_pooling.py has the rule): as MAX_POOLING1, window element k of
dimension i at ``o * Strides[i] - StartPadding[i] + k * Dilations[i]`` (float32_win2x2_s1x1_pad[0, 0][0, 0]_dil2:
a 2 x 2 window with dilation 2 reads rows and columns two apart; OutputIndicesTensor 2, 3, 4, 3 in its first
row). NaN and padding never win; OutputIndicesTensor counts the whole input, batch and channel included; ties
name the first element (the docs); a window that nothing wins names 0 (a decision). INT32 (int32_win2x2) and the
other integer types compare as integers, the padding being the type's minimum.

Shape rules the descriptor file cannot express:

As MAX_POOLING1 with Dilations: DimensionCount (the length of Strides, WindowSize, StartPadding, EndPadding
and Dilations) is InputTensor's DimensionCount - 2; Strides, WindowSize and Dilations are at least 1;
OutputTensor and the optional OutputIndicesTensor are {BatchCount, ChannelCount, Output...} with Output =
(InputSize + StartPadding + EndPadding - DilatedWindow) / Strides + 1 (floor), DilatedWindow = 1 +
(WindowSize - 1) * Dilations. The page prints the formula without Dilations; DirectML's answers use the
dilated window (window 2, dilation 2, 5 x 6 input: 3 x 4 output), and DirectML wins. Shared rules:
dmlops/ops/_windows.py.
"""
from __future__ import annotations

from ..errors import Problem
from . import _max_pooling as mp
from ._windows import pooling_problems
from .max_pooling1 import _indices, _outputs


def check(desc, level) -> list[Problem]:
    """DimensionCount, Strides/WindowSize/Dilations >= 1, the dilated window inside the padded input,
    OutputTensor and OutputIndicesTensor sizes."""
    return pooling_problems(desc, targets=("OutputTensor", "OutputIndicesTensor"))


def reference(desc, x):
    """The dilated window maxima and their whole-tensor flat indices (dmlops.ops._max_pooling)."""
    return _outputs(desc, *mp.reference_pool(desc, x["InputTensor"], _indices(desc))[:2])


def to_onnx(desc, g, x):
    """As MAX_POOLING1 with the dilated window (dmlops.ops._max_pooling)."""
    return _outputs(desc, *mp.onnx_pool(desc, g, x["InputTensor"], desc.input_tensor.sizes,
                                            _indices(desc))[:2])


def to_torch(desc, torch, x):
    """As MAX_POOLING1 with the dilated window (dmlops.ops._max_pooling)."""
    return _outputs(desc, *mp.torch_pool(desc, torch, x["InputTensor"], _indices(desc))[:2])


SAMPLES = mp.index_samples("MaxPooling2")
