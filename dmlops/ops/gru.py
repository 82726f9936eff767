"""Hand-written rules for DML_OPERATOR_GRU (shape relations from the DML_GRU_OPERATOR_DESC page)."""
from __future__ import annotations

from ..errors import Problem
from . import _recurrent

# Sizes exactly as the reference page writes them; gate blocks are z, r, h.
LAYOUTS = {
    "InputTensor": ("1", "seq_length", "batch_size", "input_size"),
    "WeightTensor": ("1", "num_directions", "3 * hidden_size", "input_size"),
    "RecurrenceTensor": ("1", "num_directions", "3 * hidden_size", "hidden_size"),
    "BiasTensor": ("1", "1", "num_directions", "6 * hidden_size"),
    "HiddenInitTensor": ("1", "num_directions", "batch_size", "hidden_size"),
    "SequenceLengthsTensor": ("1", "1", "1", "batch_size"),
    "OutputSequenceTensor": ("seq_length", "num_directions", "batch_size", "hidden_size"),
    "OutputSingleTensor": ("1", "num_directions", "batch_size", "hidden_size"),
}


def check(desc, level) -> list[Problem]:
    """The tensor layouts above, two activations (f, g) per direction, and no OWNED_BY_DML inputs."""
    return _recurrent.check(desc, LAYOUTS, gates=3, activations_per_direction=2)
