"""DML_OPERATOR_LSTM: one LSTM layer over a sequence (rules, NumPy reference, ONNX and torch lowerings).

The DML_LSTM_OPERATOR_DESC page is ONNX LSTM with 4-D left-padded tensors: gate blocks i, o, f, c
(ONNX's order; torch.nn.LSTM uses i, f, g, o), peepholes i, o, f, bias [Wb, Rb] per direction. Per step,
with f, g, h the direction's ActivationDescs and clip() the ClipThreshold bound when UseClipThreshold:

    i = f(clip(x W_i^T + h R_i^T + Wb_i + Rb_i + P_i * C_prev))
    f = 1 - i if CoupleInputForget else f(clip(x W_f^T + h R_f^T + Wb_f + Rb_f + P_f * C_prev))
    c = g(clip(x W_c^T + h R_c^T + Wb_c + Rb_c))
    C = f * C_prev + i * c
    o = f(clip(x W_o^T + h R_o^T + Wb_o + Rb_o + P_o * C))
    h = o * h(C)

The page says the clip "is applied to the input of activations" without listing them; as in onnxruntime's
CPU kernel (uni_directional_lstm.cc) it bounds the four gate inputs and not C before h(). CoupleInputForget is
ONNX's input_forget (f = 1 - i, as in that kernel). Directions and SequenceLengths: see _recurrent_exec.

to_onnx unrolls the T steps into MatMul/Add/Mul/Where nodes instead of emitting ONNX LSTM, because ONNX
LSTM names its activations from a fixed list (any DML activation desc may appear here, with its own
parameters, lowered by activation_onnx) and has no float16 kernel on onnxruntime's CPU provider; the
unrolled graph keeps one definition of SequenceLengths on every execution provider.
"""
from __future__ import annotations

import numpy as np

from ..descs import ActivationRelu, ActivationSigmoid, ActivationSoftplus, ActivationTanh, Lstm
from ..errors import Problem
from ..lower import activation_reference
from ..sample import Sample
from . import _recurrent
from . import _recurrent_exec as rx
from . import _recurrent_fused
from ._recurrent import f32, random_inputs

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

# The two states: initial value -> final output.
STATES = {"HiddenInitTensor": "OutputSingleTensor", "CellMemInitTensor": "OutputCellSingleTensor"}


def check(desc, level) -> list[Problem]:
    """The tensor layouts above, three activations (f, g, h) per direction, no OWNED_BY_DML inputs, and
    OutputSingleTensor wherever OutputCellSingleTensor is given.

    The last rule is DirectML's, not the docs' (they call every output optional): DirectML refuses an LSTM whose
    only output is OutputCellSingleTensor and runs the same LSTM with OutputSingleTensor added (vectors
    only_cell_output_no_optional_inputs and its _fixed_with_output_single twin). ClipThreshold,
    UseClipThreshold and CoupleInputForget have no documented constraint, so none is checked.
    """
    out = _recurrent.check(desc, LAYOUTS, gates=4, activations_per_direction=3)
    if desc.output_cell_single_tensor is not None and desc.output_single_tensor is None:
        out.append(Problem(desc.OPERATOR_TYPE, "OutputSingleTensor", "required",
                           "absent while OutputCellSingleTensor is given; DirectML writes OutputCellSingleTensor only "
                           "together with OutputSingleTensor."))
    return out


def _activations(desc, d: int):
    """(f, g, h) of direction d: ActivationDescs holds f, g, h forward, then f, g, h backward."""
    return desc.activation_descs[3 * d: 3 * d + 3]


def reference(desc, x):
    """The equations in the module docstring in float64, vectorised over the batch."""
    p = x.get("PeepholeTensor")
    thr = np.float64(np.float32(desc.clip_threshold))

    def clip(v):
        return np.minimum(np.maximum(v, -thr), thr) if desc.use_clip_threshold else v

    def make_step(d):
        f_act, g_act, h_act = _activations(desc, d)
        peep = None if p is None else np.split(p[0, 0, d].astype(np.float64)[None, :], 3, axis=-1)  # [1, H]

        def peephole(pre, k, c):  # no PeepholeTensor: no term (0 * a NaN or infinite C would be NaN)
            return pre if peep is None else pre + peep[k] * c

        def cell(pre, state):
            _, c_prev = state
            pre_i, pre_o, pre_f, pre_c = np.split(pre, 4, axis=-1)
            i = activation_reference(f_act, clip(peephole(pre_i, 0, c_prev)))
            if desc.couple_input_forget:
                f = 1.0 - i
            else:
                f = activation_reference(f_act, clip(peephole(pre_f, 2, c_prev)))
            c = f * c_prev + i * activation_reference(g_act, clip(pre_c))
            o = activation_reference(f_act, clip(peephole(pre_o, 1, c)))  # the output peephole sees the new C
            return [o * activation_reference(h_act, c), c]

        return rx.linear_gates_reference(x, d, cell)

    return rx.run(rx.NumpyOps(), desc, x, STATES, make_step)


def _step(ops, desc, x, d):
    """Direction d's step on [N, ...] backend values (same equations as ``reference``)."""
    f_act, g_act, h_act = _activations(desc, d)
    p = x.get("PeepholeTensor")
    p_i, p_o, p_f = (None,) * 3 if p is None else ops.split(ops.index(p, 0, 0, d), 3)
    thr = float(np.float32(desc.clip_threshold))

    def clip(v):
        return ops.clip(v, -thr, thr) if desc.use_clip_threshold else v

    def peep(v, weight, c):
        return v if weight is None else ops.add(v, ops.mul(weight, c))

    def cell(pre, state):
        _, c_prev = state
        pre_i, pre_o, pre_f, pre_c = ops.split(pre, 4)
        i = ops.act(f_act, clip(peep(pre_i, p_i, c_prev)))
        if desc.couple_input_forget:
            f = ops.sub(ops.scalar(1.0, like=i), i)
        else:
            f = ops.act(f_act, clip(peep(pre_f, p_f, c_prev)))
        c = ops.add(ops.mul(f, c_prev), ops.mul(i, ops.act(g_act, clip(pre_c))))
        o = ops.act(f_act, clip(peep(pre_o, p_o, c)))
        return [ops.mul(o, ops.act(h_act, c)), c]

    return rx.linear_gates(ops, x, d, cell)


def to_onnx(desc, g, x):
    """The T steps unrolled into ONNX nodes (see the module docstring for why not ONNX LSTM)."""
    ops = rx.OnnxOps(g)
    return rx.run(ops, desc, x, STATES, lambda d: _step(ops, desc, x, d))


def to_torch(desc, torch, x):
    """torch.lstm in one call where it computes this descriptor exactly (_recurrent_fused: sigmoid, tanh, tanh, no
    peepholes, clip or coupling, on the CPU or CUDA), else a Python loop over the T steps with torch ops."""
    fused = _recurrent_fused.run(desc, torch, x)
    if fused is not None:
        return fused
    ops = rx.TorchOps(torch)
    return rx.run(ops, desc, x, STATES, lambda d: _step(ops, desc, x, d))


# Samples ---------------------------------------------------------------------------------------------------

def _desc(T, N, I, H, direction="FORWARD", acts=None, present=(), clip=None, couple=False, strides=None):
    """An LSTM desc: the three required inputs, the optional tensors named in ``present``, f, g, h per
    direction (default sigmoid, tanh, tanh), ``strides`` by DML tensor name."""
    D = 2 if direction == "BIDIRECTIONAL" else 1
    sizes = {"InputTensor": [1, T, N, I], "WeightTensor": [1, D, 4 * H, I], "RecurrenceTensor": [1, D, 4 * H, H],
             "BiasTensor": [1, 1, D, 8 * H], "HiddenInitTensor": [1, D, N, H], "CellMemInitTensor": [1, D, N, H],
             "SequenceLengthsTensor": [1, 1, 1, N], "PeepholeTensor": [1, 1, D, 3 * H],
             "OutputSequenceTensor": [T, D, N, H], "OutputSingleTensor": [1, D, N, H],
             "OutputCellSingleTensor": [1, D, N, H]}
    fields = _recurrent.sample_tensors(Lstm, sizes, present, strides)
    if acts is None:
        acts = [ActivationSigmoid(), ActivationTanh(), ActivationTanh()] * D
    return Lstm(**fields, activation_descs=tuple(acts), direction=direction,
                clip_threshold=0.0 if clip is None else clip, use_clip_threshold=clip is not None,
                couple_input_forget=couple)


def _samples():
    every = ("BiasTensor", "HiddenInitTensor", "CellMemInitTensor", "PeepholeTensor", "OutputSequenceTensor",
             "OutputSingleTensor", "OutputCellSingleTensor")
    outs = ("OutputSequenceTensor", "OutputSingleTensor", "OutputCellSingleTensor")
    # Hand samples use f = sigmoid, g = h = relu, so that the arithmetic stays exact in binary.
    relu_acts = (ActivationSigmoid(), ActivationRelu(), ActivationRelu())
    hand = ("BiasTensor", "HiddenInitTensor", "CellMemInitTensor") + outs
    # I = H = 1. W and R rows are i, o, f, c: only the c rows are non-zero, so every sigmoid gate
    # sees 0 and is 0.5. Wb_c = Rb_c = 0.5, h0 = 2, C0 = 4.
    hand_inputs = {"WeightTensor": f32([0, 0, 0, 1], [1, 1, 4, 1]),
                   "RecurrenceTensor": f32([0, 0, 0, 0.5], [1, 1, 4, 1]),
                   "BiasTensor": f32([0, 0, 0, 0.5, 0, 0, 0, 0.5], [1, 1, 1, 8]),
                   "HiddenInitTensor": f32([2], [1, 1, 1, 1]), "CellMemInitTensor": f32([4], [1, 1, 1, 1])}
    samples = [
        # x = [1, 2]. t=0: c~ = relu(1*1 + 0.5*2 + 0.5 + 0.5) = 3; C = 0.5*4 + 0.5*3 = 3.5; h = 0.5*relu(3.5) = 1.75.
        # t=1: c~ = relu(1*2 + 0.5*1.75 + 1) = 3.875; C = 0.5*3.5 + 0.5*3.875 = 3.6875; h = 0.5*3.6875 = 1.84375.
        Sample("hand_relu_two_steps", _desc(2, 1, 1, 1, acts=relu_acts, present=hand),
               dict(hand_inputs, InputTensor=f32([1, 2], [1, 2, 1, 1])),
               {"OutputSequenceTensor": f32([1.75, 1.84375], [2, 1, 1, 1]),
                "OutputSingleTensor": f32([1.84375], [1, 1, 1, 1]),
                "OutputCellSingleTensor": f32([3.6875], [1, 1, 1, 1])}, atol=0, rtol=0,
               why="every value is a short binary fraction: exact", float16_atol=0, float16_rtol=0),
        # Default activations, x = 1, W = [0, 0, 0, 1], R = 0, no bias, h0 absent (0), C0 = 2:
        # i = o = f = sigmoid(0) = 0.5; c~ = tanh(1); C = 0.5*2 + 0.5*tanh(1); h = 0.5*tanh(C).
        Sample("hand_default_activations",
               _desc(1, 1, 1, 1, present=("CellMemInitTensor",) + outs),
               {"InputTensor": f32([1], [1, 1, 1, 1]), "WeightTensor": f32([0, 0, 0, 1], [1, 1, 4, 1]),
                "RecurrenceTensor": f32([0, 0, 0, 0], [1, 1, 4, 1]), "CellMemInitTensor": f32([2], [1, 1, 1, 1])},
               {"OutputSequenceTensor": f32([0.5 * np.tanh(1 + 0.5 * np.tanh(1))], [1, 1, 1, 1]),
                "OutputSingleTensor": f32([0.5 * np.tanh(1 + 0.5 * np.tanh(1))], [1, 1, 1, 1]),
                "OutputCellSingleTensor": f32([1 + 0.5 * np.tanh(1)], [1, 1, 1, 1])},
               why="float32 rounding of tanh", atol=1e-6, rtol=1e-6),
        # ClipThreshold 1 on the first step above: c~ = relu(clip(3)) = 1; C = 0.5*4 + 0.5*1 = 2.5 (C itself
        # is not clipped); h = 0.5*relu(2.5) = 1.25. The sigmoid gates see 0, inside the bound.
        Sample("hand_clip", _desc(1, 1, 1, 1, acts=relu_acts, present=hand, clip=1.0),
               dict(hand_inputs, InputTensor=f32([1], [1, 1, 1, 1])),
               {"OutputSequenceTensor": f32([1.25], [1, 1, 1, 1]), "OutputSingleTensor": f32([1.25], [1, 1, 1, 1]),
                "OutputCellSingleTensor": f32([2.5], [1, 1, 1, 1])}, atol=0, rtol=0, why="exact binary fractions",
               float16_atol=0, float16_rtol=0),
        # CoupleInputForget with W_f = 8: f = 1 - i = 0.5 (uncoupled it would be sigmoid(8) = 0.99966), so the
        # first step above again: C = 0.5*4 + 0.5*3 = 3.5, h = 1.75.
        Sample("hand_couple_input_forget", _desc(1, 1, 1, 1, acts=relu_acts, present=hand, couple=True),
               dict(hand_inputs, InputTensor=f32([1], [1, 1, 1, 1]), WeightTensor=f32([0, 0, 8, 1], [1, 1, 4, 1])),
               {"OutputSequenceTensor": f32([1.75], [1, 1, 1, 1]), "OutputSingleTensor": f32([1.75], [1, 1, 1, 1]),
                "OutputCellSingleTensor": f32([3.5], [1, 1, 1, 1])}, atol=0, rtol=0, why="exact binary fractions",
               float16_atol=0, float16_rtol=0),
    ]
    # Reference-only samples, one per feature (T=3, N=2 or 3, I=3, H=2).
    bidi_acts = (ActivationSigmoid(), ActivationTanh(), ActivationTanh(),
                 ActivationSigmoid(), ActivationSoftplus(steepness=2.0), ActivationRelu())
    d = _desc(3, 2, 3, 2, "BIDIRECTIONAL", bidi_acts, every)
    samples.append(Sample("bidirectional_own_activations", d, random_inputs(d, 1)))
    d = _desc(3, 2, 3, 2, "BACKWARD", present=every)
    samples.append(Sample("backward", d, random_inputs(d, 2)))
    d = _desc(3, 3, 3, 2, "BIDIRECTIONAL", present=every + ("SequenceLengthsTensor",))
    samples.append(Sample("ragged_lengths_3_1_0", d, random_inputs(d, 3, lengths=[3, 1, 0])))
    d = _desc(3, 2, 3, 2, present=("PeepholeTensor", "CellMemInitTensor") + outs)
    peephole = f32([1, -2, 0.5, 2, -1, 1.5], [1, 1, 1, 6])
    samples.append(Sample("peephole", d, dict(random_inputs(d, 4), PeepholeTensor=peephole)))
    d = _desc(3, 2, 3, 2, present=every, clip=0.25)
    samples.append(Sample("clip_random", d, {k: v * 4 for k, v in random_inputs(d, 5).items()}))  # gates past 0.25
    d = _desc(3, 2, 3, 2, "BIDIRECTIONAL", present=every + ("SequenceLengthsTensor",), couple=True)
    samples.append(Sample("couple_input_forget_ragged", d, random_inputs(d, 6, lengths=[2, 3])))
    # DirectML refuses OutputCellSingleTensor without OutputSingleTensor (see check).
    d = _desc(3, 2, 3, 2, present=("OutputCellSingleTensor", "OutputSingleTensor"))
    samples.append(Sample("only_final_outputs_no_optional_inputs", d, random_inputs(d, 7)))
    d = _desc(3, 2, 3, 2, "BIDIRECTIONAL", present=("OutputSingleTensor", "SequenceLengthsTensor"))
    samples.append(Sample("only_hidden_output_ragged", d, random_inputs(d, 8, lengths=[0, 2])))
    d = _desc(3, 2, 3, 2, present=("OutputSequenceTensor", "BiasTensor"))
    samples.append(Sample("only_sequence_output", d, random_inputs(d, 9)))
    # HiddenInit and CellMemInit read through zero strides: one row per direction for every batch entry,
    # and one bias vector shared by both directions.
    strides = {"HiddenInitTensor": [0, 2, 0, 1], "CellMemInitTensor": [0, 2, 0, 1], "BiasTensor": [0, 0, 0, 1]}
    d = _desc(3, 3, 3, 2, "BIDIRECTIONAL", present=every, strides=strides)
    samples.append(Sample("broadcast_inits_and_bias", d,
                          random_inputs(d, 10, buffers={"HiddenInitTensor": 4, "CellMemInitTensor": 4,
                                                        "BiasTensor": 16})))
    return samples


SAMPLES = _samples()
