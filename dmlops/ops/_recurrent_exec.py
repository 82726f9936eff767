"""Execution helpers shared by the recurrent operators (GRU, LSTM, RNN): the direction of each pass, the
sequence-length mask and the time loop, once per backend (NumPy reference, ONNX graph, torch).

An op module writes one time step, ``step(t, state) -> new_state`` (``state`` a tuple whose first
entry is the hidden state h, shape [batch, hidden]), and ``scan_*`` runs it over the sequence. The
semantics are onnxruntime's CPU kernels' (research/seed_semantics.md §2.3), which its DirectML
provider is tested against; the DirectML docs do not describe SequenceLengthsTensor:

- FORWARD runs t = 0 .. T-1, BACKWARD t = T-1 .. 0; BIDIRECTIONAL is direction 0 forward and
  direction 1 backward. Outputs stay at their original time index (the backward pass is not stored
  reversed).
- With SequenceLengthsTensor, step t of batch entry b is valid when t < len_b. At an invalid step the
  state is kept and the output is 0. A backward pass that starts at T-1 under this mask therefore
  begins at each sequence's own last valid step len_b - 1. With len_b = 0, DirectML's answers (vectors
  lengths_3_0_1_*, edge_lengths_3_0_1_bidirectional_*) give a final state of 0 for a forward pass and
  HiddenInit for a backward one, which ran no step (onnxruntime's CPU kernel gives 0 for both). A length
  above seq_length acts as seq_length in every backend (onnxruntime rejects it; DirectML does not say).
"""
from __future__ import annotations

import numpy as np

from ..enums import RecurrentNetworkDirection


def directions(desc) -> list[bool]:
    """One entry per direction index: True where that pass runs backward in time."""
    return {RecurrentNetworkDirection.FORWARD: [False], RecurrentNetworkDirection.BACKWARD: [True],
            RecurrentNetworkDirection.BIDIRECTIONAL: [False, True]}[desc.direction]


def time_order(seq_length: int, reverse: bool) -> range:
    """The time indices of one pass, in the order it visits them."""
    return range(seq_length - 1, -1, -1) if reverse else range(seq_length)


# NumPy reference ---------------------------------------------------------------------------------
def lengths_reference(value):
    """SequenceLengthsTensor {1, 1, 1, N} as int64 [N], or None when absent."""
    return None if value is None else value.reshape(-1).astype(np.int64)


def scan_reference(step, state: tuple, seq_length: int, reverse: bool, lengths):
    """Run ``step`` over one pass; return (outputs [T, N, H] of h, final state tuple)."""
    outputs = [None] * seq_length
    for t in time_order(seq_length, reverse):
        new = step(t, state)
        if lengths is None:
            state, outputs[t] = new, new[0]
            continue
        valid = (t < lengths)[:, None]
        state = tuple(np.where(valid, n, s) for n, s in zip(new, state))
        outputs[t] = np.where(valid, new[0], 0.0)
    if lengths is not None and not reverse:  # len 0: forward 0, backward HiddenInit (DirectML; ONNX: 0 for both)
        state = tuple(np.where((lengths > 0)[:, None], s, 0.0) for s in state)
    return np.stack(outputs), state


def outputs_reference(desc, runs: list) -> dict:
    """OutputSequenceTensor {T, D, N, H} and OutputSingleTensor {1, D, N, H} (those the desc has) from the
    ``(outputs, final_state)`` pair of each direction."""
    out = {}
    if desc.output_sequence_tensor is not None:
        out["OutputSequenceTensor"] = np.stack([y for y, _ in runs], axis=1)
    if desc.output_single_tensor is not None:
        out["OutputSingleTensor"] = np.stack([s[0] for _, s in runs])[None]
    return out


# ONNX --------------------------------------------------------------------------------------------
def lengths_onnx(g, value):
    """SequenceLengthsTensor as an int64 [N, 1] value (broadcasts against [N, H]), or None when absent."""
    if value is None:
        return None
    return g.node("Reshape", [g.cast(value, np.int64), g.ints([-1, 1])])


def stack_onnx(g, values: list, axis: int) -> str:
    """np.stack for ONNX values."""
    return g.node("Concat", [g.node("Unsqueeze", [v, g.ints([axis])]) for v in values], axis=axis)


def scan_onnx(g, step, state: tuple, seq_length: int, reverse: bool, lengths):
    """scan_reference unrolled into the graph ``g`` (seq_length is static); ``lengths`` from lengths_onnx."""
    outputs = [None] * seq_length
    for t in time_order(seq_length, reverse):
        new = step(t, state)
        if lengths is None:
            state, outputs[t] = new, new[0]
            continue
        valid = g.node("Less", [g.const(np.int64(t)), lengths], dtype=np.bool_)
        state = tuple(g.node("Where", [valid, n, s], dtype=g.dtype(s)) for n, s in zip(new, state))
        outputs[t] = g.node("Where", [valid, new[0], g.scalar(0, new[0])], dtype=g.dtype(new[0]))
    if lengths is not None and not reverse:  # as scan_reference
        started = g.node("Greater", [lengths, g.const(np.int64(0))], dtype=np.bool_)
        state = tuple(g.node("Where", [started, s, g.scalar(0, s)], dtype=g.dtype(s)) for s in state)
    return stack_onnx(g, outputs, 0), state


def outputs_onnx(desc, g, runs: list) -> dict:
    """outputs_reference for ONNX values."""
    out = {}
    if desc.output_sequence_tensor is not None:
        out["OutputSequenceTensor"] = stack_onnx(g, [y for y, _ in runs], 1)
    if desc.output_single_tensor is not None:
        out["OutputSingleTensor"] = g.node("Unsqueeze", [stack_onnx(g, [s[0] for _, s in runs], 0), g.ints([0])])
    return out


def direction_slice_onnx(g, value: str, axis: int, d: int, shape) -> str:
    """Direction ``d`` of a 4-D recurrent tensor (its ``axis`` is num_directions), reshaped to ``shape``."""
    return g.node("Reshape", [g.node("Gather", [value, g.const(np.int64(d))], axis=axis), g.ints(shape)])


# torch -------------------------------------------------------------------------------------------
def lengths_torch(torch, value):
    """SequenceLengthsTensor as an int64 [N, 1] tensor, or None when absent."""
    return None if value is None else value.reshape(-1, 1).to(torch.int64)


def scan_torch(torch, step, state: tuple, seq_length: int, reverse: bool, lengths):
    """scan_reference with torch tensors."""
    outputs = [None] * seq_length
    for t in time_order(seq_length, reverse):
        new = step(t, state)
        if lengths is None:
            state, outputs[t] = new, new[0]
            continue
        valid = lengths > t
        state = tuple(torch.where(valid, n, s) for n, s in zip(new, state))
        outputs[t] = torch.where(valid, new[0], torch.zeros_like(new[0]))
    if lengths is not None and not reverse:  # as scan_reference
        started = lengths > 0
        state = tuple(torch.where(started, s, torch.zeros_like(s)) for s in state)
    return torch.stack(outputs), state


def outputs_torch(desc, torch, runs: list) -> dict:
    """outputs_reference for torch tensors."""
    out = {}
    if desc.output_sequence_tensor is not None:
        out["OutputSequenceTensor"] = torch.stack([y for y, _ in runs], dim=1)
    if desc.output_single_tensor is not None:
        out["OutputSingleTensor"] = torch.stack([s[0] for _, s in runs]).unsqueeze(0)
    return out
