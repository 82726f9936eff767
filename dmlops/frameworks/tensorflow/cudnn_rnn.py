"""TensorFlow's CudnnRNNV3 and CudnnRNNBackpropV3 as DirectML graphs.

``cudnn_rnn_v3`` runs one DirectML GRU, LSTM or RNN operator per layer (BIDIRECTIONAL where asked);
``cudnn_rnn_backprop_v3`` composes the gradient, which DirectML has no operator for, from GEMM,
element-wise, activation, SLICE, JOIN and REDUCE operators (dmlops/frameworks/tensorflow/cudnn_rnn_backprop.py).
The params buffer is the canonical layout of cudnn_rnn_params.py. Semantics, conventions and their sources:
docs/frameworks_cudnn_rnn.md and research/seed_semantics.md §2 and §5.

Conventions fixed here (each checked against torch.nn.GRU / LSTM / RNN in tests/test_frameworks_cudnn_rnn.py):

* Cells: cuDNN's. GRU ``n = tanh(W_h x + b_Wh + r * (R_h h + b_Rh))`` (DirectML LinearBeforeReset TRUE), LSTM without
  peepholes or clipping, rnn_relu / rnn_tanh ``h = act(W x + b_W + R h + b_R)``.
* sequence_lengths: at t >= length the output is 0 and the state is kept; the backward direction starts at each
  sequence's own last step (cuDNN's padded I/O, DirectML's SequenceLengthsTensor as dmlops runs it). Each length
  must lie in [1, max_seq_length], as cuDNN requires. None means every sequence is max_seq_length long.
* time_major false: ``input`` [batch, time, input_size] and ``output`` [batch, time, dir * num_units] are read and
  written through DirectML strides (no transpose node in the forward). ``input_h`` / ``output_h`` (and ``_c``) of
  shape [batch, num_layers * dir, num_units] hold their values in cuDNN's state order, i.e. the buffer is the
  [num_layers * dir, batch, num_units] state reshaped, not transposed: TensorFlow's kernel hands the unchanged
  buffer to cuDNN with a [num_layers * dir, batch, num_units] descriptor (tensorflow/core/kernels/cudnn_rnn_ops.cc,
  CreateForwardAndBackwardIODescriptors). The two readings agree when num_layers * dir == 1 or batch == 1, which
  covers Keras' uses.
* reserve_space (is_training true): a 1-D array of the input's dtype: every layer's output sequence, then, when
  dropout applies, the dropout mask of each layer l >= 1 (already scaled by 1 / (1 - dropout)); each block is
  [max_seq_length, batch, dir * num_units] in time-major order. With is_training false it is a scalar placeholder,
  as TensorFlow allocates it. host_reserved is an int8 scalar placeholder (TensorFlow's V3 kernel allocates the
  same shape and writes nothing to it). For modes other than lstm, output_c and input_c_backprop are float scalars
  (0) and input_c / output_c / output_c_backprop are not read, as in TensorFlow.
* dropout (0 <= dropout < 1) applies to the input of every layer above the first, only when is_training, so one
  layer has none. The mask is drawn in the graph by RANDOM_GENERATOR (Philox4x32-10, key (seed2, seed), counter 0):
  keep = CEIL(bits * 2**-32 - dropout), scaled by 1 / (1 - dropout). It is a function of (seed, seed2): equal seeds
  give equal masks (cuDNN's masks, drawn from its own generator state, differ). Pass a new seed per step for fresh
  masks.
* Not supported, with an error: input_mode skip_input (and auto_select when input_size == num_units, which means
  skip_input), num_proj != 0, float64 and bfloat16 (DirectML's GRU/LSTM/RNN take FLOAT32 or FLOAT16).

Host work: argument checks, sequence_lengths converted from int32 to UINT32 (forward) or to float 0/1 masks
(backward), the Philox key from (seed, seed2), reshapes of whole buffers to TensorFlow's shapes.
"""
from __future__ import annotations

import functools
from collections import namedtuple

import numpy as np

from ... import descs as _descs
from ...compose import Composer, Tensor
from ...errors import DmlOpsError
from ...types import TensorDesc
from .._common import Built, array, choice, finish_or_graph, packed
from .cudnn_rnn_backprop import compose_cudnn_rnn_backprop_v3
from .cudnn_rnn_params import DIRECTIONS, DML_GATES, RNN_MODES, RnnConfig, RnnShape, checked_params, param_slice

OP = "tensorflow.CudnnRNNV3"
OP_GRAD = "tensorflow.CudnnRNNBackpropV3"
INPUT_MODES = ("linear_input", "skip_input", "auto_select")

CudnnRNNV3 = namedtuple("CudnnRNNV3", ["output", "output_h", "output_c", "reserve_space", "host_reserved"])
CudnnRNNBackpropV3 = namedtuple("CudnnRNNBackpropV3",
                                ["input_backprop", "input_h_backprop", "input_c_backprop", "params_backprop"])

_DATA_TYPES = {"float32": "FLOAT32", "float16": "FLOAT16"}
_DML_CLASSES = {"gru": "Gru", "lstm": "Lstm", "rnn_relu": "Rnn", "rnn_tanh": "Rnn"}


# ---------------------------------------------------------------------------------------------- argument checks
def _flag(op: str, name: str, value) -> bool:
    if not isinstance(value, (bool, np.bool_)):
        raise DmlOpsError(f"{op}: {name} must be a bool; got {value!r}.")
    return bool(value)


def _shape_error(op: str, name: str, found, expected, formula: str) -> DmlOpsError:
    return DmlOpsError(f"{op}: {name} has shape {list(found)}; expected {formula} = {list(expected)}.")


def _check(op, input, input_h, input_c, params, sequence_lengths, rnn_mode, input_mode, direction, dropout,
           seed, seed2, num_proj, time_major, is_training):
    """(RnnConfig, checked arrays by name, is_training) for the forward's arguments, checked as TensorFlow does."""
    choice(op, "rnn_mode", rnn_mode, RNN_MODES)
    choice(op, "input_mode", input_mode, INPUT_MODES)
    choice(op, "direction", direction, DIRECTIONS)
    time_major = _flag(op, "time_major", time_major)
    is_training = _flag(op, "is_training", is_training)
    if num_proj != 0:
        raise DmlOpsError(f"{op}: num_proj={num_proj!r} is not supported: the LSTM projection's place in the "
                          "canonical params layout is unverified, and DirectML's LSTM has no projection.")
    for name, value in (("seed", seed), ("seed2", seed2)):
        if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
            raise DmlOpsError(f"{op}: {name} must be an int; got {value!r}.")
    if isinstance(dropout, bool) or not isinstance(dropout, (int, float, np.floating)) or not 0 <= dropout < 1:
        raise DmlOpsError(f"{op}: dropout must be a number in [0, 1); got {dropout!r}.")
    x = array(op, "input", input, tuple(_DATA_TYPES), ranks=(3,))
    dtype = (x.dtype.name,)
    steps, batch = (x.shape[0], x.shape[1]) if time_major else (x.shape[1], x.shape[0])
    input_size = x.shape[2]
    if min(x.shape) < 1:
        raise DmlOpsError(f"{op}: input has shape {list(x.shape)}; every dimension must be at least 1.")
    h = array(op, "input_h", input_h, dtype, ranks=(3,))
    dirs = 2 if direction == "bidirectional" else 1
    layers = max((h.shape[0] if time_major else h.shape[1]) // dirs, 1)  # TensorFlow reads num_layers from input_h
    units = h.shape[2]
    if units < 1:
        raise DmlOpsError(f"{op}: input_h has shape {list(h.shape)}; num_units (its last dimension) must be at "
                          "least 1.")
    state = (layers * dirs, batch, units) if time_major else (batch, layers * dirs, units)
    if h.shape != state:
        formula = ("[num_layers * dir, batch_size, num_units]" if time_major
                   else "[batch_size, num_layers * dir, num_units]")
        raise _shape_error(op, "input_h", h.shape, state, formula)
    if input_mode == "skip_input" or (input_mode == "auto_select" and input_size == units):
        raise DmlOpsError(f"{op}: input_mode={input_mode!r} (skip_input: the first layer takes the input without an "
                          "input GEMM) is not supported: how cuDNN lays out that layer's params is unverified. "
                          "Use 'linear_input'.")
    out = {"input": x, "input_h": h}
    if rnn_mode == "lstm":
        cell = array(op, "input_c", input_c, dtype, ranks=(3,))
        if cell.shape != h.shape:
            raise DmlOpsError(f"{op}: input_h and input_c must have the same shape; got {list(h.shape)} and "
                              f"{list(cell.shape)}.")
        out["input_c"] = cell
    shape = RnnShape(rnn_mode, layers, units, input_size, direction)
    out["params"] = checked_params(op, params, shape, dtypes=dtype)
    if sequence_lengths is not None:
        lengths = array(op, "sequence_lengths", sequence_lengths, ("int32",), ranks=(1,))
        if lengths.shape != (batch,):
            raise _shape_error(op, "sequence_lengths", lengths.shape, (batch,), "[batch_size]")
        bad = np.flatnonzero((lengths < 1) | (lengths > steps))
        if bad.size:
            i = int(bad[0])
            raise DmlOpsError(f"{op}: sequence_lengths[{i}] = {int(lengths[i])} is outside [1, {steps}]; cuDNN "
                              "requires 1 <= length <= max_seq_length.")
        out["sequence_lengths"] = lengths
    applied = float(dropout) if is_training and layers > 1 else 0.0
    config = RnnConfig(shape, steps, batch, _DATA_TYPES[x.dtype.name], time_major, applied,
                       sequence_lengths is not None)
    return config, out, is_training


# ---------------------------------------------------------------------------------------------- shared graph pieces
def sequence_strides(config: RnnConfig, time_major: bool) -> tuple[int, ...]:
    """Strides that make a [T, dir, N, H] output sequence (DirectML's OutputSequenceTensor) land in TensorFlow's
    [T, N, dir * H] (time_major) or [N, T, dir * H] layout."""
    t, n, d, h = config.steps, config.batch, config.dirs, config.units
    return (n * d * h, h, d * h, 1) if time_major else (d * h, h, t * d * h, 1)


def _dml_weights(c: Composer, params: Tensor, shape: RnnShape, layer: int):
    """The DirectML WeightTensor, RecurrenceTensor and BiasTensor of ``layer``: slices of params joined in
    DirectML's gate order (GRU z, r, h; LSTM i, o, f, c)."""
    h, gates, dirs = shape.num_units, DML_GATES[shape.rnn_mode], shape.dirs
    width = {"input": shape.layer_input_size(layer), "recurrent": h}

    def piece(kind, d, source, gate, sizes):
        b = shape.block(kind, layer, d, source, gate)
        return param_slice(c, params, b.offset, b.size, sizes)

    weights = {source: c.join([piece("weight", d, source, g, [1, 1, h, width[source]])
                                for d in range(dirs) for g in gates], 2).view([1, dirs, len(gates) * h, width[source]])
               for source in ("input", "recurrent")}
    bias = c.join([piece("bias", d, source, g, [1, 1, 1, h])
                    for d in range(dirs) for source in ("input", "recurrent") for g in gates], 3)
    return weights["input"], weights["recurrent"], bias.view([1, 1, dirs, 2 * len(gates) * h])


def _dropout_mask(c: Composer, state: Tensor, config: RnnConfig):
    """(mask [1, T, N, dir * H] of 0 and 1 / (1 - p), next Philox state): see the module docstring."""
    p = config.dropout
    t, n, dh = config.steps, config.batch, config.dirs * config.units
    drawn = c.op(_descs.RandomGenerator, {"input_state_tensor": state},
                 {"output_tensor": TensorDesc("UINT32", [1, t, n, dh]),
                  "output_state_tensor": TensorDesc("UINT32", [1, 1, 1, 6])}, type="PHILOX_4X32_10")
    uniform = c.cast(drawn["output_tensor"], "FLOAT32")
    keep = c.unary(_descs.ElementWiseCeil, uniform, scale=2.0 ** -32, bias=-p)  # 1 where bits * 2**-32 > p
    mask = c.identity(keep, scale=1.0 / (1.0 - p))
    if config.data_type != "FLOAT32":
        mask = c.cast(mask, config.data_type)
    return mask, drawn["output_state_tensor"]


def _activations(rnn_mode: str, dirs: int) -> list:
    table: dict[str, list] = {"gru": [_descs.ActivationSigmoid(), _descs.ActivationTanh()],
                              "lstm": [_descs.ActivationSigmoid(), _descs.ActivationTanh(), _descs.ActivationTanh()],
                              "rnn_relu": [_descs.ActivationRelu()], "rnn_tanh": [_descs.ActivationTanh()]}
    return table[rnn_mode] * dirs


# ---------------------------------------------------------------------------------------------- forward
def compose_cudnn_rnn_v3(c: Composer, input: Tensor, input_h: Tensor, input_c: Tensor | None, params: Tensor,
                         sequence_lengths: Tensor | None = None, rng_state: Tensor | None = None, *,
                         config: RnnConfig, is_training: bool = True) -> dict[str, Tensor]:
    """Add CudnnRNNV3's nodes to ``c``; return ``output`` (a [T, dir, N, H] OutputSequence written with
    ``sequence_strides(config, config.time_major)``), ``output_h`` / ``output_c`` ([1, L * dir, N, H]) and, when
    is_training, ``reserve_space`` ([reserve_blocks * T, N, dir, H]: the blocks of the module docstring; one block is
    a strided view, which ``c.output`` copies).

    Tensors: ``input`` [1, T, N, I] (any Strides: batch-major input is read through them), ``input_h`` / ``input_c``
    [1, L * dir, N, H] (``input_c`` for lstm only), ``params`` [1, 1, 1, P], ``sequence_lengths`` UINT32 [1, 1, 1, N]
    or None, ``rng_state`` UINT32 [1, 1, 1, 6] (Philox counter and key) when config.dropout > 0.
    """
    shape, dt = config.shape, config.data_type
    t, n, d, h, layers = config.steps, config.batch, config.dirs, config.units, config.layers
    cls = getattr(_descs, _DML_CLASSES[shape.rnn_mode])
    direction = "BIDIRECTIONAL" if d == 2 else "FORWARD"
    time_major_strides = sequence_strides(config, True)
    x, sequences, finals, cells, masks = input, [], [], [], []
    for layer in range(layers):
        w, r, b = _dml_weights(c, params, shape, layer)
        h0 = input_h if layers == 1 else c.slice(input_h, [0, layer * d, 0, 0], [1, d, n, h])
        inputs = {"input_tensor": x, "weight_tensor": w, "recurrence_tensor": r, "bias_tensor": b,
                  "hidden_init_tensor": h0, "sequence_lengths_tensor": sequence_lengths}
        last = layer == layers - 1
        strides = sequence_strides(config, config.time_major) if last else time_major_strides
        outputs = {"output_sequence_tensor": TensorDesc(dt, [t, d, n, h], strides),
                   "output_single_tensor": [1, d, n, h]}
        attrs: dict[str, object] = {"activation_descs": _activations(shape.rnn_mode, d), "direction": direction}
        if shape.rnn_mode == "gru":
            attrs["linear_before_reset"] = True  # cuDNN's GRU (seed_semantics.md §2.5)
        if shape.rnn_mode == "lstm":
            assert input_c is not None, "an lstm has an input_c"
            inputs["cell_mem_init_tensor"] = (input_c if layers == 1
                                              else c.slice(input_c, [0, layer * d, 0, 0], [1, d, n, h]))
            outputs["output_cell_single_tensor"] = [1, d, n, h]
            attrs.update(clip_threshold=0.0, use_clip_threshold=False, couple_input_forget=False)
        node = c.op(cls, inputs, outputs, **attrs)
        sequences.append(node["output_sequence_tensor"])
        finals.append(node["output_single_tensor"])
        if shape.rnn_mode == "lstm":
            cells.append(node["output_cell_single_tensor"])
        if not last:
            x = node["output_sequence_tensor"].view([1, t, n, d * h])  # [T, N, dir * H]: layer l + 1's input
            if config.dropout:
                assert rng_state is not None, "dropout needs rng_state"
                mask, rng_state = _dropout_mask(c, rng_state, config)
                masks.append(mask)
                x = c.mul(x, mask)
    out = {"output": sequences[-1], "output_h": c.join(finals, 1)}
    if cells:
        out["output_c"] = c.join(cells, 1)
    if is_training:
        # Each block read as [T, N, dir, H] (time-major whatever the output's layout), then the masks.
        blocks = [y.view([t, n, d, h], _transposed(y.desc.strides)) for y in sequences]
        blocks += [m.view([t, n, d, h]) for m in masks]
        out["reserve_space"] = c.join(blocks, 0)
    return out


def _transposed(strides) -> tuple[int, ...]:
    """Strides of a [T, dir, N, H] sequence read as [T, N, dir, H]."""
    return (strides[0], strides[2], strides[1], strides[3])


def _input_desc(config: RnnConfig) -> TensorDesc:
    """The input read as {1, T, N, I}: packed when time_major, through batch-major strides otherwise."""
    t, n, i = config.steps, config.batch, config.shape.input_size
    return TensorDesc(config.data_type, [1, t, n, i], None if config.time_major else [t * n * i, i, t * i, 1])


@functools.lru_cache(maxsize=64)
def _forward_built(config: RnnConfig, is_training: bool) -> Built:
    c = Composer()
    t, n, d, h, layers = config.steps, config.batch, config.dirs, config.units, config.layers
    x = c.input("input", config.data_type, [1, t, n, config.shape.input_size], _input_desc(config).strides)
    state = [1, layers * d, n, h]
    h0 = c.input("input_h", config.data_type, state)
    c0 = c.input("input_c", config.data_type, state) if config.shape.rnn_mode == "lstm" else None
    params = c.input("params", config.data_type, [1, 1, 1, config.shape.size])
    lengths = c.input("sequence_lengths", "UINT32", [1, 1, 1, n]) if config.lengths else None
    rng = c.input("rng_state", "UINT32", [1, 1, 1, 6]) if config.dropout else None
    out = compose_cudnn_rnn_v3(c, x, h0, c0, params, lengths, rng, config=config, is_training=is_training)
    for name in ("output", "output_h", "output_c", "reserve_space"):
        if name in out:
            c.output(name, out[name])
    dtype = np.float16 if config.data_type == "FLOAT16" else np.float32

    def finish(result) -> CudnnRNNV3:
        y = result["output"]  # [T, dir, N, H] logical
        y = y.transpose(0, 2, 1, 3).reshape(t, n, d * h)
        y = y if config.time_major else y.transpose(1, 0, 2)
        state_shape = config.state_shape()
        output_h = np.ascontiguousarray(result["output_h"]).reshape(state_shape)
        output_c = (np.ascontiguousarray(result["output_c"]).reshape(state_shape) if "output_c" in result
                    else np.zeros((), dtype))
        reserve = result["reserve_space"].reshape(-1) if is_training else np.zeros((), dtype)
        return CudnnRNNV3(np.ascontiguousarray(y), output_h, output_c, reserve, np.zeros((), np.int8))

    return Built(OP, c.build(), finish)


def _philox_state(seed: int, seed2: int) -> np.ndarray:
    """Philox counter 0 and key (seed2, seed): TensorFlow's 64-bit seed (seed << 32) | seed2, low word first."""
    return np.array([0, 0, 0, 0, seed2 & 0xFFFFFFFF, seed & 0xFFFFFFFF], np.uint32)


def cudnn_rnn_v3(input, input_h, input_c, params, sequence_lengths=None, rnn_mode="lstm", input_mode="linear_input",
                 direction="unidirectional", dropout=0.0, seed=0, seed2=0, num_proj=0, is_training=True,
                 time_major=True, *, backend=None, device=None, feature_level=None, return_graph=False):
    """tf.raw_ops.CudnnRNNV3: a multi-layer RNN, GRU or LSTM over a padded batch of sequences.

    Arguments and results as TensorFlow's (see the module docstring for the conventions): ``input`` [T, N, I]
    (time_major) or [N, T, I]; ``input_h`` (and ``input_c`` for lstm) [L * dir, N, H] or [N, L * dir, H];
    ``params`` 1-D in the canonical layout (cudnn_rnn_params.py; ``params_size`` gives its length);
    ``sequence_lengths`` int32 [N] in [1, T], or None. Returns CudnnRNNV3(output, output_h, output_c,
    reserve_space, host_reserved); output is [T, N, dir * H] or [N, T, dir * H] with the forward and backward
    directions concatenated on the last axis.

    DirectML operators: one GRU (LinearBeforeReset TRUE) / LSTM / RNN per layer, SLICE and JOIN to take each
    layer's weights out of params in DirectML's gate order, SLICE of input_h (and input_c) per layer, JOIN for
    output_h / output_c / reserve_space (ELEMENT_WISE_IDENTITY copies a one-block reserve_space); with dropout
    RANDOM_GENERATOR, CAST, ELEMENT_WISE_CEIL, ELEMENT_WISE_IDENTITY and ELEMENT_WISE_MULTIPLY. Lowest feature level:
    DML_FEATURE_LEVEL_1_0, and DML_FEATURE_LEVEL_3_0 when dropout applies (RANDOM_GENERATOR).
    """
    config, arrays, is_training = _check(OP, input, input_h, input_c, params, sequence_lengths, rnn_mode, input_mode,
                                         direction, dropout, seed, seed2, num_proj, time_major, is_training)
    built = _forward_built(config, is_training)
    feeds = {"input": packed(arrays["input"]).reshape(-1), "input_h": packed(arrays["input_h"]).reshape(-1),
             "params": arrays["params"]}
    if "input_c" in arrays:
        feeds["input_c"] = packed(arrays["input_c"]).reshape(-1)
    if config.lengths:
        feeds["sequence_lengths"] = arrays["sequence_lengths"].astype(np.uint32)
    if config.dropout:
        feeds["rng_state"] = _philox_state(int(seed), int(seed2))
    return finish_or_graph(built, feeds, return_graph, backend, device, feature_level)


# ---------------------------------------------------------------------------------------------- backward
def sequence_masks(sequence_lengths, steps: int, batch: int, dtype) -> tuple[np.ndarray, np.ndarray]:
    """Host masks from sequence_lengths, both [T, N] flattened: ``valid`` (t < length) and ``last`` (t == length - 1
    and t < T - 1: where the backward direction starts from input_h instead of the next step's output)."""
    lengths = (np.full(batch, steps) if sequence_lengths is None else np.asarray(sequence_lengths)).reshape(1, batch)
    t = np.arange(steps).reshape(steps, 1)
    valid = (t < lengths).astype(dtype).reshape(-1)
    last = ((t == lengths - 1) & (t < steps - 1)).astype(dtype).reshape(-1)
    return valid, last


@functools.lru_cache(maxsize=64)
def _backward_built(config: RnnConfig) -> Built:
    c = Composer()
    t, n, d, h, layers = config.steps, config.batch, config.dirs, config.units, config.layers
    dt, i = config.data_type, config.shape.input_size
    lstm = config.shape.rnn_mode == "lstm"
    # Time-major input is declared as its [T * N, I] matrix (the same buffer), which the GEMMs read directly.
    x = (c.input("input", dt, [1, 1, t * n, i]) if config.time_major
         else c.input("input", dt, [1, t, n, i], _input_desc(config).strides))
    state = [1, layers * d, n, h]
    tensors = {
        "input": x,
        "input_h": c.input("input_h", dt, state),
        "input_c": c.input("input_c", dt, state) if lstm else None,
        "params": c.input("params", dt, [1, 1, 1, config.shape.size]),
        "output_backprop": c.input("output_backprop", dt, [t, n, d, h],
                                   None if config.time_major else _transposed(sequence_strides(config, False))),
        "output_h_backprop": c.input("output_h_backprop", dt, state),
        "output_c_backprop": c.input("output_c_backprop", dt, state) if lstm else None,
        "reserve_space": c.input("reserve_space", dt, [config.reserve_blocks * t, n, d, h]),
        "valid": c.input("valid", dt, [t, n, 1, 1]) if config.lengths else None,
        "last": c.input("last", dt, [1, t, n, 1]) if config.lengths and d == 2 and t > 1 else None,
    }
    out = compose_cudnn_rnn_backprop_v3(c, config=config, **tensors)  # type: ignore[arg-type]  # None where optional
    dx = out["input_backprop"]  # [1, 1, T * N, I], time-major rows
    c.output("input_backprop", dx if config.time_major else dx.view([1, n, t, i], [0, i, n * i, 1]))
    for name in ("input_h_backprop", "input_c_backprop", "params_backprop"):
        if name in out:
            c.output(name, out[name])
    dtype = np.float16 if dt == "FLOAT16" else np.float32

    def finish(result) -> CudnnRNNBackpropV3:
        state_shape = config.state_shape()
        cell = (result["input_c_backprop"].reshape(state_shape) if "input_c_backprop" in result
                else np.zeros((), dtype))
        return CudnnRNNBackpropV3(result["input_backprop"].reshape(config.input_shape()),
                                  result["input_h_backprop"].reshape(state_shape), cell,
                                  result["params_backprop"].reshape(-1))

    return Built(OP_GRAD, c.build(), finish)


def cudnn_rnn_backprop_v3(input, input_h, input_c, params, sequence_lengths, output, output_h, output_c,
                          output_backprop, output_h_backprop, output_c_backprop, reserve_space, host_reserved,
                          rnn_mode="lstm", input_mode="linear_input", direction="unidirectional", dropout=0.0, seed=0,
                          seed2=0, num_proj=0, time_major=True, *, backend=None, device=None,
                          feature_level=None, return_graph=False):
    """tf.raw_ops.CudnnRNNBackpropV3: the gradients of a CudnnRNNV3 call (run with is_training true).

    Takes the forward's arguments and results (``reserve_space`` from ``cudnn_rnn_v3``; ``output``, ``output_h``,
    ``output_c`` and ``host_reserved`` are checked for shape, as TensorFlow does, and not read) and the gradients of
    its outputs. Returns CudnnRNNBackpropV3(input_backprop, input_h_backprop, input_c_backprop, params_backprop),
    each shaped like the forward's argument (params_backprop in the canonical layout). At t >= sequence length the
    output_backprop values are ignored and the state gradient passes through unchanged.

    DirectML operators (no RNN gradient operator exists): per layer (last first) and direction, GEMMs recompute
    every gate pre-activation at once from the input and the saved output sequences (reserve_space), then
    ACTIVATION_SIGMOID / TANH and element-wise MULTIPLY / ADD / SUBTRACT / IDENTITY (ScaleBias) give the gates'
    derivatives (rnn_relu: ELEMENT_WISE_CLIP and CEIL); the recurrence runs one step at a time (SLICE of the step,
    element-wise, one GEMM with the recurrent weights; lstm also rebuilds its cell states step by step); JOIN
    gathers the per-step gate gradients, one GEMM each gives the input, recurrent and input-side gradients, REDUCE
    SUM the bias gradients, and a JOIN lays params_backprop out. Lowest feature level: DML_FEATURE_LEVEL_1_0.
    """
    config, arrays, _ = _check(OP_GRAD, input, input_h, input_c, params, sequence_lengths, rnn_mode, input_mode,
                               direction, dropout, seed, seed2, num_proj, time_major, True)
    dtype = (arrays["input"].dtype.name,)
    for name, value, shape in (("output", output, config.output_shape()),
                               ("output_backprop", output_backprop, config.output_shape()),
                               ("output_h", output_h, config.state_shape()),
                               ("output_h_backprop", output_h_backprop, config.state_shape())) + (
            (("output_c", output_c, config.state_shape()),
             ("output_c_backprop", output_c_backprop, config.state_shape())) if rnn_mode == "lstm" else ()):
        arrays[name] = array(OP_GRAD, name, value, dtype, ranks=(3,))
        if arrays[name].shape != shape:
            raise DmlOpsError(f"{OP_GRAD}: {name} has shape {list(arrays[name].shape)}; expected {list(shape)}.")
    reserve = array(OP_GRAD, "reserve_space", reserve_space, dtype)
    if reserve.ndim != 1 or reserve.size != config.reserve_size:
        raise DmlOpsError(f"{OP_GRAD}: reserve_space has shape {list(reserve.shape)}; expected "
                          f"[{config.reserve_size}], what cudnn_rnn_v3 returns with is_training=True for these shapes "
                          f"and dropout={config.dropout} ({config.reserve_blocks} blocks of "
                          f"{config.sequence_elements}).")
    built = _backward_built(config)
    feeds = {name: packed(arrays[name]).reshape(-1)
             for name in ("input", "input_h", "input_c", "params", "output_backprop", "output_h_backprop",
                          "output_c_backprop") if name in arrays and name in built.graph.input_names}
    feeds["reserve_space"] = reserve
    if config.lengths:
        valid, last = sequence_masks(arrays["sequence_lengths"], config.steps, config.batch, arrays["input"].dtype)
        feeds["valid"] = valid
        if "last" in built.graph.input_names:
            feeds["last"] = last
    return finish_or_graph(built, feeds, return_graph, backend, device, feature_level)


__all__ = ["cudnn_rnn_v3", "cudnn_rnn_backprop_v3", "compose_cudnn_rnn_v3", "sequence_masks", "sequence_strides",
           "RnnConfig", "CudnnRNNV3", "CudnnRNNBackpropV3"]
