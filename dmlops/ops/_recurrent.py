"""Shape rules and sample helpers shared by the recurrent operators (GRU, LSTM, RNN); their time loop is
_recurrent_exec.

Each op module gives its tensor layouts exactly as its DirectML reference page writes them, e.g.
``"WeightTensor": ("1", "num_directions", "3 * hidden_size", "input_size")``. The dimensions are
read from the descriptor: num_directions from Direction; seq_length, batch_size and input_size from
InputTensor; hidden_size from RecurrenceTensor's last dimension (or WeightTensor's gate rows).
A relation is checked only when its tensor is present and 4-D and every dimension it names is known;
missing tensors and wrong ranks are the generic validator's to report.
"""
from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from ..enums import RecurrentNetworkDirection
from ..errors import Problem
from ..sample import td
from ..types import TensorFlags
from ..validation import shape_problem, tensor


def check(desc, layouts: Mapping[str, tuple[str, ...]], gates: int, activations_per_direction: int) -> list[Problem]:
    """Every layout, ActivationDescs count and OWNED_BY_DML problem of a recurrent operator ``desc``.

    ``gates`` is the number of hidden_size blocks in WeightTensor's third dimension (GRU 3, LSTM 4, RNN 1).
    """
    out = _activation_count(desc, activations_per_direction)
    out += _owned_by_dml(desc)
    dims = _dimensions(desc, gates)
    for field, formula in layouts.items():
        t = tensor(desc, field)
        if t is None or t.dimension_count != len(formula):
            continue
        expected = [_evaluate(term, dims) for term in formula]
        if None not in expected and list(t.sizes) != expected:
            out.append(shape_problem(desc, field, t.sizes, "{" + ", ".join(formula) + "}", expected))
    return out


def num_directions(desc) -> int:
    """2 for DML_RECURRENT_NETWORK_DIRECTION_BIDIRECTIONAL, else 1."""
    return 2 if desc.direction == RecurrentNetworkDirection.BIDIRECTIONAL else 1


def _dimensions(desc, gates: int) -> dict[str, int]:
    dims = {"num_directions": num_directions(desc)}
    x = tensor(desc, "InputTensor")
    if x is not None and x.dimension_count == 4:
        dims.update(seq_length=x.sizes[1], batch_size=x.sizes[2], input_size=x.sizes[3])
    r, w = tensor(desc, "RecurrenceTensor"), tensor(desc, "WeightTensor")
    if r is not None and r.dimension_count == 4:
        dims["hidden_size"] = r.sizes[3]
    elif w is not None and w.dimension_count == 4 and w.sizes[2] % gates == 0:
        dims["hidden_size"] = w.sizes[2] // gates
    return dims


def _evaluate(term: str, dims: dict[str, int]) -> int | None:
    """``"1"`` -> 1, ``"hidden_size"`` -> dims["hidden_size"], ``"3 * hidden_size"`` -> 3 * that; None if unknown."""
    if term.isdigit():
        return int(term)
    factor, _, name = term.rpartition(" * ")
    value = dims.get(name)
    return None if value is None else int(factor or 1) * value


def _activation_count(desc, per_direction: int) -> list[Problem]:
    given = len(desc.activation_descs)
    needed = per_direction * num_directions(desc)
    if given == needed:
        return []
    noun = "activation" if given == 1 else "activations"
    return [Problem(desc.OPERATOR_TYPE, "ActivationDescs", "activation_count",
                    f"{given} {noun} given; {desc.direction.dml_name} needs {needed} ({per_direction} per direction).")]


def _owned_by_dml(desc) -> list[Problem]:
    # The reference pages say of every input: "The tensor doesn't support the DML_TENSOR_FLAG_OWNED_BY_DML flag."
    # The generic validator rejects the flag on outputs only.
    out = []
    for f in desc.schema().user_fields:
        t = tensor(desc, f.name) if f.type == "TENSOR_DESC" and f.kind == "input" else None
        if t is not None and TensorFlags.OWNED_BY_DML in t.flags:
            out.append(Problem(desc.OPERATOR_TYPE, f.name, "flags",
                               "Flags DML_TENSOR_FLAG_OWNED_BY_DML not supported on this input; must be DML_TENSOR_FLAG_NONE."))
    return out


# Sample helpers --------------------------------------------------------------------------------------------

def sample_tensors(cls, sizes: dict, present, strides=None) -> dict:
    """The TensorDesc fields (by Python name) of the three required inputs and the optional tensors named in
    ``present``: FLOAT32 (UINT32 SequenceLengths), ``sizes`` and ``strides`` by DML name."""
    names = {"InputTensor", "WeightTensor", "RecurrenceTensor", *present}
    strides = strides or {}
    return {py: td("UINT32" if name == "SequenceLengthsTensor" else "FLOAT32", sizes[name], strides.get(name))
            for py, name in cls.FIELD_NAMES.items() if name in names}


def random_inputs(desc, seed: int, lengths=None, buffers=None) -> dict:
    """Inputs in [-1, 1) for every present input (SequenceLengths from ``lengths``; ``buffers`` gives the
    element count of inputs passed as strided 1-D buffers)."""
    rng = np.random.default_rng(seed)
    out = {}
    for name, t in desc.tensors().items():
        if t is None or name.startswith("Output"):
            continue
        if name == "SequenceLengthsTensor":
            out[name] = np.array(lengths, np.uint32).reshape(t.sizes)
        else:
            out[name] = rng.uniform(-1, 1, (buffers or {}).get(name, t.sizes)).astype(np.float32)
    return out


def f32(values, shape) -> np.ndarray:
    """A float32 array of ``shape``."""
    return np.array(values, np.float32).reshape(shape)
