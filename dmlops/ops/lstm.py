"""Hand-written rules for DML_OPERATOR_LSTM (shape relations from the DML_LSTM_OPERATOR_DESC page).

ClipThreshold, UseClipThreshold and CoupleInputForget have no documented constraint, so none is checked.
"""
from __future__ import annotations

from ..errors import Problem
from . import _recurrent

# Sizes exactly as the reference page writes them; gate blocks are i, o, f, c (peepholes i, o, f).
LAYOUTS = {
    "InputTensor": ("1", "seq_length", "batch_size", "input_size"),
    "WeightTensor": ("1", "num_directions", "4 * hidden_size", "input_size"),
    "RecurrenceTensor": ("1", "num_directions", "4 * hidden_size", "hidden_size"),
    "BiasTensor": ("1", "1", "num_directions", "8 * hidden_size"),
    "HiddenInitTensor": ("1", "num_directions", "batch_size", "hidden_size"),
    "CellMemInitTensor": ("1", "num_directions", "batch_size", "hidden_size"),
    "SequenceLengthsTensor": ("1", "1", "1", "batch_size"),
    "PeepholeTensor": ("1", "1", "num_directions", "3 * hidden_size"),
    "OutputSequenceTensor": ("seq_length", "num_directions", "batch_size", "hidden_size"),
    "OutputSingleTensor": ("1", "num_directions", "batch_size", "hidden_size"),
    "OutputCellSingleTensor": ("1", "num_directions", "batch_size", "hidden_size"),
}


def check(desc, level) -> list[Problem]:
    """The tensor layouts above, three activations (f, g, h) per direction, and no OWNED_BY_DML inputs."""
    return _recurrent.check(desc, LAYOUTS, gates=4, activations_per_direction=3)
