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
from .torch_directml_ops import FALLBACK, descriptor_problems


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

    def compute_dtype(self, data_type: DataType):
        """float32 for FLOAT16 on the CPU (where torch lacks many float16 kernels), else the declared dtype."""
        if self.upcast_float16 and data_type == DataType.FLOAT16:
            return self.torch.float32
        return torch_dtype(self.torch, data_type)

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
            value = value.to(device=self.device, dtype=torch_dtype(torch, td.data_type))
            return value.to(self.compute_dtype(td.data_type))

        outs = evaluate(self.graph, values, self.lower, settle, self.reinterpret)
        result = []
        for td, v in zip(self.out_descs, outs):
            v = v.to(torch_dtype(torch, td.data_type))
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

    def to_device(self, name: str, td, value):
        """A checked torch tensor on the compiled device from a NumPy array or a torch tensor."""
        torch = self.torch
        if isinstance(value, torch.Tensor):
            if value.device != self.device:
                raise DmlOpsError(f"{name}: the tensor is on {value.device}, the operator is compiled for "
                                  f"{self.device}; move it first (dmlops never moves data silently).")
            expected = torch_dtype(torch, td.data_type)
            if value.dtype != expected:
                raise DmlOpsError(f"{name}: expected {td.data_type.name} data ({expected}); got {value.dtype}. "
                                  "dmlops never casts inputs; convert the tensor first.")
            form = tensors.check_array(td, value, name, shape=tuple(value.shape), dtype=td.data_type.numpy_dtype)
            if form == "logical" and tensors.is_strided(td):
                return torch.from_numpy(tensors.logical_to_buffer(td, value.cpu().numpy(), name)).to(self.device)
            # as_strided reads a buffer's storage from its start with the declared strides: the buffer must be
            # a contiguous tensor (a caller's view such as t[::2] would otherwise be read as its base's memory).
            value = value.contiguous()
            if form == "buffer" and not tensors.is_strided(td):
                return value[: td.element_count].reshape(td.sizes)
            return value
        array = tensors.numpy_input(td, value, name)
        # NumPy calls an array with a negative stride on a size-1 axis C-contiguous, but torch.from_numpy refuses
        # any negative stride: such an array is copied too.
        if not (array.flags.writeable and array.flags.c_contiguous) or any(s < 0 for s in array.strides):
            array = np.array(array, order="C")
        return torch.from_numpy(array).to(self.device)

    def __call__(self, inputs: list) -> list:
        with self.torch.no_grad():
            return self.function(inputs)


def build(graph, device: str, torch_device):
    """A Runner for ``graph`` on ``torch_device``; on torch-directml, descriptors it cannot run are refused first."""
    if parse_device(device, "torch")[0] == "dml":
        found = descriptor_problems(graph)
        if found:
            raise DmlOpsError("torch-directml cannot run this safely: " + " ".join(found)
                              + " The onnxruntime backend (DirectML provider) has no such limits.")
    return Runner(graph, device, torch_device)
