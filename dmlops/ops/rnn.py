"""Hand-written rules for DML_OPERATOR_RNN (shape relations from the DML_RNN_OPERATOR_DESC page)."""
from __future__ import annotations

from ..errors import Problem
from . import _recurrent

# Sizes exactly as the reference page writes them (one gate: the input gate).
LAYOUTS = {
    "InputTensor": ("1", "seq_length", "batch_size", "input_size"),
    "WeightTensor": ("1", "num_directions", "hidden_size", "input_size"),
    "RecurrenceTensor": ("1", "num_directions", "hidden_size", "hidden_size"),
    "BiasTensor": ("1", "1", "num_directions", "2 * hidden_size"),
    "HiddenInitTensor": ("1", "num_directions", "batch_size", "hidden_size"),
    "SequenceLengthsTensor": ("1", "1", "1", "batch_size"),
    "OutputSequenceTensor": ("seq_length", "num_directions", "batch_size", "hidden_size"),
    "OutputSingleTensor": ("1", "num_directions", "batch_size", "hidden_size"),
}


def check(desc, level) -> list[Problem]:
    """The tensor layouts above, one activation (f) per direction, and no OWNED_BY_DML inputs."""
    return _recurrent.check(desc, LAYOUTS, gates=1, activations_per_direction=1)
