"""DML_OPERATOR_SCATTER_ELEMENTS (alias DML_OPERATOR_SCATTER): shape rules the descriptor file cannot express.

From the docs page (DML_SCATTER_OPERATOR_DESC): Axis ranges "[0, OutputTensor.DimensionCount)"; IndicesTensor's
Sizes "must match InputTensor.Sizes for every dimension except Axis" (stricter than ONNX ScatterElements, which
allows smaller indices); UpdatesTensor's Sizes "must match IndicesTensor.Sizes"; OutputTensor's Sizes "must
match InputTensor" (DataType and DimensionCount are the generic validator's rules). DirectML agrees (vectors:
an OutputTensor of {1, 1, 1, 2} for a {1, 1, 1, 1} input is refused; Axis 1 of 1-dimensional tensors is refused).
"""
from __future__ import annotations

from ..errors import Problem
from . import _layout as L


def check(desc, level) -> list[Problem]:
    """Axis in range; IndicesTensor equals InputTensor outside Axis; UpdatesTensor has IndicesTensor's Sizes and
    OutputTensor InputTensor's."""
    return L.elements_problems(desc, scatter=True)
