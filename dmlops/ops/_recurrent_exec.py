"""The time loop of the recurrent operators (GRU, LSTM, RNN): one engine for the NumPy reference and both lowerings.

An operator supplies its cell: ``make_step(d)`` returns direction d's ``step(t, state) -> new state``, where
``state`` is a list of [batch, hidden] values, the hidden state h first (LSTM adds the cell C). ``run`` does the
rest, the same way on every backend through an ``ops`` adapter (``NumpyOps``, ``OnnxOps``, ``TorchOps``: the op
sets of dmlops/ops/_opset.py with the time loop's own methods): the directions and their time order, the initial
states, SequenceLengthsTensor, and the output tensors. The operators write their cells separately for the
reference (NumPy, float64) and the lowerings, so the numerics tests compare two codings of each recurrence.

The pages (DML_GRU/LSTM/RNN_OPERATOR_DESC) mirror ONNX GRU, LSTM and RNN with every tensor left-padded to 4-D;
what they leave unsaid follows onnxruntime's CPU kernels (research/seed_semantics.md §2.3; deep_cpu_gru.cc,
uni_directional_lstm.cc, rnn.cc), which its DirectML provider's tests share:

- FORWARD runs t = 0 .. T-1, BACKWARD t = T-1 .. 0; BIDIRECTIONAL is direction 0 forward and direction 1
  backward. OutputSequence[t, d] holds the state after step t, at the original index t in both directions.
- With SequenceLengthsTensor, step t of batch entry b is valid when t < len_b. An invalid step keeps the state
  and writes 0 to OutputSequence, so a backward pass begins at each sequence's own last valid step len_b - 1
  with the initial state. A length above seq_length acts as seq_length (onnxruntime rejects it; DirectML does
  not say).
- len_b = 0, as DirectML computes it (vectors GRU lengths_3_0_1_*, LSTM/RNN ragged_lengths_3_1_0,
  edge_hand_bidirectional_lengths_2_1_0_*; onnxruntime instead zeroes every final state): a backward pass ran no
  step, so its final states are the initial ones (HiddenInit, CellMemInit); a forward pass's final hidden state
  is 0, and its other states (LSTM's cell) are those after step 0, which DirectML computes even for an empty
  sequence.
"""
from __future__ import annotations

import numpy as np

from ..enums import RecurrentNetworkDirection
from ..lower import activation_onnx, activation_torch
from ._opset import ONNX, NumPy, Torch


def directions(desc) -> list[bool]:
    """One entry per direction index: True where that pass runs backward in time."""
    return {RecurrentNetworkDirection.FORWARD: [False], RecurrentNetworkDirection.BACKWARD: [True],
            RecurrentNetworkDirection.BIDIRECTIONAL: [False, True]}[desc.direction]


def time_order(seq_length: int, reverse: bool) -> range:
    """The time indices of one pass, in the order it visits them."""
    return range(seq_length - 1, -1, -1) if reverse else range(seq_length)


def run(ops, desc, x: dict, states: dict[str, str], make_step) -> dict:
    """The recurrence of ``desc`` on backend ``ops``, one direction at a time; the declared outputs by DML name.

    ``x`` holds the inputs by DML name (None or absent where optional and not given). ``states`` maps each state's
    init input to its final output, hidden state first, e.g. {"HiddenInitTensor": "OutputSingleTensor"}; an absent
    init is 0. ``make_step(d)`` returns direction d's ``step(t, state) -> new state`` (see the module docstring).
    """
    T, N = desc.input_tensor.sizes[1:3]
    H = desc.recurrence_tensor.sizes[3]
    like = x["InputTensor"]
    lens = ops.lengths(x.get("SequenceLengthsTensor"))  # int64 [N, 1], or None
    want_sequence = desc.output_sequence_tensor is not None
    zero = ops.zeros((N, H), like)
    sequences, finals = [], []
    for d, reverse in enumerate(directions(desc)):
        step = make_step(d)
        state = [zero if x.get(name) is None else ops.initial(x[name], d) for name in states]
        y = [None] * T
        first: list = []  # the states after the pass's first step
        for t in time_order(T, reverse):
            new = list(step(t, state))
            if not first:
                first = new
            if lens is None:
                y[t], state = new[0], new
            else:
                valid = ops.lt(t, lens)
                y[t] = ops.where(valid, new[0], zero) if want_sequence else None
                state = [ops.where(valid, n, s) for n, s in zip(new, state)]
        if lens is not None and not reverse:  # len_b = 0: hidden 0, the other states after step 0
            started = ops.lt(0, lens)
            state = [ops.where(started, state[0], zero)] + [ops.where(started, s, f)
                                                            for s, f in zip(state[1:], first[1:])]
        sequences.append(y)
        finals.append(state)
    out = {}
    if want_sequence:
        out["OutputSequenceTensor"] = ops.stack([ops.stack([y[t] for y in sequences], 0) for t in range(T)], 0)
    tensors = desc.tensors()
    for i, final in enumerate(states.values()):
        if tensors.get(final) is not None:
            out[final] = ops.stack([ops.stack([s[i] for s in finals], 0)], 0)
    return out


# Backend adapters: dmlops/ops/_opset.py's op sets with what the time loop and the cells add ------------------

class _Steps:
    """What ``run`` and the cells add to an op set (written once over its ``take``, ``cast`` and ``reshape``)."""

    def index(self, v, *indices):
        """v[i0, i1, ...]: one scalar index per leading axis (each drops its axis)."""
        for i in indices:
            v = self.take(v, i, 0)
        return v

    def initial(self, value, d: int):
        """Direction d of a {1, D, N, H} init tensor."""
        return self.index(value, 0, d)

    def scalar(self, value, like):
        """``value`` beside ``like`` (every op set takes a Python number there, in ``like``'s dtype)."""
        return value

    def lengths(self, v):
        """SequenceLengths {1, 1, 1, N} (UINT32) as int64 [N, 1] (broadcasts against [N, H]), or None when absent."""
        return None if v is None else self.cast(self.reshape(v, [-1, 1]), np.int64)


class NumpyOps(_Steps, NumPy):
    """What ``run`` needs, in float64 NumPy (the reference computes in float64 whatever the tensors' type)."""

    def __init__(self):
        super().__init__(np.float64)

    def initial(self, value, d: int):
        """Direction d of a {1, D, N, H} init tensor, in float64."""
        return value[0, d].astype(np.float64)

    def zeros(self, shape, like):
        """float64 zeros."""
        return np.zeros(shape)


class OnnxOps(_Steps, ONNX):
    """What ``run`` and the LSTM/RNN cells need, as ONNX nodes in the builder ``g`` (values keep the compute dtype)."""

    def split(self, v, n: int):
        """n equal blocks of the last axis (a tuple)."""
        out = self.g.node("Split", [v], outputs=n, axis=-1, num_outputs=n)
        return out if n > 1 else (out,)

    def act(self, desc, v):
        """A nested activation desc applied to v."""
        return activation_onnx(desc, self.g, v)

    def zeros(self, shape, like):
        """A zero constant of ``like``'s dtype."""
        return self.g.const(np.zeros(shape, self.g.dtype(like)))


class TorchOps(_Steps, Torch):
    """What ``run`` and the LSTM/RNN cells need, as torch calls (torch 2.4 APIs only)."""

    def split(self, v, n: int):
        """n equal blocks of the last axis."""
        return self.torch.chunk(v, n, dim=-1)

    def act(self, desc, v):
        """A nested activation desc applied to v."""
        return activation_torch(desc, self.torch, v)

    def zeros(self, shape, like):
        """Zeros of ``like``'s dtype and device."""
        return self.torch.zeros(shape, dtype=like.dtype, device=like.device)


# Cells whose gates are all linear in h (LSTM, RNN; GRU's reset gate is not) ----------------------------------

def linear_gates_reference(x: dict, d: int, cell):
    """Direction d's ``step`` for the reference: ``cell(pre, state)`` with pre = x_t W^T + h R^T + Wb + Rb
    ([N, gates * H], float64)."""
    seq = x["InputTensor"][0].astype(np.float64)  # [T, N, I]
    w = x["WeightTensor"][0, d].astype(np.float64)  # [gates * H, I]
    r = x["RecurrenceTensor"][0, d].astype(np.float64)  # [gates * H, H]
    gh = r.shape[0]
    b = x.get("BiasTensor")
    bias = np.zeros(gh) if b is None else b[0, 0, d].astype(np.float64)[:gh] + b[0, 0, d].astype(np.float64)[gh:]

    def step(t, state):
        return cell(np.einsum("ni,gi->ng", seq[t], w) + np.einsum("nh,gh->ng", state[0], r) + bias, state)

    return step


def linear_gates(ops, x: dict, d: int, cell):
    """``linear_gates_reference`` with backend ``ops``: x W^T + Wb + Rb for every step at once, then h R^T per step."""
    w = ops.transpose(ops.index(x["WeightTensor"], 0, d), [1, 0])  # [I, gates * H]
    xw = ops.matmul(ops.index(x["InputTensor"], 0), w)  # [T, N, gH]
    if x.get("BiasTensor") is not None:
        wb, rb = ops.split(ops.index(x["BiasTensor"], 0, 0, d), 2)
        xw = ops.add(xw, ops.add(wb, rb))
    r = ops.transpose(ops.index(x["RecurrenceTensor"], 0, d), [1, 0])  # [H, gates * H]

    def step(t, state):
        return cell(ops.add(ops.index(xw, t), ops.matmul(state[0], r)), state)

    return step
