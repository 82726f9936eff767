"""The CudnnRNN params buffer: its canonical layout, and converters to and from PyTorch and DirectML.

TensorFlow's CudnnRNN ops take one 1-D ``params`` buffer. Its canonical form (what
``CudnnRNNParamsToCanonical`` returns) is two lists:

* weights, layer by layer, and within a layer the forward then the backward direction; per (layer,
  direction) the input weights, one [num_units, in_l] matrix per gate, then the recurrent weights, one
  [num_units, num_units] matrix per gate. in_0 = input_size; in_l = dir * num_units for l > 0 (layer l
  reads the concatenated [forward, backward] outputs of layer l - 1).
* biases in the same order: per (layer, direction) one [num_units] vector per gate for the input
  side, then one per gate for the recurrent side.

Gate order (cuDNN's): GRU r, z, h (reset, update, new); LSTM i, f, c, o (input, forget, new cell,
output); rnn_relu / rnn_tanh one gate. The buffer is the concatenation of every flattened (row-major)
weight, then every bias: the layout of tensorflow-directml-plugin's CudnnRNNCanonicalToParams and of the
buffer Keras hands cuDNN for one unidirectional layer (research/seed_semantics.md §5.3). Real cuDNN may
pad its opaque buffer differently for several layers or directions; buffers from there are unverified.

PyTorch's nn.GRU / nn.LSTM / nn.RNN keep their gates in the cuDNN order (r, z, n; i, f, g, o), so the
torch converters only split and join. DirectML's GRU orders gates z, r, h and its LSTM i, o, f, c (the
ONNX orders; dmlops/ops/gru.py, lstm.py), which ``params_to_dml`` permutes.

RnnConfig (what a CudnnRNN graph depends on) and ``param_slice`` live here, below both the forward
(cudnn_rnn.py) and the gradient (cudnn_rnn_backprop.py) that read them.
"""
from __future__ import annotations

import math
from collections import OrderedDict
from dataclasses import dataclass
from functools import cached_property

import numpy as np

from ...compose import Composer, Tensor
from ...errors import DmlOpsError
from .._common import array, choice

RNN_MODES = ("rnn_relu", "rnn_tanh", "lstm", "gru")
DIRECTIONS = ("unidirectional", "bidirectional")
# cuDNN's (= TensorFlow's canonical = PyTorch's) gate order, per rnn_mode.
GATES = {"gru": ("r", "z", "h"), "lstm": ("i", "f", "c", "o"), "rnn_relu": ("h",), "rnn_tanh": ("h",)}
# DirectML's gate order (dmlops/ops/gru.py: z, r, h; dmlops/ops/lstm.py: i, o, f, c).
DML_GATES = {"gru": ("z", "r", "h"), "lstm": ("i", "o", "f", "c"), "rnn_relu": ("h",), "rnn_tanh": ("h",)}
FLOAT_DTYPES = ("float32", "float16", "float64")


@dataclass(frozen=True)
class Block:
    """One canonical weight or bias: where it sits in the params buffer and what it is."""

    kind: str  # "weight" or "bias"
    layer: int
    direction: int  # 0 forward, 1 backward
    source: str  # "input" (applied to the layer's input) or "recurrent" (to the hidden state)
    gate: str  # a name from GATES
    offset: int  # first element in the params buffer
    shape: tuple[int, ...]  # [num_units, in] for weights, [num_units] for biases

    @property
    def size(self) -> int:
        """The element count."""
        return math.prod(self.shape)


@dataclass(frozen=True)
class RnnShape:
    """What the params layout depends on: rnn_mode, num_layers, num_units, input_size, direction."""

    rnn_mode: str
    num_layers: int
    num_units: int
    input_size: int
    direction: str = "unidirectional"

    @property
    def dirs(self) -> int:
        """1 or 2."""
        return 2 if self.direction == "bidirectional" else 1

    @property
    def gates(self) -> tuple[str, ...]:
        """The cuDNN gate names of rnn_mode."""
        return GATES[self.rnn_mode]

    def layer_input_size(self, layer: int) -> int:
        """in_l: input_size for layer 0, dirs * num_units above."""
        return self.input_size if layer == 0 else self.dirs * self.num_units

    def blocks(self) -> list[Block]:
        """Every canonical weight, then every bias, in buffer order."""
        return list(self._blocks)

    @cached_property
    def _blocks(self) -> tuple[Block, ...]:
        out, offset, h = [], 0, self.num_units
        for kind in ("weight", "bias"):
            for layer in range(self.num_layers):
                for d in range(self.dirs):
                    for source in ("input", "recurrent"):
                        width = self.layer_input_size(layer) if source == "input" else h
                        for gate in self.gates:
                            shape = (h, width) if kind == "weight" else (h,)
                            out.append(Block(kind, layer, d, source, gate, offset, shape))
                            offset += math.prod(shape)
        return tuple(out)

    def block(self, kind: str, layer: int, direction: int, source: str, gate: str) -> Block:
        """The Block with these coordinates."""
        return self._index[(kind, layer, direction, source, gate)]

    @cached_property
    def _index(self) -> dict:
        return {(b.kind, b.layer, b.direction, b.source, b.gate): b for b in self._blocks}

    @property
    def size(self) -> int:
        """Elements in the params buffer."""
        last = self._blocks[-1]
        return last.offset + last.size

    def describe(self) -> str:
        """The shape as keyword arguments, for error messages."""
        return (f"rnn_mode={self.rnn_mode!r}, num_layers={self.num_layers}, num_units={self.num_units}, "
                f"input_size={self.input_size}, direction={self.direction!r}")


@dataclass(frozen=True)
class RnnConfig:
    """Everything a CudnnRNN graph depends on (its cache key)."""

    shape: RnnShape
    steps: int
    batch: int
    data_type: str  # "FLOAT32" or "FLOAT16"
    time_major: bool
    dropout: float  # the dropout that applies: 0.0 without training or with one layer
    lengths: bool  # whether sequence_lengths is given

    @property
    def dirs(self) -> int:
        """1 or 2."""
        return self.shape.dirs

    @property
    def units(self) -> int:
        """num_units (H)."""
        return self.shape.num_units

    @property
    def layers(self) -> int:
        """num_layers."""
        return self.shape.num_layers

    @property
    def sequence_elements(self) -> int:
        """Elements of one layer's output sequence: T * N * dir * H."""
        return self.steps * self.batch * self.dirs * self.units

    @property
    def reserve_blocks(self) -> int:
        """Blocks in reserve_space: one output sequence per layer, one dropout mask per layer above the first."""
        return self.layers + (self.layers - 1 if self.dropout else 0)

    @property
    def reserve_size(self) -> int:
        """Elements of reserve_space."""
        return self.reserve_blocks * self.sequence_elements

    def input_shape(self) -> tuple[int, ...]:
        """TensorFlow's input shape."""
        i = self.shape.input_size
        return (self.steps, self.batch, i) if self.time_major else (self.batch, self.steps, i)

    def state_shape(self) -> tuple[int, ...]:
        """TensorFlow's input_h / output_h shape."""
        ld = self.layers * self.dirs
        return (ld, self.batch, self.units) if self.time_major else (self.batch, ld, self.units)

    def output_shape(self) -> tuple[int, ...]:
        """TensorFlow's output shape."""
        dh = self.dirs * self.units
        return (self.steps, self.batch, dh) if self.time_major else (self.batch, self.steps, dh)


def param_slice(c: Composer, params: Tensor, offset: int, size: int, sizes) -> Tensor:
    """``size`` consecutive elements of the params buffer ([1, 1, 1, P]) from ``offset``, read as ``sizes``."""
    return c.slice(params, [0, 0, 0, offset], [1, 1, 1, size]).view(sizes)


def rnn_shape(op: str, rnn_mode: str, num_layers: int, num_units: int, input_size: int,
              direction: str = "unidirectional") -> RnnShape:
    """A checked RnnShape; errors are prefixed with ``op``."""
    choice(op, "rnn_mode", rnn_mode, RNN_MODES)
    choice(op, "direction", direction, DIRECTIONS)
    for name, value in (("num_layers", num_layers), ("num_units", num_units), ("input_size", input_size)):
        if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 1:
            raise DmlOpsError(f"{op}: {name} must be a positive integer; got {value!r}.")
    return RnnShape(rnn_mode, int(num_layers), int(num_units), int(input_size), direction)


def params_size(rnn_mode: str, num_layers: int, num_units: int, input_size: int,
                direction: str = "unidirectional") -> int:
    """CudnnRNNParamsSize: the element count of the params buffer in the canonical layout (module docstring).

    GRU: per layer and direction 3 * num_units * (in_l + num_units + 2); LSTM 4 * ...; rnn_relu / rnn_tanh 1 * ...
    """
    return rnn_shape("tensorflow.CudnnRNNParamsSize", rnn_mode, num_layers, num_units, input_size, direction).size


def canonical_to_params(weights, biases) -> np.ndarray:
    """CudnnRNNCanonicalToParams: the params buffer from the canonical weights and biases (lists of arrays in
    canonical order, see the module docstring): every weight flattened row-major, then every bias."""
    op = "tensorflow.CudnnRNNCanonicalToParams"
    weights, biases = list(weights), list(biases)
    if not weights or len(weights) != len(biases):
        raise DmlOpsError(f"{op}: weights and biases must be non-empty lists of equal length (one bias per weight); "
                          f"got {len(weights)} weights and {len(biases)} biases.")
    arrays = [array(op, f"weights[{i}]", w, FLOAT_DTYPES) for i, w in enumerate(weights)]
    arrays += [array(op, f"biases[{i}]", b, FLOAT_DTYPES) for i, b in enumerate(biases)]
    dtypes = sorted({a.dtype.name for a in arrays})
    if len(dtypes) > 1:
        raise DmlOpsError(f"{op}: weights and biases must share one dtype; got {', '.join(dtypes)}.")
    return np.concatenate([a.reshape(-1) for a in arrays])


def params_to_canonical(params, *, rnn_mode: str, num_layers: int, num_units: int, input_size: int,
                        direction: str = "unidirectional") -> tuple[list[np.ndarray], list[np.ndarray]]:
    """CudnnRNNParamsToCanonical: (weights, biases), lists of arrays (views of ``params``) in canonical order."""
    op = "tensorflow.CudnnRNNParamsToCanonical"
    shape = rnn_shape(op, rnn_mode, num_layers, num_units, input_size, direction)
    params = checked_params(op, params, shape)
    weights: list[np.ndarray] = []
    biases: list[np.ndarray] = []
    for b in shape.blocks():
        (weights if b.kind == "weight" else biases).append(params[b.offset:b.offset + b.size].reshape(b.shape))
    return weights, biases


def checked_params(op: str, params, shape: RnnShape, dtypes=FLOAT_DTYPES) -> np.ndarray:
    """``params`` as a 1-D array of ``shape.size`` elements, or an error naming the expected size."""
    params = array(op, "params", params, dtypes, ranks=(1,))
    if params.size != shape.size:
        raise DmlOpsError(f"{op}: params has {params.size} elements; {shape.describe()} needs {shape.size} "
                          "(the canonical layout: all weights, then all biases).")
    return params


# ---------------------------------------------------------------------------------------------- PyTorch
_TORCH_MODES = {"GRU": "gru", "LSTM": "lstm"}


def _torch_suffix(layer: int, direction: int) -> str:
    return f"_l{layer}" + ("_reverse" if direction else "")


def params_from_torch(module) -> np.ndarray:
    """The params buffer of a ``torch.nn.GRU``, ``nn.LSTM`` or ``nn.RNN`` (or its ``state_dict()``).

    PyTorch keeps cuDNN's gate order, so ``weight_ih_l{k}[_reverse]`` ([gates * H, in]) splits into the input
    weights and ``weight_hh`` into the recurrent ones; ``bias=False`` modules give zero biases. The dtype is
    the module's. An LSTM with ``proj_size`` > 0 is refused (CudnnRNN's num_proj is not supported here).
    """
    op = "cudnn_rnn.params_from_torch"
    state = module.state_dict() if hasattr(module, "state_dict") else module
    if getattr(module, "proj_size", 0):
        raise DmlOpsError(f"{op}: proj_size={module.proj_size} is not supported (CudnnRNN num_proj is not "
                          "supported by these adapters).")
    if not hasattr(state, "keys") or "weight_hh_l0" not in state:
        raise DmlOpsError(f"{op}: expected a torch.nn.GRU, LSTM or RNN or its state_dict (with weight_ih_l0 and "
                          f"weight_hh_l0); got {type(module).__name__}.")
    if any(k.startswith("weight_hr") for k in state):
        raise DmlOpsError(f"{op}: the state_dict has projection weights (weight_hr_*); CudnnRNN num_proj is not "
                          "supported by these adapters.")
    shape = _torch_shape(op, state)
    values = {k: _to_numpy(v) for k, v in state.items()}
    dtype = values["weight_ih_l0"].dtype
    out = np.zeros(shape.size, dtype)
    g = len(shape.gates)
    h = shape.num_units
    for b in shape.blocks():
        prefix = "weight" if b.kind == "weight" else "bias"
        key = f"{prefix}_{'ih' if b.source == 'input' else 'hh'}{_torch_suffix(b.layer, b.direction)}"
        if key not in values:
            if b.kind == "bias":
                continue  # bias=False: zeros
            raise DmlOpsError(f"{op}: the state_dict lacks {key}.")
        full = values[key]
        expected = (g * h,) + b.shape[1:]
        if full.shape != expected:
            raise DmlOpsError(f"{op}: {key} has shape {list(full.shape)}; expected {list(expected)}.")
        k = shape.gates.index(b.gate)
        out[b.offset:b.offset + b.size] = full[k * h:(k + 1) * h].reshape(-1)
    return out


def _to_numpy(value) -> np.ndarray:
    if hasattr(value, "detach"):
        return value.detach().cpu().numpy()
    return np.asarray(value)


def _torch_shape(op: str, state) -> RnnShape:
    """rnn_mode (up to relu / tanh, which share a layout), layers, units, input size and direction of a state_dict."""
    num_layers = 0
    while f"weight_ih_l{num_layers}" in state:
        num_layers += 1
    w_hh = tuple(state["weight_hh_l0"].shape)
    h = w_hh[1]
    gates = w_hh[0] // h
    mode = {3: "gru", 4: "lstm", 1: "rnn_tanh"}.get(gates)
    if mode is None or w_hh[0] % h:
        raise DmlOpsError(f"{op}: weight_hh_l0 has shape {list(w_hh)}; expected [gates * hidden_size, hidden_size] "
                          "with 1 (RNN), 3 (GRU) or 4 (LSTM) gates.")
    direction = "bidirectional" if "weight_ih_l0_reverse" in state else "unidirectional"
    return RnnShape(mode, num_layers, h, int(state["weight_ih_l0"].shape[1]), direction)


def params_to_torch(params, *, rnn_mode: str, num_layers: int, num_units: int, input_size: int,
                    direction: str = "unidirectional") -> "OrderedDict":
    """A PyTorch state_dict (torch tensors, keys in nn.GRU / LSTM / RNN order) from a params buffer:
    ``torch.nn.GRU(input_size, num_units, num_layers, bidirectional=...).load_state_dict(...)`` gives the same
    model (rnn_relu needs ``nonlinearity="relu"``)."""
    import torch

    op = "cudnn_rnn.params_to_torch"
    shape = rnn_shape(op, rnn_mode, num_layers, num_units, input_size, direction)
    params = checked_params(op, params, shape)
    out = OrderedDict()
    for layer in range(shape.num_layers):
        for d in range(shape.dirs):
            for kind, prefix in (("weight", "weight"), ("bias", "bias")):
                for source, tag in (("input", "ih"), ("recurrent", "hh")):
                    parts = [params[b.offset:b.offset + b.size].reshape(b.shape)
                             for b in (shape.block(kind, layer, d, source, g) for g in shape.gates)]
                    out[f"{prefix}_{tag}{_torch_suffix(layer, d)}"] = torch.from_numpy(np.concatenate(parts).copy())
    return out


# ---------------------------------------------------------------------------------------------- DirectML
def params_to_dml(params, *, rnn_mode: str, num_layers: int, num_units: int, input_size: int,
                  direction: str = "unidirectional") -> list[dict[str, np.ndarray]]:
    """Per layer, the DirectML GRU / LSTM / RNN tensors from a params buffer: ``WeightTensor``
    {1, dirs, gates * H, in_l}, ``RecurrenceTensor`` {1, dirs, gates * H, H}, ``BiasTensor`` {1, 1, dirs, 2 * gates * H}
    ([input biases, recurrent biases] per direction), gates in DirectML's order (GRU z, r, h; LSTM i, o, f, c).
    The GRU needs LinearBeforeReset TRUE to mean what cuDNN's GRU means."""
    op = "cudnn_rnn.params_to_dml"
    shape = rnn_shape(op, rnn_mode, num_layers, num_units, input_size, direction)
    params = checked_params(op, params, shape)
    order = DML_GATES[shape.rnn_mode]

    def take(kind, layer, d, source):
        return [params[b.offset:b.offset + b.size].reshape(b.shape)
                for b in (shape.block(kind, layer, d, source, g) for g in order)]

    layers = []
    for layer in range(shape.num_layers):
        dirs = range(shape.dirs)
        layers.append({
            "WeightTensor": np.stack([np.concatenate(take("weight", layer, d, "input")) for d in dirs])[None],
            "RecurrenceTensor": np.stack([np.concatenate(take("weight", layer, d, "recurrent")) for d in dirs])[None],
            "BiasTensor": np.stack([np.concatenate(take("bias", layer, d, "input")
                                                   + take("bias", layer, d, "recurrent")) for d in dirs])[None, None],
        })
    return layers


__all__ = ["RNN_MODES", "GATES", "DML_GATES", "Block", "RnnShape", "RnnConfig", "param_slice", "params_size", "canonical_to_params",
           "params_to_canonical", "params_from_torch", "params_to_torch", "params_to_dml"]
