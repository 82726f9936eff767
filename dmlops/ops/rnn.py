"""DML_OPERATOR_RNN: one simple recurrent layer over a sequence (rules, NumPy reference, ONNX and torch lowerings).

The DML_RNN_OPERATOR_DESC page is ONNX RNN with 4-D left-padded tensors: one gate (the input gate), bias
[Wb, Rb] per direction, one activation f per direction (forward first):

    h_t = f(x_t W^T + h_{t-1} R^T + Wb + Rb)

DML_RNN has no clip field (ONNX RNN's clip must be lowered by the caller). Directions and SequenceLengths:
see _recurrent_exec (onnxruntime 1.31's own RNN kernel agrees except for a length of 0, where DirectML's
backward pass keeps HiddenInit: tests/test_oracle_lstm_rnn.py).

to_onnx unrolls the T steps into MatMul/Add/Where nodes instead of emitting ONNX RNN, because ONNX RNN names
its activation from a fixed list (any DML activation desc may appear here, lowered by activation_onnx) and
has no float16 kernel on onnxruntime's CPU provider; the unrolled graph keeps one definition of
SequenceLengths on every execution provider.
"""
from __future__ import annotations

import numpy as np

from ..descs import ActivationRelu, ActivationSigmoid, ActivationTanh, Rnn
from ..errors import Problem
from ..lower import activation_reference
from ..sample import Sample
from . import _recurrent
from . import _recurrent_exec as rx
from . import _recurrent_fused
from ._recurrent import f32, random_inputs

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

# The one state: initial value -> final output.
STATES = {"HiddenInitTensor": "OutputSingleTensor"}


def check(desc, level) -> list[Problem]:
    """The tensor layouts above, one activation (f) per direction, and no OWNED_BY_DML inputs."""
    return _recurrent.check(desc, LAYOUTS, gates=1, activations_per_direction=1)


def reference(desc, x):
    """h_t = f(x_t W^T + h_{t-1} R^T + Wb + Rb) in float64, vectorised over the batch."""
    def make_step(d):
        f = desc.activation_descs[d]
        return rx.linear_gates_reference(x, d, lambda pre, state: [activation_reference(f, pre)])

    return rx.run(rx.NumpyOps(), desc, x, STATES, make_step)


def _step(ops, desc, x, d):
    """Direction d's step on [N, ...] backend values (the same equation as ``reference``)."""
    f = desc.activation_descs[d]
    return rx.linear_gates(ops, x, d, lambda pre, state: [ops.act(f, pre)])


def to_onnx(desc, g, x):
    """The T steps unrolled into ONNX nodes (see the module docstring for why not ONNX RNN)."""
    ops = rx.OnnxOps(g)
    return rx.run(ops, desc, x, STATES, lambda d: _step(ops, desc, x, d))


def to_torch(desc, torch, x):
    """torch.rnn_tanh in one call where it computes this descriptor exactly (_recurrent_fused: tanh, on the CPU or
    CUDA), else a Python loop over the T steps with torch ops (torch.nn.RNN knows only tanh and relu, and its relu
    keeps NaN)."""
    fused = _recurrent_fused.run(desc, torch, x)
    if fused is not None:
        return fused
    ops = rx.TorchOps(torch)
    return rx.run(ops, desc, x, STATES, lambda d: _step(ops, desc, x, d))


# Samples ---------------------------------------------------------------------------------------------------

def _desc(T, N, I, H, direction="FORWARD", acts=None, present=(), strides=None):
    """An RNN desc: the three required inputs, the optional tensors named in ``present``, f per direction
    (default tanh), ``strides`` by DML tensor name."""
    D = 2 if direction == "BIDIRECTIONAL" else 1
    sizes = {"InputTensor": [1, T, N, I], "WeightTensor": [1, D, H, I], "RecurrenceTensor": [1, D, H, H],
             "BiasTensor": [1, 1, D, 2 * H], "HiddenInitTensor": [1, D, N, H], "SequenceLengthsTensor": [1, 1, 1, N],
             "OutputSequenceTensor": [T, D, N, H], "OutputSingleTensor": [1, D, N, H]}
    fields = _recurrent.sample_tensors(Rnn, sizes, present, strides)
    return Rnn(**fields, activation_descs=tuple(acts or [ActivationTanh()] * D), direction=direction)


def _samples():
    outs = ("OutputSequenceTensor", "OutputSingleTensor")
    every = ("BiasTensor", "HiddenInitTensor") + outs
    samples = [
        # I = H = 1, f = relu, W = 2, R = 0.5, Wb = 0.25, Rb = 0.75, h0 = 2, x = [1, 2]:
        # t=0: relu(2*1 + 0.5*2 + 0.25 + 0.75) = 4; t=1: relu(2*2 + 0.5*4 + 1) = 7.
        Sample("hand_relu_two_steps", _desc(2, 1, 1, 1, acts=[ActivationRelu()], present=every),
               {"InputTensor": f32([1, 2], [1, 2, 1, 1]), "WeightTensor": f32([2], [1, 1, 1, 1]),
                "RecurrenceTensor": f32([0.5], [1, 1, 1, 1]), "BiasTensor": f32([0.25, 0.75], [1, 1, 1, 2]),
                "HiddenInitTensor": f32([2], [1, 1, 1, 1])},
               {"OutputSequenceTensor": f32([4, 7], [2, 1, 1, 1]), "OutputSingleTensor": f32([7], [1, 1, 1, 1])},
               atol=0, rtol=0, why="small integers: exact", float16_atol=0, float16_rtol=0),
        # f = tanh (the default), W = 1, R = 1, no bias, h0 absent (0), x = [0.5, 1]:
        # t=0: tanh(0.5); t=1: tanh(1 + tanh(0.5)).
        Sample("hand_tanh_two_steps", _desc(2, 1, 1, 1, present=outs),
               {"InputTensor": f32([0.5, 1], [1, 2, 1, 1]), "WeightTensor": f32([1], [1, 1, 1, 1]),
                "RecurrenceTensor": f32([1], [1, 1, 1, 1])},
               {"OutputSequenceTensor": f32([np.tanh(0.5), np.tanh(1 + np.tanh(0.5))], [2, 1, 1, 1]),
                "OutputSingleTensor": f32([np.tanh(1 + np.tanh(0.5))], [1, 1, 1, 1])},
               why="float32 rounding of tanh", atol=1e-6, rtol=1e-6),
        # Bidirectional relu, T = 2, N = 3, lengths [2, 1, 0], h0 = 1 everywhere; forward W = 1, R = 1,
        # backward W = 1, R = 2; x[t=0] = [1, 10, 5], x[t=1] = [2, 20, 7].
        # forward  b0: relu(1 + 1) = 2, relu(2 + 2) = 4          -> Y[:, 0, 0] = [2, 4],  final 4
        #          b1: relu(10 + 1) = 11, t=1 past the end       -> Y[:, 0, 1] = [11, 0], final 11
        #          b2: length 0                                  -> Y[:, 0, 2] = [0, 0],  final 0 (not h0)
        # backward b0: from t=1: relu(2 + 2) = 4, relu(1 + 8) = 9 -> Y[:, 1, 0] = [9, 4],  final 9
        #          b1: starts at its own last step t=0: relu(10 + 2) = 12 -> Y[:, 1, 1] = [12, 0], final 12
        #          b2: length 0: no step runs                    -> zeros, final h0 = 1 (DirectML)
        Sample("hand_bidirectional_lengths_2_1_0",
               _desc(2, 3, 1, 1, "BIDIRECTIONAL", [ActivationRelu()] * 2,
                     ("HiddenInitTensor", "SequenceLengthsTensor") + outs),
               {"InputTensor": f32([1, 10, 5, 2, 20, 7], [1, 2, 3, 1]), "WeightTensor": f32([1, 1], [1, 2, 1, 1]),
                "RecurrenceTensor": f32([1, 2], [1, 2, 1, 1]), "HiddenInitTensor": f32([1] * 6, [1, 2, 3, 1]),
                "SequenceLengthsTensor": np.array([2, 1, 0], np.uint32).reshape(1, 1, 1, 3)},
               {"OutputSequenceTensor": f32([2, 11, 0, 9, 12, 0, 4, 0, 0, 4, 0, 0], [2, 2, 3, 1]),
                "OutputSingleTensor": f32([4, 11, 0, 9, 12, 1], [1, 2, 3, 1])},
               atol=0, rtol=0, why="small integers: exact", float16_atol=0, float16_rtol=0),
    ]
    # Reference-only samples, one per feature (T=3, N=2 or 3, I=3, H=2).
    d = _desc(3, 2, 3, 2, "BIDIRECTIONAL", [ActivationSigmoid(), ActivationRelu()], every)
    samples.append(Sample("bidirectional_own_activations", d, random_inputs(d, 1)))
    d = _desc(3, 2, 3, 2, "BACKWARD", present=every)
    samples.append(Sample("backward", d, random_inputs(d, 2)))
    d = _desc(3, 3, 3, 2, "BIDIRECTIONAL", present=every + ("SequenceLengthsTensor",))
    samples.append(Sample("ragged_lengths_3_1_0", d, random_inputs(d, 3, lengths=[3, 1, 0])))
    d = _desc(3, 2, 3, 2, "BACKWARD", present=("OutputSingleTensor", "SequenceLengthsTensor"))
    samples.append(Sample("only_final_output_ragged", d, random_inputs(d, 4, lengths=[1, 3])))
    d = _desc(3, 2, 3, 2, present=("OutputSequenceTensor",))
    samples.append(Sample("only_sequence_output_no_optional_inputs", d, random_inputs(d, 5)))
    # HiddenInit read through zero strides: one row per direction for every batch entry.
    d = _desc(3, 3, 3, 2, "BIDIRECTIONAL", present=every, strides={"HiddenInitTensor": [0, 2, 0, 1]})
    samples.append(Sample("broadcast_hidden_init", d,
                          random_inputs(d, 6, buffers={"HiddenInitTensor": 4})))
    return samples


SAMPLES = _samples()
