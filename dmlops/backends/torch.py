"""The PyTorch backend: a compiled operator or graph becomes one Python function of torch ops.

Devices: ``dml[:N]`` → ``torch_directml.device(N)``, ``cuda[:N]``, ``cpu``; with none named, the
first available of those. Only torch APIs up to 2.4 are used (torch-directml pins torch 2.4.1).
Torch tensor inputs must already be on the compiled device (nothing is moved silently); NumPy
inputs are copied there and results come back as NumPy.
"""
from __future__ import annotations

import functools
import re
import warnings
from typing import Any

import numpy as np

from .. import lower as _lower
from .. import tensors
from ..errors import DmlOpsError
from ..lower import lower_torch, torch_lowering
from ..types import DataType
from . import parse_device, plan
from .torch_directml_adapt import Adapted, adapt, inner_runner
from .torch_dtypes import torch_dtype
from .torch_directml_ops import (CARRIERS, FALLBACK, TO_DIRECTML, bits_field, carry, check_intermediate,
                                 descriptor_problems, saturating_field, uncarry, workarounds)


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
    """The torch function of a graph on one device.

    What a call does is decided at construction (``_prepare``): the graph's plan (backends.plan), each node's
    lowering (lower.torch_lowering), and which dtype conversions, strided reads and writes each value needs; a call
    does only those. ``fast`` is the per-call path of a compiled operator for inputs that need nothing done."""

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
        self.saturated_inputs = _saturated_slots(graph)
        self._prepare()

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

    def _conversion(self, td):
        """The dtype a value of ``td`` is converted to after its storage dtype (the compute dtype), or None."""
        compute = self.compute_dtype(td.data_type)
        return None if compute is self.storage_dtype(td.data_type) else compute

    def _prepare(self) -> None:
        torch = self.torch
        p = plan(self.graph)
        self._registers = p.registers
        # Per graph input: (Sizes, Strides) of a strided read or None; the compute dtype to convert to or None.
        self._inputs = tuple(((tuple(td.sizes), tuple(td.strides)) if tensors.is_strided(td) else None,
                              self._conversion(td)) for td in self.in_descs)
        float16 = [self.compute_dtype(td.data_type) is torch.float16 for td in p.descs]
        # A lower_torch replaced after import (tests) and torch-directml's fallback check go through self.lower.
        direct = not self.directml and lower_torch is _lower.lower_torch
        steps = []
        for step in p.steps:
            if direct:
                fed = [r for _, ref in step.fields if ref is not None
                       for r in ((ref,) if isinstance(ref, int) else ref)]
                fn = torch_lowering(step.desc, torch, any(float16[r] for r in fed))
            else:
                fn = functools.partial(self.lower, step.desc)
            outs = tuple((field, index, reg, self.storage_dtype(td.data_type), self._conversion(td))
                         for field, index, reg, td in step.outputs)
            steps.append((fn, step, outs, step.reinterprets))
        self._steps = tuple(steps)
        # On torch-directml, each carried value a node of a larger graph writes is range-checked before a node that
        # computes on its value reads it (torch_directml_ops.check_intermediate): register -> (type, "OP.Field").
        read = {r for step in p.steps for name, ref in step.fields
                if ref is not None and not bits_field(self.graph.nodes[step.node], name)
                for r in ((ref,) if isinstance(ref, int) else ref)}  # a field that takes bits reads any value exactly
        read |= {src for step in p.steps for src, *_ in step.reinterprets}
        self._intermediate_checks = {
            reg: (td.data_type.name, f"{self.graph.nodes[step.node].OPERATOR_TYPE}.{field}" + ("" if index is None else f"[{index}]"))
            for step in p.steps for field, index, reg, td in step.outputs
            if len(p.steps) > 1 and reg in read and self.carried(td)}
        # Per graph output: its register, storage dtype, and TensorDesc when strided (written into its buffer).
        self._outputs = tuple((reg, self.storage_dtype(td.data_type), td if tensors.is_strided(td) else None)
                              for reg, td in zip(p.outputs, self.out_descs))
        # The fast path (``fast_path``): every input and output packed, of a whole-byte type and not carried.
        plain = not any(tensors.is_strided(td) or td.data_type.four_bit_range is not None or self.carried(td)
                        for td in (*self.in_descs, *self.out_descs))
        # Per input: storage dtype, NumPy dtype, Sizes, and the node's field it is (one-node graphs, below).
        self._fast: tuple | None = tuple((self.storage_dtype(td.data_type), td.data_type.numpy_dtype,
                                          torch.Size(td.sizes), None) for td in self.in_descs) if plain else None
        # Aliasing is read from storages on the CPU and CUDA; torch-directml's tensors have none (fresh).
        self._storages = torch_device_has_storage(self.device)
        # One node whose input fields are the graph's inputs one to one, with nothing to convert (no FLOAT16
        # computed in float32) and outside torch-directml's workarounds mode: the fast path hands the inputs to the
        # lowering as its x, in schema order with None for absent fields, and settles its outputs itself.
        self._simple: tuple | None = None
        if self._fast is not None and len(steps) == 1 and not self.directml and self._storages:
            fn, step, outs, _ = steps[0]
            refs = [ref for _, ref in step.fields if ref is not None]
            by_input = {ref: name for name, ref in step.fields if type(ref) is int}
            if (len(by_input) == len(refs) == len(self.in_descs) and all(c is None for _, c in self._inputs)
                    and all(c is None for *_, c in outs)):
                produced = {reg: (field, index, storage) for field, index, reg, storage, _ in outs}
                self._fast = tuple((*f[:3], by_input[i]) for i, f in enumerate(self._fast))
                self._simple = ({name: None for name, _ in step.fields}, fn,
                                tuple(produced[reg] for reg, _, _ in self._outputs), self._fast, torch, torch.Tensor,
                                self.device)

    def fast_path(self, wrap, keys: tuple[tuple[str, ...], tuple[str, ...]]):
        """The per-call path of a compiled operator for inputs that need nothing done, or None where the graph has
        strided, 4-bit or carried tensors: a function ``(inputs, kwargs)`` of a call's dict and keyword arguments
        (``keys``: the inputs' names in either, in input order) that returns a new ``wrap()`` (a dict type) holding
        the outputs by graph output name when the call passes one or the other, with each input a contiguous torch
        tensor on this device or a C-contiguous, writeable NumPy array of exactly its storage dtype and Sizes (torch
        tensors out if any input is one, else NumPy arrays, as the checked path gives them); and None for anything
        else, or a dict of other length: the checked path then runs and says what is wrong. Outputs never share
        memory with inputs (``fresh``)."""
        if self._fast is None:
            return None
        names = tuple(self.graph.output_names)
        general = self._fast_graph if self._simple is None else self._fast_simple

        def call(inputs, kwargs):
            if inputs is None:
                outs = general(kwargs, keys[1])
            elif not kwargs:
                outs = general(inputs, keys[0])
            else:
                return None
            if outs is None:
                return None
            result = wrap()
            for name, v in zip(names, outs):
                result[name] = v
            return result

        if self._simple is None or not self.in_descs:  # without inputs the outputs are NumPy arrays: ``call``
            return call
        return _unrolled(self._simple, call, wrap, names, keys)

    def function(self, inputs: list) -> list:
        """The graph as torch ops: backend-form tensors on the device in, backend-form tensors out."""
        torch = self.torch
        registers: list = [None] * self._registers
        for i, (t, (strided, compute)) in enumerate(zip(inputs, self._inputs)):
            if strided is not None:
                t = torch.as_strided(t, *strided)
            registers[i] = t if compute is None else t.to(compute)
        device, checks = self.device, self._intermediate_checks
        for fn, step, outs, reinterprets in self._steps:
            y = fn(step.x(registers))
            for field, index, reg, storage, compute in outs:
                v = y[field] if index is None else y[field][index]
                # Rounded to the stored type; nodes without inputs (FILL_VALUE_CONSTANT) create tensors on the
                # CPU: their outputs belong here.
                if v.dtype is not storage or v.device != device:
                    v = v.to(device=device, dtype=storage)
                registers[reg] = v if compute is None else v.to(compute)
                if reg in checks:
                    check_intermediate(checks[reg][1], checks[reg][0], v)
            for src, dst, frm, to in reinterprets:
                registers[dst] = self.reinterpret(registers[src], frm, to)
        result = []
        for reg, storage, strided_td in self._outputs:
            v = registers[reg]
            if v.dtype is not storage:
                v = v.to(storage)
            if strided_td is not None:
                total = max(tensors.buffer_elements(strided_td), tensors.needed_elements(strided_td))
                buffer = torch.zeros(total, dtype=v.dtype, device=v.device)
                buffer.as_strided(strided_td.sizes, strided_td.strides).copy_(v)
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
        if not tensors.is_strided(frm) and value.is_contiguous() and tensors.needed_elements(to) <= frm.element_count:
            # The producer's buffer is its packed value: the consumer reads it through a view (a broadcast, a
            # transpose, every other element), as a strided graph input is read; no copy.
            return value.reshape(-1).as_strided(to.sizes, to.strides or to.packed_strides)
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
            array = carry(name, td.data_type.name, array, self._bits_in(name), self._saturated_in(name))
        # NumPy calls an array with a negative stride on a size-1 axis C-contiguous, but torch.from_numpy refuses
        # any negative stride: such an array is copied too.
        if not (array.flags.writeable and array.flags.c_contiguous) or any(s < 0 for s in array.strides):
            array = np.array(array, order="C")
        return torch.from_numpy(array).to(self.device)

    def _input_index(self, path: str) -> int:
        name = path if path in self.input_names else path.partition(".")[2]  # "OP.Field" or the bare name
        return self.input_names.index(name)

    def _bits_in(self, path: str) -> bool:
        return self.bits_inputs[self._input_index(path)]

    def _saturated_in(self, path: str) -> str | None:
        return self.saturated_inputs[self._input_index(path)]

    def host_output(self, name: str, td, value) -> np.ndarray:
        """An output's values on the host in its own type (a carrier's values checked), before numpy_output."""
        array = value.cpu().numpy()
        if self.carried(td):
            names = list(self.graph.output_names)
            index = names.index(name if name in names else name.partition(".")[2])
            array = uncarry(name, td.data_type.name, array, self.bits_outputs[index])
        return array

    def to_numpy(self, name: str, td, value) -> np.ndarray:
        """An output as the NumPy array a caller gets (a carrier's values checked and given their own type)."""
        return tensors.numpy_output(td, self.host_output(name, td, value))

    def torch_output(self, name: str, td, value):
        """An output as a caller who passed torch tensors gets it: on the device (a strided one as its view)."""
        return value.as_strided(td.sizes, td.strides) if tensors.is_strided(td) else value

    def __call__(self, inputs: list) -> list:
        torch = self.torch
        if not self.directml:
            grad = torch.is_grad_enabled()  # torch.no_grad() without its Python context manager (1.5 us a call)
            torch._C._set_grad_enabled(False)
            try:
                return self.function(inputs)
            finally:
                torch._C._set_grad_enabled(grad)
        with torch.no_grad(), workarounds():  # what torch-directml computes wrong, computed through what it gets right
            return self.function(inputs)

    def fresh(self, outs: list, inputs: list) -> list:
        """The outputs, each cloned where it shares memory with an input (an identity, a same-dtype .to(), a reshape
        or as_strided of an input hands the input back): writing an output never changes the caller's input. On
        the CPU and CUDA that is read from their storages; elsewhere (torch-directml's tensors have no storage:
        untyped_storage() and data_ptr() raise there) from identity and view bases, which is how an output comes
        to share an input's memory in a lowering."""
        if self._storages:
            storages = {t.untyped_storage().data_ptr() for t in inputs}
            return [v.clone() if v.untyped_storage().data_ptr() in storages else v for v in outs]

        def root(t):
            return t if t._base is None else t._base

        bases = {id(root(t)) for t in inputs}
        return [v.clone() if id(root(v)) in bases else v for v in outs]

    def _fast_graph(self, given: dict, keys: tuple):
        """The fast path's outputs as a list (or None), for any graph it takes."""
        spec = self._fast
        if spec is None or type(given) is not dict or len(given) != len(spec):
            return None
        torch = self.torch
        tensor, ndarray, device = torch.Tensor, np.ndarray, self.device
        feed = []
        as_torch = False
        for key, (dtype, np_dtype, shape, _) in zip(keys, spec):
            v: Any = given.get(key)
            if type(v) is tensor:
                if v.dtype is not dtype or v.shape != shape or v.device != device or not v.is_contiguous():
                    return None
                as_torch = True
            elif type(v) is ndarray:
                if (v.dtype != np_dtype or v.shape != shape or not (v.flags.c_contiguous and v.flags.writeable)
                        or any(s < 0 for s in v.strides)):  # torch.from_numpy refuses negative strides
                    return None
                v = torch.from_numpy(v).to(device)
            else:
                return None
            feed.append(v)
        outs = self.fresh(self(feed), feed)
        return outs if as_torch else [v.cpu().numpy() for v in outs]

    def _fast_simple(self, given: dict, keys: tuple):
        """The fast path's outputs as a list (or None) for a one-node graph (``_simple``): the checks, function(),
        __call__ and fresh() in one loop each, as they are the whole cost of a small operator's call."""
        assert self._simple is not None
        template, fn, settle, spec, torch, tensor, device = self._simple
        if type(given) is not dict or len(given) != len(spec):
            return None
        x = template.copy()
        storages = []
        as_torch = grad = False
        for key, (dtype, np_dtype, shape, field) in zip(keys, spec):
            v: Any = given.get(key)
            if type(v) is tensor:
                if v.dtype is not dtype or v.shape != shape or v.device != device or not v.is_contiguous():
                    return None
                as_torch = True
                if v.requires_grad:
                    grad = True
            elif type(v) is np.ndarray:
                if (v.dtype != np_dtype or v.shape != shape or not (v.flags.c_contiguous and v.flags.writeable)
                        or any(s < 0 for s in v.strides)):  # torch.from_numpy refuses negative strides
                    return None
                v = torch.from_numpy(v).to(device)
            else:
                return None
            x[field] = v
            storages.append(v.untyped_storage().data_ptr())
        if grad:  # no_grad where an input records a graph; without one, no op records anything
            with torch.no_grad():
                y = fn(x)
        else:
            y = fn(x)
        outs = []
        for field, index, storage in settle:  # as function() settles a node's outputs
            v = y[field] if index is None else y[field][index]
            if v.dtype is not storage or v.device != device:
                v = v.to(device=device, dtype=storage)
            if v.untyped_storage().data_ptr() in storages:  # fresh() on the CPU and CUDA
                v = v.clone()
            outs.append(v)
        return outs if as_torch else [v.cpu().numpy() for v in outs]


def _unrolled(simple: tuple, general, wrap, names: tuple, keys: tuple):
    """The fast path of a one-node graph with inputs, for torch tensor inputs, written out for this operator's inputs and outputs
    (as dataclasses and namedtuple write their methods): ``Runner._fast_simple``'s loops, tuple unpacking and list
    building, and the caller's wrapping of a list, cost about 1.5 us of an 8-element ACTIVATION_RELU_GRAD's 10
    (benchmarks/). A call whose inputs are anything else (NumPy arrays, a tensor that requires grad, or one the
    checked path must see) goes to ``general``, which handles it as ``_fast_simple`` does. ``fast.source`` is the
    text."""
    template, fn, settle, spec, torch, tensor, device = simple
    n = len(spec)
    env: dict = {"Tensor": tensor, "DEVICE": device, "lower": fn, "general": general, "wrap": wrap}
    field_of = {field: i for i, (_, _, _, field) in enumerate(spec)}
    # is_cpu reads a flag; comparing devices builds a torch.device (about 50 ns more per tensor).
    elsewhere = "not {0}.is_cpu" if device.type == "cpu" else "{0}.device != DEVICE"
    lines = ["def fast(inputs, kwargs, /):",
             f"    if inputs is None and len(kwargs) == {n}:"]
    lines += [f"        v{i} = kwargs.get({k!r})" for i, k in enumerate(keys[1])]
    lines.append(f"    elif type(inputs) is dict and not kwargs and len(inputs) == {n}:")
    lines += [f"        v{i} = inputs.get({k!r})" for i, k in enumerate(keys[0])]
    lines += ["    else:", "        return None"]
    checks = []
    for i, (dtype, _, shape, _) in enumerate(spec):
        env[f"D{i}"], env[f"S{i}"] = dtype, shape
        checks.append(f"type(v{i}) is not Tensor or v{i}.dtype is not D{i} or v{i}.shape != S{i} or "
                      f"{elsewhere.format(f'v{i}')} or not v{i}.is_contiguous() or v{i}.requires_grad")
    lines += ["    if (" + "\n            or ".join(checks) + "):", "        return general(inputs, kwargs)"]
    x = ", ".join(f"{name!r}: " + (f"v{field_of[name]}" if name in field_of else "None") for name in template)
    lines += [f"    y = lower({{{x}}})", "    result = wrap()"]
    storages = "".join(f"v{i}.untyped_storage().data_ptr(), " for i in range(n))
    for j, ((field, index, storage), name) in enumerate(zip(settle, names)):
        env[f"T{j}"] = storage
        lines += [f"    o = y[{field!r}]" + ("" if index is None else f"[{index}]"),
                  f"    if o.dtype is not T{j} or {elsewhere.format('o')}:",  # as function() settles
                  f"        o = o.to(device=DEVICE, dtype=T{j})"]
        lines += [f"    if o.untyped_storage().data_ptr() in ({storages}):",  # fresh() on the CPU and CUDA
                  "        o = o.clone()"]
        lines.append(f"    result[{name!r}] = o")
    lines.append("    return result")
    source = "\n".join(lines)
    exec(source, env)  # the source is built above from identifiers, reprs of names and indices only
    fast = env["fast"]
    fast.source = source
    return fast


def torch_device_has_storage(device) -> bool:
    """Whether tensors on ``device`` have storages dmlops may read (the CPU and CUDA; not torch-directml's)."""
    return device.type in ("cpu", "cuda")


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


def _saturated_slots(graph) -> list[str | None]:
    """How each graph input, an index tensor of operators that bound it, is saturated into its carrier on
    torch-directml (torch_directml_ops.saturating_field: the rule of every node it feeds, when they agree), or None."""
    from ..graph import slots

    rules: dict[int, set] = {}
    for e in graph.input_edges:
        node = graph.nodes[e.to_node_index]
        rules.setdefault(e.graph_input_index, set()).add(
            saturating_field(node, slots(node, "input")[e.to_node_input_index][0]))
    return [next(iter(rules[i])) if len(rules.get(i, ())) == 1 else None for i in range(len(graph.input_names))]


_REWRITES = {"lanes": "64-bit values as two int32 lanes, the operator run once per lane",
             "pairs": "64-bit values computed as (low, high) int32 pairs",
             "order": "UINT32 values compared as int32 with their top bit flipped",
             "rank": "more than 6 dimensions merged into at most 6"}


def directml_notes(graph, runner, device: str) -> tuple[str, ...]:
    """What ``op.notes`` says of a torch-directml operator: how its values travel and what runs rewritten."""
    if parse_device(device, "torch")[0] != "dml":
        return ()
    notes = []
    if isinstance(runner, Adapted):
        notes.append(f"runs rewritten for torch-directml (torch_directml_adapt): {_REWRITES[runner.adaptation.kind]}")
    carried = sorted({td.data_type.name for td in (*graph.input_descs(), *graph.output_descs())
                      if td.data_type.name in CARRIERS})
    if carried and (not isinstance(runner, Adapted) or runner.adaptation.kind == "rank"):  # else: every value runs
        notes.append(f"{', '.join(carried)} values travel in {', '.join(sorted({CARRIERS[c] for c in carried}))} tensors "
                     "on torch-directml (it has no unsigned 16-, 32- or 64-bit tensors); a value its carrier cannot "
                     "hold is refused at run time (UnsupportedValue)")
    return tuple(notes)


def build(graph, device: str, torch_device):
    """A Runner for ``graph`` on ``torch_device``. On torch-directml, an operator whose tensors it cannot hold as they
    are runs rewritten (torch_directml_adapt: 64-bit data in 32-bit lanes, UINT32 in flipped INT32 order, more than
    6 dimensions merged) where a rewrite applies and torch-directml can run it; other descriptors it cannot run are
    refused."""
    if parse_device(device, "torch")[0] == "dml":
        adaptation = adapt(graph)
        if adaptation is not None and (adaptation.compute is not None or not descriptor_problems(adaptation.graph)):
            import torch

            label = graph.nodes[0].OPERATOR_TYPE
            inner = inner_runner(adaptation, lambda g: Runner(g, device, torch_device), torch, torch_device, label)
            return Adapted(adaptation, inner, graph)
        found = descriptor_problems(graph)
        if found:
            raise DmlOpsError("torch-directml cannot run this safely: " + " ".join(found) + " " + TO_DIRECTML)
    return Runner(graph, device, torch_device)
