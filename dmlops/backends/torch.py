"""The PyTorch backend: a compiled operator or graph becomes one Python function of torch ops.

Devices: ``dml[:N]`` → ``torch_directml.device(N)``, ``cuda[:N]``, ``cpu``; with none named, the
first available of those. Only torch APIs up to 2.4 are used (torch-directml pins torch 2.4.1).
Torch tensor inputs must already be on the compiled device (nothing is moved silently); NumPy
inputs are copied there and results come back as NumPy.
"""
from __future__ import annotations

import re
import warnings

import numpy as np

from .. import tensors
from ..errors import DmlOpsError
from ..lower import lower_torch
from ..types import DataType
from . import evaluate, parse_device
from .torch_directml_ops import (CARRIERS, FALLBACK, TO_DIRECTML, bits_field, carry, descriptor_problems, uncarry,
                                 workarounds)


def torch_dtype(torch, data_type: DataType):
    """The torch dtype of a DataType, or an error where torch has none."""
    name = {"FLOAT32": "float32", "FLOAT16": "float16", "FLOAT64": "float64", "UINT8": "uint8", "INT8": "int8",
            "INT16": "int16", "INT32": "int32", "INT64": "int64", "UINT16": "uint16", "UINT32": "uint32",
            "UINT64": "uint64", "INT4": "int8", "UINT4": "uint8"}.get(data_type.name)  # 4-bit: DataType.numpy_dtype
    if name is None or not hasattr(torch, name):
        raise DmlOpsError(f"torch: DataType {data_type.name} has no torch dtype in torch {torch.__version__}.")
    return getattr(torch, name)


def _directml():
    try:
        import torch_directml
    except ImportError:
        return None
    return torch_directml


def available_devices(torch) -> list[str]:
    """Device kinds available to torch, in preference order."""
    out = []
    if _directml() is not None:
        out.append("dml")
    if torch.cuda.is_available():
        out.append("cuda")
    return out + ["cpu"]


def choose_device(device, torch=None):
    """(device string, torch device, notes) for ``device`` (None = best available); errors list what is available."""
    if torch is None:
        import torch
    have = available_devices(torch)
    if device is None:
        kind, index = have[0], 0
    else:
        kind, index = parse_device(device, "torch")
        if kind not in have:
            hint = {"dml": " DirectML needs the torch-directml package on Windows (wheels for Python 3.8 to 3.12 "
                           "only; on newer Pythons the onnxruntime backend runs DirectML).",
                    "cuda": " torch.cuda.is_available() is False."}[kind]
            raise DmlOpsError(f"torch: device {device!r} is not available; available: {', '.join(have)}.{hint}")
    if kind == "dml":
        return f"dml:{index}", _directml().device(index), ()
    if kind == "cuda":
        if index >= torch.cuda.device_count():
            raise DmlOpsError(f"torch: device {device!r} is not available; there are {torch.cuda.device_count()} "
                              "CUDA devices.")
        return f"cuda:{index}", torch.device("cuda", index), ()
    return "cpu", torch.device("cpu"), ()


class Runner:
    """The torch function of a graph on one device."""

    def __init__(self, graph, device: str, torch_device, upcast_float16: bool | None = None):
        import torch

        self.torch = torch
        self.device = torch_device
        self.directml = parse_device(device, "torch")[0] == "dml"
        self.upcast_float16 = torch_device.type == "cpu" if upcast_float16 is None else upcast_float16
        self.graph = graph
        self.in_descs = graph.input_descs()
        self.out_descs = graph.output_descs()
        self.input_names = list(graph.input_names)
        self.bits_inputs, self.bits_outputs = _bits_slots(graph)

    def storage_dtype(self, data_type: DataType):
        """The dtype a tensor of ``data_type`` is held in: its own, except on torch-directml, which has no
        uint16/uint32/uint64 tensors: those travel in int32 / int64 carriers (torch_directml_ops.CARRIERS)."""
        if self.directml and data_type.name in CARRIERS:
            return getattr(self.torch, CARRIERS[data_type.name])
        return torch_dtype(self.torch, data_type)

    def compute_dtype(self, data_type: DataType):
        """float32 for FLOAT16 on the CPU (where torch lacks many float16 kernels), else the storage dtype."""
        if self.upcast_float16 and data_type == DataType.FLOAT16:
            return self.torch.float32
        return self.storage_dtype(data_type)

    def function(self, inputs: list) -> list:
        """The graph as torch ops: backend-form tensors on the device in, backend-form tensors out."""
        torch = self.torch
        values = []
        for td, t in zip(self.in_descs, inputs):
            if tensors.is_strided(td):
                t = torch.as_strided(t, td.sizes, td.strides)
            values.append(t.to(self.compute_dtype(td.data_type)))

        def settle(value, td):
            # Nodes without inputs (FILL_VALUE_CONSTANT) create tensors on the CPU: their outputs belong here.
            value = value.to(device=self.device, dtype=self.storage_dtype(td.data_type))
            return value.to(self.compute_dtype(td.data_type))

        outs = evaluate(self.graph, values, self.lower, settle, self.reinterpret)
        result = []
        for td, v in zip(self.out_descs, outs):
            v = v.to(self.storage_dtype(td.data_type))
            if tensors.is_strided(td):
                total = max(tensors.buffer_elements(td), tensors.needed_elements(td))
                buffer = torch.zeros(total, dtype=v.dtype, device=v.device)
                buffer.as_strided(td.sizes, td.strides).copy_(v)
                v = buffer
            result.append(v)
        return result

    def lower(self, desc, x: dict) -> dict:
        """One node's torch ops; on torch-directml, a CPU fallback is an error naming the aten op and the operator."""
        if not self.directml:
            return lower_torch(desc, self.torch, x)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            y = lower_torch(desc, self.torch, x)
        for w in caught:
            text = str(w.message)
            if FALLBACK in text:
                aten = re.search(r"'(aten::[^']+)'", text)
                raise DmlOpsError(f"{desc.OPERATOR_TYPE}: torch-directml ran {aten.group(1) if aten else 'an aten op'} "
                                  f"on the CPU instead of DirectML ({text.strip()}); dmlops does not fall back "
                                  "silently. The onnxruntime backend runs this operator on DirectML.")
            warnings.warn_explicit(w.message, w.category, w.filename, w.lineno)  # others pass through
        return y

    def reinterpret(self, value, frm, to):
        """A consumer's read (TensorDesc ``to``) of the buffer a producer (``frm``) wrote: see tensors.reinterpret."""
        if not tensors.is_strided(frm) and not tensors.is_strided(to) and frm.element_count == to.element_count:
            return value.reshape(to.sizes)
        size = max(tensors.buffer_elements(frm), tensors.needed_elements(frm), tensors.needed_elements(to))
        buffer = self.torch.zeros(size, dtype=value.dtype, device=value.device)
        buffer.as_strided(frm.sizes, frm.strides or frm.packed_strides).copy_(value)
        return buffer.as_strided(to.sizes, to.strides or to.packed_strides).contiguous()

    def carried(self, td) -> bool:
        """Whether ``td`` travels in a carrier dtype here (torch-directml and UINT16/32/64 or INT64)."""
        return self.directml and td.data_type.name in CARRIERS

    def to_device(self, name: str, td, value):
        """A checked torch tensor on the compiled device from a NumPy array or a torch tensor. On torch-directml a
        UINT16/32/64 or INT64 input travels in its carrier (a torch tensor input must already be one), and a value
        the carrier cannot hold exactly is refused, naming the element."""
        torch = self.torch
        if isinstance(value, torch.Tensor):
            if value.device != self.device:
                raise DmlOpsError(f"{name}: the tensor is on {value.device}, the operator is compiled for "
                                  f"{self.device}; move it first (dmlops never moves data silently).")
            expected = self.storage_dtype(td.data_type)
            if value.dtype != expected:
                carrier = " (torch-directml has no unsigned 16-, 32- or 64-bit tensors: dmlops carries them in int32 " \
                          "and int64 tensors there)" if self.carried(td) else ""
                raise DmlOpsError(f"{name}: expected {td.data_type.name} data ({expected}{carrier}); got {value.dtype}. "
                                  "dmlops never casts inputs; convert the tensor first.")
            form = tensors.check_array(td, value, name, shape=tuple(value.shape), dtype=td.data_type.numpy_dtype)
            if self.carried(td):  # int64 is computed in 32 bits there: read the values here
                carry(name, td.data_type.name, value.cpu().numpy(), self._bits_in(name))
            if form == "logical" and tensors.is_strided(td):
                buffer = tensors.logical_to_buffer(td, value.cpu().numpy(), name)
                if self.carried(td):
                    buffer = buffer.astype(CARRIERS[td.data_type.name])
                return torch.from_numpy(buffer).to(self.device)
            # as_strided reads a buffer's storage from its start with the declared strides: the buffer must be
            # a contiguous tensor (a caller's view such as t[::2] would otherwise be read as its base's memory).
            value = value.contiguous()
            if form == "buffer" and not tensors.is_strided(td):
                return value[: td.element_count].reshape(td.sizes)
            return value
        array = tensors.numpy_input(td, value, name)
        if self.carried(td):
            array = carry(name, td.data_type.name, array, self._bits_in(name))
        # NumPy calls an array with a negative stride on a size-1 axis C-contiguous, but torch.from_numpy refuses
        # any negative stride: such an array is copied too.
        if not (array.flags.writeable and array.flags.c_contiguous) or any(s < 0 for s in array.strides):
            array = np.array(array, order="C")
        return torch.from_numpy(array).to(self.device)

    def _bits_in(self, path: str) -> bool:
        name = path if path in self.input_names else path.partition(".")[2]  # "OP.Field" or the bare name
        return self.bits_inputs[self.input_names.index(name)]

    def to_numpy(self, name: str, td, value) -> np.ndarray:
        """An output as the NumPy array a caller gets (a carrier's values checked and given their own type)."""
        array = value.cpu().numpy()
        if self.carried(td):
            names = list(self.graph.output_names)
            index = names.index(name if name in names else name.partition(".")[2])
            array = uncarry(name, td.data_type.name, array, self.bits_outputs[index])
        return tensors.numpy_output(td, array)

    def __call__(self, inputs: list) -> list:
        with self.torch.no_grad():
            if not self.directml:
                return self.function(inputs)
            with workarounds():  # what torch-directml computes wrong, computed through what it gets right
                return self.function(inputs)


def _bits_slots(graph) -> tuple[list[bool], list[bool]]:
    """Which graph inputs and outputs carry UINT16 / UINT32 as bits on torch-directml (torch_directml_ops.BITS_OPS):
    those of a one-operator graph whose field takes bits; in a larger graph none (every value range-checked)."""
    from ..graph import slots

    ins, outs = [False] * len(graph.input_names), [False] * len(graph.output_names)
    if len(graph.nodes) != 1:
        return ins, outs
    node = graph.nodes[0]
    in_slots, out_slots = slots(node, "input"), slots(node, "output")
    for e in graph.input_edges:
        ins[e.graph_input_index] = bits_field(node, in_slots[e.to_node_input_index][0])
    for o in graph.output_edges:
        outs[o.graph_output_index] = bits_field(node, out_slots[o.from_node_output_index][0])
    return ins, outs


def build(graph, device: str, torch_device):
    """A Runner for ``graph`` on ``torch_device``; on torch-directml, descriptors it cannot run are refused first."""
    if parse_device(device, "torch")[0] == "dml":
        found = descriptor_problems(graph)
        if found:
            raise DmlOpsError("torch-directml cannot run this safely: " + " ".join(found) + " " + TO_DIRECTML)
    return Runner(graph, device, torch_device)
