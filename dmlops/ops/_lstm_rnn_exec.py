"""The time loop shared by DML_OPERATOR_LSTM and DML_OPERATOR_RNN, for the reference and the two lowerings.

Both pages (DML_LSTM_OPERATOR_DESC, DML_RNN_OPERATOR_DESC) mirror ONNX LSTM and RNN with every tensor
left-padded to 4-D; what they leave unsaid follows onnxruntime's CPU kernels (uni_directional_lstm.cc,
rnn.cc), which the onnxruntime DirectML provider's tests share:

* FORWARD runs t = 0 .. T-1 and BACKWARD t = T-1 .. 0; BIDIRECTIONAL is direction 0 forward and direction 1
  backward. OutputSequence[t, d] holds the state after step t, at the original index t in both directions.
* SequenceLengths: step t is valid for sequence b when t < len_b. A step that is not valid leaves the state
  as it was and writes 0 to OutputSequence, so the backward direction starts at each sequence's own last
  valid step len_b - 1 with the initial state. A length above T counts as T (onnxruntime rejects it;
  DirectML says nothing).
* len_b = 0, as DirectML computes it (vectors ragged_lengths_3_1_0, edge_ragged_lengths_3_1_0_*,
  edge_hand_bidirectional_lengths_2_1_0_*; onnxruntime instead zeroes every final state): the backward
  direction ran no step, so its final states are the initial ones (HiddenInit, CellMemInit); the forward
  direction's final hidden state is 0, and its final cell (LSTM) is the cell after step 0, which DirectML
  computes even for an empty sequence.

``reference`` is vectorised NumPy over (direction, batch) in float64. ``unroll`` writes the same loop once
per direction with backend ops (``OnnxOps`` builds ONNX nodes, ``TorchOps`` calls torch), so the lowerings
and the reference are two separate codings of the recurrence and the numerics tests compare them.
"""
from __future__ import annotations

import numpy as np

from ..enums import RecurrentNetworkDirection
from ..lower import activation_onnx, activation_reference, activation_torch
from ..sample import td
from ._recurrent import num_directions


def is_backward(desc, d: int) -> bool:
    """Whether direction ``d`` of ``desc`` runs from the last step to the first."""
    return desc.direction == RecurrentNetworkDirection.BACKWARD or d == 1


def _present(desc, values: dict) -> dict:
    """The values of the output tensors the descriptor declares (the others are optional and absent)."""
    tensors = desc.tensors()
    return {name: v for name, v in values.items() if tensors.get(name) is not None}


# NumPy reference -------------------------------------------------------------------------------------------

def per_direction(acts, v: np.ndarray) -> np.ndarray:
    """``acts[d]`` applied to ``v[d]`` (v is [D, N, H]): each direction has its own activation descs."""
    return np.stack([activation_reference(a, v[d]) for d, a in enumerate(acts)])


def reference(desc, x: dict, states: dict[str, str], cell) -> dict:
    """Run the recurrence in float64 NumPy; return the declared outputs by DML name.

    ``states`` maps each state's init input to its final output, hidden state first, e.g.
    {"HiddenInitTensor": "OutputSingleTensor"}. ``cell(pre, state) -> new state`` gets
    pre = x_t W^T + h_{t-1} R^T + Wb + Rb ([D, N, gates * H]) and the state list ([D, N, H] each).
    """
    def f64(name):
        return None if x.get(name) is None else x[name].astype(np.float64)

    seq, w, r = f64("InputTensor")[0], f64("WeightTensor")[0], f64("RecurrenceTensor")[0]
    T, N = seq.shape[:2]
    D, GH, H = r.shape
    b = f64("BiasTensor")
    bias = np.zeros((D, GH)) if b is None else b[0, 0, :, :GH] + b[0, 0, :, GH:]
    state = [np.zeros((D, N, H)) if f64(name) is None else f64(name)[0] for name in states]
    lens = x.get("SequenceLengthsTensor")
    lengths = np.full(N, T, np.int64) if lens is None else lens.reshape(N).astype(np.int64)
    backward = np.array([is_backward(desc, d) for d in range(D)])
    y = np.zeros((T, D, N, H))
    for k in range(T):
        t = np.where(backward, T - 1 - k, k)  # the time index of step k in each direction
        pre = (np.einsum("dni,dgi->dng", seq[t], w) + np.einsum("dnh,dgh->dng", state[0], r)
               + bias[:, None, :])
        new = cell(pre, state)
        if k == 0:
            first = new
        valid = (t[:, None] < lengths[None, :])[..., None]  # [D, N, 1]
        y[t, np.arange(D)] = np.where(valid, new[0], 0.0)
        state = [np.where(valid, n, s) for n, s in zip(new, state)]
    # len_b = 0, forward: hidden 0, cell after step 0; backward: the initial states (DirectML; ONNX: all 0).
    empty = (lengths == 0)[None, :, None] & ~backward[:, None, None]
    finals = [np.where(empty, 0.0, state[0])] + [np.where(empty, f, s) for f, s in zip(first[1:], state[1:])]
    out = {"OutputSequenceTensor": y}
    out.update({final: s[None] for final, s in zip(states.values(), finals)})
    return _present(desc, out)


# Backend lowerings -----------------------------------------------------------------------------------------

def unroll(ops, desc, x: dict, states: dict[str, str], make_cell) -> dict:
    """The recurrence with backend ``ops``, one direction at a time, T unrolled; the declared outputs by name.

    ``make_cell(d)`` returns direction d's ``cell(pre, state) -> new state`` on [N, ...] values, where
    pre = x_t W^T + h_{t-1} R^T + Wb + Rb ([N, gates * H]); ``states`` is as in ``reference``.
    """
    T, N = desc.input_tensor.sizes[1:3]
    H = desc.recurrence_tensor.sizes[3]
    seq = ops.index(x["InputTensor"], 0)  # [T, N, I]
    lens = x.get("SequenceLengthsTensor")
    lens = None if lens is None else ops.lengths(lens)  # int64 [N, 1]
    want_sequence = desc.output_sequence_tensor is not None
    sequences, finals = [], []
    for d in range(num_directions(desc)):
        xw = ops.matmul(seq, ops.transpose(ops.index(x["WeightTensor"], 0, d)))  # [T, N, gates * H]
        if x.get("BiasTensor") is not None:
            wb, rb = ops.split(ops.index(x["BiasTensor"], 0, 0, d), 2)
            xw = ops.add(xw, ops.add(wb, rb))
        r = ops.transpose(ops.index(x["RecurrenceTensor"], 0, d))  # [H, gates * H]
        zero = ops.zeros((N, H), like=xw)
        state = [zero if x.get(name) is None else ops.index(x[name], 0, d) for name in states]
        cell = make_cell(d)
        y = [None] * T
        backward = is_backward(desc, d)
        for t in (reversed(range(T)) if backward else range(T)):
            new = cell(ops.add(ops.index(xw, t), ops.matmul(state[0], r)), state)
            if t == 0:
                first = new
            if lens is None:
                y[t], state = new[0], list(new)
            else:
                valid = ops.less(t, lens)
                y[t] = ops.where(valid, new[0], zero) if want_sequence else None
                state = [ops.where(valid, n, s) for n, s in zip(new, state)]
        if lens is not None and not backward:  # len_b = 0: hidden 0, cell after step 0 (as ``reference``)
            started = ops.less(0, lens)
            state = [ops.where(started, state[0], zero)] + [ops.where(started, s, f)
                                                            for s, f in zip(state[1:], first[1:])]
        sequences.append(y)
        finals.append(state)
    out = {}
    if want_sequence:
        out["OutputSequenceTensor"] = ops.stack([ops.stack([y[t] for y in sequences], 0) for t in range(T)], 0)
    for i, final in enumerate(states.values()):
        if desc.tensors().get(final) is not None:
            out[final] = ops.stack([ops.stack([s[i] for s in finals], 0)], 0)
    return out


class OnnxOps:
    """The ops ``unroll`` needs, as ONNX nodes in the builder ``g`` (values keep the compute dtype)."""

    def __init__(self, g):
        self.g = g

    def index(self, v, *indices):
        """v[i0, i1, ...]: one Gather with a scalar index per leading axis (each drops its axis)."""
        for i in indices:
            v = self.g.node("Gather", [v, self.g.const(np.int64(i))], axis=0)
        return v

    def transpose(self, v):
        """A 2-D value transposed."""
        return self.g.node("Transpose", [v], perm=[1, 0])

    def matmul(self, a, b):
        """a @ b."""
        return self.g.node("MatMul", [a, b])

    def add(self, a, b):
        """a + b."""
        return self.g.node("Add", [a, b])

    def sub(self, a, b):
        """a - b."""
        return self.g.node("Sub", [a, b])

    def mul(self, a, b):
        """a * b."""
        return self.g.node("Mul", [a, b])

    def scalar(self, value, like):
        """A constant of ``like``'s dtype."""
        return self.g.scalar(value, like)

    def split(self, v, n: int):
        """n equal blocks of the last axis (a tuple)."""
        out = self.g.node("Split", [v], outputs=n, axis=-1, num_outputs=n)
        return out if n > 1 else (out,)

    def clip(self, v, lo: float, hi: float):
        """min(max(v, lo), hi)."""
        return self.g.node("Clip", [v, self.g.scalar(lo, v), self.g.scalar(hi, v)])

    def act(self, desc, v):
        """A nested activation desc applied to v."""
        return activation_onnx(desc, self.g, v)

    def zeros(self, shape, like):
        """A zero constant of ``like``'s dtype."""
        return self.g.const(np.zeros(shape, self.g.dtype(like)))

    def lengths(self, v):
        """SequenceLengths [1, 1, 1, N] (UINT32) as int64 [N, 1]."""
        return self.g.cast(self.g.node("Reshape", [v, self.g.ints([-1, 1])]), np.int64)

    def less(self, t: int, lens):
        """The bool mask t < lens."""
        return self.g.node("Less", [self.g.const(np.int64(t)), lens], dtype=np.bool_)

    def where(self, mask, a, b):
        """mask ? a : b."""
        return self.g.node("Where", [mask, a, b], dtype=self.g.dtype(a))

    def stack(self, values, axis: int):
        """The values stacked along a new axis."""
        parts = [self.g.node("Unsqueeze", [v, self.g.ints([axis])]) for v in values]
        return parts[0] if len(parts) == 1 else self.g.node("Concat", parts, axis=axis)


class TorchOps:
    """The ops ``unroll`` needs, as torch calls (torch 2.4 APIs only)."""

    def __init__(self, torch):
        self.torch = torch

    def index(self, v, *indices):
        """v[i0, i1, ...]."""
        return v[indices]

    def transpose(self, v):
        """A 2-D tensor transposed."""
        return v.t()

    def matmul(self, a, b):
        """a @ b."""
        return self.torch.matmul(a, b)

    def add(self, a, b):
        """a + b."""
        return a + b

    def sub(self, a, b):
        """a - b."""
        return a - b

    def mul(self, a, b):
        """a * b."""
        return a * b

    def scalar(self, value, like):
        """A Python number (torch broadcasts it in ``like``'s dtype)."""
        return value

    def split(self, v, n: int):
        """n equal blocks of the last axis."""
        return self.torch.chunk(v, n, dim=-1)

    def clip(self, v, lo: float, hi: float):
        """min(max(v, lo), hi)."""
        return self.torch.clamp(v, lo, hi)

    def act(self, desc, v):
        """A nested activation desc applied to v."""
        return activation_torch(desc, self.torch, v)

    def zeros(self, shape, like):
        """Zeros of ``like``'s dtype and device."""
        return self.torch.zeros(shape, dtype=like.dtype, device=like.device)

    def lengths(self, v):
        """SequenceLengths [1, 1, 1, N] (uint32) as int64 [N, 1]."""
        return v.to(self.torch.int64).reshape(-1, 1)

    def less(self, t: int, lens):
        """The bool mask t < lens."""
        return lens > t

    def where(self, mask, a, b):
        """mask ? a : b."""
        return self.torch.where(mask, a, b)

    def stack(self, values, axis: int):
        """The values stacked along a new axis."""
        return self.torch.stack(values, axis)


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
