"""DML_OPERATOR_GRU: a gated recurrent unit over a whole sequence, in one or both directions.

Per direction, with f and g its two ActivationDescs (gate blocks z, r, h on the 3 * hidden_size axis,
as ONNX; PyTorch and cuDNN order them r, z, n)::

    z = f(x W_z^T + h R_z^T + Wb_z + Rb_z)
    r = f(x W_r^T + h R_r^T + Wb_r + Rb_r)
    n = g(x W_h^T + (r * h) R_h^T + Wb_h + Rb_h)        LinearBeforeReset FALSE (the ONNX default)
    n = g(x W_h^T + r * (h R_h^T + Rb_h) + Wb_h)        LinearBeforeReset TRUE (PyTorch's and cuDNN's GRU)
    h' = (1 - z) * n + z * h

Direction, SequenceLengthsTensor and the outputs follow research/seed_semantics.md §2 (see
_recurrent_exec, the time loop GRU shares with LSTM and RNN): past a sequence's end the output is 0 and the state frozen, the backward pass starts at
each sequence's own last step, and a length of 0 gives OutputSingleTensor = 0 forward and HiddenInit
backward (DirectML's answer; onnxruntime gives 0 for both). BiasTensor and
HiddenInitTensor default to 0. Unlike ONNX GRU there is no clip and no layout attribute.

Why to_onnx unrolls the recurrence (MatMul/Add/Mul/Where per time step, seq_length being static) rather
than emitting ONNX GRU: ONNX GRU cannot carry every DML activation desc (only its own list of names with
alpha and beta), and onnxruntime's CUDA provider runs ONNX GRU as cuDNN's fixed GRU (sigmoid, tanh,
LinearBeforeReset TRUE) without reading linear_before_reset or activations
(onnxruntime/core/providers/cuda/rnn/cudnn_rnn_base.h), so a LinearBeforeReset FALSE model would run
with the wrong equation there. The unrolled graph uses the same activation lowerings as every other
operator and means the same on every execution provider; the oracle tests compare it with onnxruntime's
own CPU GRU kernel. The cost: on DirectML it is many small operators instead of one DML_GRU.
"""
from __future__ import annotations

import numpy as np

from ..lower import activation_onnx, activation_reference, activation_torch
from ..sample import Sample, td
from . import _recurrent
from . import _recurrent_exec as rx
from . import _recurrent_fused

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


def check(desc, level):
    """The tensor layouts above, two activations (f, g) per direction, and no OWNED_BY_DML inputs."""
    return _recurrent.check(desc, LAYOUTS, gates=3, activations_per_direction=2)


def _activations(desc, d: int):
    """(f, g) of direction d: ActivationDescs is [f, g] of the forward pass, then [f, g] of the backward one."""
    return desc.activation_descs[2 * d], desc.activation_descs[2 * d + 1]


# The one state: initial value -> final output.
STATES = {"HiddenInitTensor": "OutputSingleTensor"}


# NumPy reference ---------------------------------------------------------------------------------
def reference(desc, x):
    """The equations above in float64, vectorized over the batch, one time step after another."""
    return rx.run(rx.NumpyOps(), desc, x, STATES, lambda d: _step_reference(desc, x, d))


def _step_reference(desc, x, d):
    f, g = _activations(desc, d)
    hidden = x["RecurrenceTensor"].shape[-1]
    seq = x["InputTensor"][0].astype(np.float64)  # [T, N, I]
    w = x["WeightTensor"][0, d].astype(np.float64)  # [3H, I]
    r = x["RecurrenceTensor"][0, d].astype(np.float64)  # [3H, H]
    b = np.zeros(6 * hidden) if x.get("BiasTensor") is None else x["BiasTensor"][0, 0, d].astype(np.float64)
    xw = seq @ w.T + b[:3 * hidden]  # the input terms of every step at once: [T, N, 3H]
    rb = b[3 * hidden:]
    zr, hh = slice(0, 2 * hidden), slice(2 * hidden, 3 * hidden)

    def step(t, state):
        (h,) = state
        pre = xw[t][:, zr] + h @ r[zr].T + rb[zr]
        z = activation_reference(f, pre[:, :hidden])
        reset = activation_reference(f, pre[:, hidden:])
        if desc.linear_before_reset:
            n = activation_reference(g, xw[t][:, hh] + reset * (h @ r[hh].T + rb[hh]))
        else:
            n = activation_reference(g, xw[t][:, hh] + (reset * h) @ r[hh].T + rb[hh])
        return ((1 - z) * n + z * h,)

    return step


# ONNX --------------------------------------------------------------------------------------------
def to_onnx(desc, g, x):
    """The recurrence unrolled over the static seq_length (see the module docstring for why not ONNX GRU)."""
    return rx.run(rx.OnnxOps(g), desc, x, STATES, lambda d: _step_onnx(desc, g, x, d))


def _step_onnx(desc, g, x, d):
    f, act_g = _activations(desc, d)
    _, steps, batch, inputs = desc.input_tensor.sizes
    hidden = desc.recurrence_tensor.sizes[-1]
    dtype = g.dtype(x["InputTensor"])
    seq = g.node("Reshape", [x["InputTensor"], g.ints([steps, batch, inputs])])
    w = _direction_slice_onnx(g, x["WeightTensor"], 1, d, [3 * hidden, inputs])
    r = _direction_slice_onnx(g, x["RecurrenceTensor"], 1, d, [3 * hidden, hidden])
    b = (g.const(np.zeros(6 * hidden, dtype)) if x.get("BiasTensor") is None
         else _direction_slice_onnx(g, x["BiasTensor"], 2, d, [6 * hidden]))
    wb, rb_zr, rb_h = g.node("Split", [b, g.ints([3 * hidden, 2 * hidden, hidden])], outputs=3, axis=0)
    r_zr, r_h = g.node("Split", [r, g.ints([2 * hidden, hidden])], outputs=2, axis=0)
    xw = g.node("Add", [g.node("MatMul", [seq, g.node("Transpose", [w], perm=[1, 0])]), wb])  # [T, N, 3H]
    r_zr_t, r_h_t = g.node("Transpose", [r_zr], perm=[1, 0]), g.node("Transpose", [r_h], perm=[1, 0])

    def step(t, state):
        (h,) = state
        x_t = g.node("Gather", [xw, g.const(np.int64(t))], axis=0)
        x_z, x_r, x_h = g.node("Split", [x_t, g.ints([hidden] * 3)], outputs=3, axis=1)
        h_z, h_r = g.node("Split", [g.node("Add", [g.node("MatMul", [h, r_zr_t]), rb_zr]), g.ints([hidden] * 2)],
                          outputs=2, axis=1)
        z = activation_onnx(f, g, g.node("Add", [x_z, h_z]))
        reset = activation_onnx(f, g, g.node("Add", [x_r, h_r]))
        if desc.linear_before_reset:
            rec = g.node("Mul", [reset, g.node("Add", [g.node("MatMul", [h, r_h_t]), rb_h])])
        else:
            rec = g.node("Add", [g.node("MatMul", [g.node("Mul", [reset, h]), r_h_t]), rb_h])
        n = activation_onnx(act_g, g, g.node("Add", [x_h, rec]))
        keep = g.node("Sub", [g.scalar(1, z), z])
        return (g.node("Add", [g.node("Mul", [keep, n]), g.node("Mul", [z, h])]),)

    return step


def _direction_slice_onnx(g, value: str, axis: int, d: int, shape) -> str:
    """Direction ``d`` of a 4-D recurrent tensor (its ``axis`` is num_directions), reshaped to ``shape``."""
    return g.node("Reshape", [g.node("Gather", [value, g.const(np.int64(d))], axis=axis), g.ints(shape)])


# torch -------------------------------------------------------------------------------------------
def to_torch(desc, torch, x):
    """torch.gru in one call where it computes this descriptor exactly (_recurrent_fused: LinearBeforeReset TRUE,
    sigmoid and tanh, on the CPU or CUDA), else the recurrence as a Python loop of torch ops over the time steps."""
    fused = _recurrent_fused.run(desc, torch, x)
    if fused is not None:
        return fused
    return rx.run(rx.TorchOps(torch), desc, x, STATES, lambda d: _step_torch(desc, torch, x, d))


def _step_torch(desc, torch, x, d):
    f, g = _activations(desc, d)
    seq = x["InputTensor"][0]  # [T, N, I]
    hidden = x["RecurrenceTensor"].shape[-1]
    w, r = x["WeightTensor"][0, d], x["RecurrenceTensor"][0, d]
    b = (torch.zeros(6 * hidden, dtype=seq.dtype, device=seq.device) if x.get("BiasTensor") is None
         else x["BiasTensor"][0, 0, d])
    xw = torch.matmul(seq, w.T) + b[:3 * hidden]  # [T, N, 3H]
    rb = b[3 * hidden:]
    r_zr, r_h, rb_zr, rb_h = r[:2 * hidden], r[2 * hidden:], rb[:2 * hidden], rb[2 * hidden:]

    def step(t, state):
        (h,) = state
        x_z, x_r, x_h = torch.split(xw[t], hidden, dim=1)
        h_z, h_r = torch.split(torch.matmul(h, r_zr.T) + rb_zr, hidden, dim=1)
        z = activation_torch(f, torch, x_z + h_z)
        reset = activation_torch(f, torch, x_r + h_r)
        if desc.linear_before_reset:
            n = activation_torch(g, torch, x_h + reset * (torch.matmul(h, r_h.T) + rb_h))
        else:
            n = activation_torch(g, torch, x_h + torch.matmul(reset * h, r_h.T) + rb_h)
        return ((1 - z) * n + z * h,)

    return step


# SAMPLES -----------------------------------------------------------------------------------------
def _desc(steps, batch, inputs, hidden, direction="FORWARD", lbr=False, bias=True, hidden_init=True,
          lengths=False, sequence=True, single=True, activations=None, hidden_init_strides=None):
    """A FLOAT32 GRU descriptor with the optional tensors chosen by the flags."""
    from ..descs import ActivationSigmoid, ActivationTanh, Gru

    dirs = 2 if direction == "BIDIRECTIONAL" else 1
    return Gru(
        input_tensor=td("FLOAT32", [1, steps, batch, inputs]),
        weight_tensor=td("FLOAT32", [1, dirs, 3 * hidden, inputs]),
        recurrence_tensor=td("FLOAT32", [1, dirs, 3 * hidden, hidden]),
        bias_tensor=td("FLOAT32", [1, 1, dirs, 6 * hidden]) if bias else None,
        hidden_init_tensor=(td("FLOAT32", [1, dirs, batch, hidden], hidden_init_strides) if hidden_init else None),
        sequence_lengths_tensor=td("UINT32", [1, 1, 1, batch]) if lengths else None,
        output_sequence_tensor=td("FLOAT32", [steps, dirs, batch, hidden]) if sequence else None,
        output_single_tensor=td("FLOAT32", [1, dirs, batch, hidden]) if single else None,
        activation_descs=activations or [ActivationSigmoid(), ActivationTanh()] * dirs,
        direction=direction, linear_before_reset=lbr)


def _random_inputs(desc, seed, lengths=None):
    """Inputs in [-1, 1) for every tensor of ``desc`` (HiddenInit as its buffer when strided)."""
    rng = np.random.default_rng(seed)
    out = {}
    for name in ("InputTensor", "WeightTensor", "RecurrenceTensor", "BiasTensor", "HiddenInitTensor"):
        t = desc.tensors().get(name)
        if t is not None:
            shape = [t.sizes[-1]] if t.strides is not None else t.sizes  # strided: one row, read through strides
            out[name] = rng.uniform(-1, 1, shape).astype(np.float32)
    if lengths is not None:
        out["SequenceLengthsTensor"] = np.array(lengths, np.uint32).reshape(1, 1, 1, -1)
    return out


def _samples():
    from ..descs import ActivationHardSigmoid, ActivationRelu, ActivationScaledTanh, ActivationSigmoid, ActivationTanh

    ln2, ln3, ln5 = np.log(2), np.log(3), np.log(5)
    f32 = np.float32
    samples = [
        # By hand, with sigmoid(+-ln3) = 3/4 and 1/4 and tanh(ln a) = (a^2 - 1) / (a^2 + 1).
        # W = [W_z, W_r, W_h] = [-ln3, 0, ln5/2]; R = [2 ln3, 4 ln3, 8/3 ln2];
        # B = [Wb | Rb] = [0, -2 ln3, 0 | 0, ln3, 0].
        # t=0, x=1, h=0 (no HiddenInit): z = s(-ln3) = 1/4; r = s(-2ln3 + ln3) = 1/4 (times h = 0);
        #      n = tanh(ln5/2) = 4/6 = 2/3; h = (1 - 1/4) 2/3 + 1/4 * 0 = 1/2.
        # t=1, x=0, h=1/2: z = s(2ln3 / 2) = 3/4; r = s(4ln3 / 2 - ln3) = 3/4;
        #      n = tanh((3/4 * 1/2) * 8/3 ln2) = tanh(ln2) = 3/5; h = 1/4 * 3/5 + 3/4 * 1/2 = 21/40.
        Sample("hand_two_steps", _desc(2, 1, 1, 1, hidden_init=False),
               {"InputTensor": np.array([1, 0], f32).reshape(1, 2, 1, 1),
                "WeightTensor": np.array([-ln3, 0, ln5 / 2], f32).reshape(1, 1, 3, 1),
                "RecurrenceTensor": np.array([2 * ln3, 4 * ln3, 8 / 3 * ln2], f32).reshape(1, 1, 3, 1),
                "BiasTensor": np.array([0, -2 * ln3, 0, 0, ln3, 0], f32).reshape(1, 1, 1, 6)},
               {"OutputSequenceTensor": np.array([0.5, 0.525], f32).reshape(2, 1, 1, 1),
                "OutputSingleTensor": np.array([0.525], f32).reshape(1, 1, 1, 1)},
               why="float32 rounding of the log-valued weights", atol=1e-6, rtol=1e-6),
        # By hand, LinearBeforeReset TRUE: x = 0 (so W does not matter), h0 = 1/2,
        # R = [0, 2 ln3, 2 ln2], B = [0, 0, 0 | 0, 0, ln2/3]: z = s(0) = 1/2; r = s(2ln3 / 2) = 3/4;
        # n = tanh(r * (h R_h + Rb_h)) = tanh(3/4 * (ln2 + ln2/3)) = tanh(ln2) = 3/5; h = 1/2 * 3/5 + 1/2 * 1/2 = 11/20.
        # (LinearBeforeReset FALSE would give tanh(3/4 * 1/2 * 2 ln2 + ln2/3) = tanh(13/12 ln2) instead.)
        Sample("hand_linear_before_reset", _desc(1, 1, 1, 1, lbr=True),
               {"InputTensor": np.zeros((1, 1, 1, 1), f32),
                "WeightTensor": np.array([1, 2, 3], f32).reshape(1, 1, 3, 1),
                "RecurrenceTensor": np.array([0, 2 * ln3, 2 * ln2], f32).reshape(1, 1, 3, 1),
                "BiasTensor": np.array([0, 0, 0, 0, 0, ln2 / 3], f32).reshape(1, 1, 1, 6),
                "HiddenInitTensor": np.full((1, 1, 1, 1), 0.5, f32)},
               {"OutputSequenceTensor": np.full((1, 1, 1, 1), 0.55, f32),
                "OutputSingleTensor": np.full((1, 1, 1, 1), 0.55, f32)},
               why="float32 rounding of the log-valued weights", atol=1e-6, rtol=1e-6),
    ]
    # Activation parameters travel inside each desc, and each direction has its own [f, g].
    parameterized = [ActivationHardSigmoid(alpha=0.3, beta=0.4), ActivationScaledTanh(alpha=1.5, beta=0.7),
                     ActivationHardSigmoid(alpha=0.25, beta=0.6), ActivationScaledTanh(alpha=0.8, beta=1.2)]
    cases = [  # name, descriptor, sequence lengths
        ("bidirectional", _desc(3, 2, 3, 2, "BIDIRECTIONAL"), None),
        ("bidirectional_linear_before_reset", _desc(3, 2, 3, 2, "BIDIRECTIONAL", lbr=True), None),
        ("backward", _desc(4, 2, 2, 3, "BACKWARD"), None),
        ("backward_linear_before_reset", _desc(4, 2, 2, 3, "BACKWARD", lbr=True), None),
        # Ragged batch with an empty sequence: zeros past each end, OutputSingle 0 (forward) or HiddenInit
        # (backward) for length 0, and the backward pass starting at each sequence's own last step.
        ("lengths_3_0_1_bidirectional", _desc(3, 3, 2, 2, "BIDIRECTIONAL", lengths=True), [3, 0, 1]),
        ("lengths_3_0_1_backward_linear_before_reset", _desc(3, 3, 2, 2, "BACKWARD", lbr=True, lengths=True),
         [3, 0, 1]),
        ("lengths_2_1_forward", _desc(2, 2, 1, 2, lengths=True), [2, 1]),
        ("no_bias_no_hidden_init", _desc(3, 2, 2, 2, bias=False, hidden_init=False), None),
        ("only_output_single", _desc(3, 2, 2, 2, "BIDIRECTIONAL", sequence=False), None),
        ("only_output_sequence", _desc(3, 2, 2, 2, "BACKWARD", single=False), None),
        # HiddenInit read through zero strides: one row of H values shared by the whole batch.
        ("hidden_init_broadcast", _desc(2, 3, 2, 2, hidden_init_strides=[2, 2, 0, 1]), None),
        ("activations_relu_sigmoid", _desc(3, 2, 2, 2, "BIDIRECTIONAL", activations=[
            ActivationRelu(), ActivationSigmoid(), ActivationTanh(), ActivationRelu()]), None),
        ("activations_hard_sigmoid_scaled_tanh",
         _desc(3, 2, 2, 2, "BIDIRECTIONAL", lbr=True, lengths=True, activations=parameterized), [3, 1]),
    ]
    for seed, (name, desc, lengths) in enumerate(cases):
        samples.append(Sample(name, desc, _random_inputs(desc, seed, lengths),
                              why="float32 rounding, summed in a different order over the time steps",
                              float16_atol=2e-3, float16_rtol=2e-3))
    return samples


SAMPLES = _samples()
