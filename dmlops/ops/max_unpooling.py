"""DML_OPERATOR_MAX_UNPOOLING: shape rules the descriptor file cannot express.

InputTensor is {Batch, Channel, Height, Width}; IndicesTensor has the same Sizes ("Both the InputTensor and
IndicesTensor have the same tensor sizes"); OutputTensor has the same number of dimensions (a generic rule)
and, being the input of the max pooling this inverts, the same Batch and Channel: the indices address it as
one flat array, but the page describes it as the un-pooled tensor of the same batch and channels.
"""
from __future__ import annotations

from ..errors import Problem
from ..validation import shape_problem, tensor
from ._shapes import sizes


def check(desc, level) -> list[Problem]:
    """IndicesTensor Sizes = InputTensor Sizes; OutputTensor Batch and Channel = InputTensor's."""
    out = []
    x = sizes(tensor(desc, "InputTensor"))
    if x is None:
        return out
    indices = sizes(tensor(desc, "IndicesTensor"))
    if indices is not None and indices != x:
        out.append(shape_problem(desc, "IndicesTensor", indices, "InputTensor's Sizes", x))
    y = sizes(tensor(desc, "OutputTensor"), len(x))
    if y is not None and len(x) == 4 and y[:2] != x[:2]:
        out.append(shape_problem(desc, "OutputTensor", y, "{Batch, Channel, OutputHeight, OutputWidth}",
                                 x[:2] + y[2:]))
    return out
