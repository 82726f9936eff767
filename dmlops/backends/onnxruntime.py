"""The ONNX Runtime backend: one ONNX model per compiled operator or graph, one InferenceSession.

Devices: ``dml[:N]`` → DmlExecutionProvider (onnxruntime-directml), ``cuda[:N]`` →
CUDAExecutionProvider, ``cpu`` → CPUExecutionProvider. With no device named, the first available of
dml, cuda, cpu. On a GPU provider the CPU fallback for unsupported nodes is disabled
(``session.disable_cpu_ep_fallback``): a node that cannot run there is an error, never a silent move.
The DirectML provider gets the session options its documentation requires: memory pattern off and
sequential execution; and since it must not run concurrently, each session runs one call at a time.
"""
from __future__ import annotations

import contextlib
import threading

import numpy as np

from .. import tensors
from ..errors import DmlOpsError
from ..lower import lower_onnx
from ..types import TensorDesc
from . import evaluate, parse_device
from .onnx_graph import ConstantsTooLarge, OnnxGraph, size_text

PROVIDERS = {"dml": "DmlExecutionProvider", "cuda": "CUDAExecutionProvider", "cpu": "CPUExecutionProvider"}


def available_devices(ort) -> list[str]:
    """Device kinds this onnxruntime build can run on, in preference order."""
    have = set(ort.get_available_providers())
    return [kind for kind in ("dml", "cuda", "cpu") if PROVIDERS[kind] in have]


def choose_device(device, ort=None):
    """(device string, provider name, notes) for ``device`` (None = best available); errors list what is available."""
    if ort is None:
        import onnxruntime as ort
    have = available_devices(ort)
    if device is None:
        kind, index = have[0], 0
    else:
        kind, index = parse_device(device, "onnxruntime")
        if kind not in have:
            hint = {"dml": " DirectML needs the onnxruntime-directml package on Windows.",
                    "cuda": " CUDA needs the onnxruntime-gpu package and an NVIDIA driver."}[kind]
            raise DmlOpsError(f"onnxruntime: device {device!r} ({PROVIDERS[kind]}) is not available; available: "
                              + ", ".join(f"{k} ({PROVIDERS[k]})" for k in have) + "." + hint)
    return f"{kind}:{index}" if kind != "cpu" else "cpu", PROVIDERS[kind], ()


# A model whose largest tensor has at least this many elements gets ONNX Runtime's default intra-op thread count;
# smaller ones run on the calling thread. Measured here (2 cores): GEMM 1024^3 takes 7.0 ms with the default
# threads and 13.8 ms with one; a 4-element model gains nothing from a pool and each pool is threads that stay.
PARALLEL_ELEMENTS = 1 << 16


def largest_tensor(graph) -> int:
    """Elements of the largest tensor of any node of ``graph`` (what session_config sizes threads by)."""
    return max((td.element_count for node in graph.nodes for td in node.tensors().values()
                if isinstance(td, TensorDesc)), default=0)


def session_config(device: str, ort, elements: int = 0):
    """(SessionOptions, providers list) for a device string from ``choose_device``; ``elements`` is the number of
    elements of the model's largest tensor.

    Threads: never spinning. A small model (under PARALLEL_ELEMENTS) runs its nodes on the calling thread (one
    intra-op and one inter-op thread), so thousands of compiled small operators add no threads; a large one gets
    ONNX Runtime's default intra-op pool (the physical cores), as the compile cache bounds how many exist.
    ONNX Runtime's process-wide pools would share threads too, but once they exist every other session in the
    process must use them, which would break the caller's own ONNX Runtime sessions."""
    kind, index = parse_device(device, "onnxruntime")
    options = ort.SessionOptions()
    options.log_severity_level = 3
    if elements < PARALLEL_ELEMENTS:
        options.intra_op_num_threads = 1
    options.inter_op_num_threads = 1
    options.add_session_config_entry("session.intra_op.allow_spinning", "0")
    if kind == "dml":
        options.enable_mem_pattern = False
        options.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
    if kind != "cpu":
        options.add_session_config_entry("session.disable_cpu_ep_fallback", "1")
        return options, [(PROVIDERS[kind], {"device_id": str(index)})]
    return options, [PROVIDERS[kind]]


def stepped_layout(td):
    """``(step, permuted_layout)`` of a strided tensor whose Strides are ``step`` times those of a permuted packed
    layout (every other element, every third, ... possibly transposed and broadcast), or None: such a buffer is
    read by one Slice with steps instead of a gather."""
    strides = td.packed_strides if td.strides is None else td.strides
    used = [st for s, st in zip(td.sizes, strides) if s > 1 and st > 0]
    step = min(used, default=1)
    if step <= 1 or any(st % step for st in used):
        return None
    view = type("Layout", (), {"sizes": td.sizes, "strides": tuple(st // step for st in strides),
                               "packed_strides": td.packed_strides})
    plan = tensors.permuted_layout(view)
    return None if plan is None else (step, plan)


def strided_read(g: OnnxGraph, td, buffer: str) -> str:
    """The logical value of a strided tensor from its 1-D buffer value: Slice (with steps where the Strides are a
    multiple of a packed layout's), Reshape, Transpose and Expand where the Strides allow, else a Gather."""
    plan, step = tensors.permuted_layout(td), 1
    if plan is None:
        stepped = stepped_layout(td)
        if stepped is not None:
            step, plan = stepped
    if plan is None:
        g.check_constant(td.element_count * 8, f"the int64 gather indices of a strided read of Sizes {list(td.sizes)}")
        return g.node("Gather", [buffer, g.const(tensors.gather_indices(td))], axis=0)
    span, packed, perm, kept = plan
    if step == 1:
        v = g.node("Slice", [buffer, g.ints([0]), g.ints([span])])
    else:
        v = g.node("Slice", [buffer, g.ints([0]), g.ints([(span - 1) * step + 1]), g.ints([0]), g.ints([step])])
    v = g.node("Reshape", [v, g.ints(packed)])
    if perm != sorted(perm):
        v = g.node("Transpose", [v], perm=perm)
    v = g.node("Reshape", [v, g.ints(kept)])
    if list(kept) != list(td.sizes):
        v = g.node("Expand", [v, g.ints(td.sizes)])
    return v


def strided_write(g: OnnxGraph, td, value: str) -> str:
    """A zero-filled 1-D buffer holding ``value`` at the offsets its Strides give."""
    total = max(tensors.buffer_elements(td), tensors.needed_elements(td))
    plan = tensors.permuted_layout(td)
    if plan is None:
        # A gather from the values plus one zero: buffer element j takes the logical element written there (the
        # last one, where Strides overlap, as a sequential write would), or the zero. ScatterND would say it more
        # directly, but ONNX Runtime's DirectML provider has no ScatterND-18 kernel.
        g.check_constant(total * 8, f"the int64 gather indices of a strided write of {total} elements")
        source = np.full(total, td.element_count, dtype=np.int64)
        source[tensors.gather_indices(td).reshape(-1)] = np.arange(td.element_count)
        flat = g.node("Reshape", [value, g.ints([-1])])
        padded = g.node("Concat", [flat, g.const(np.zeros(1, dtype=g.dtype(value)))], axis=0)
        return g.node("Gather", [padded, g.const(source)], axis=0)
    span, packed, perm, kept = plan
    dims = [i for i, (s, st) in enumerate(zip(td.sizes, td.strides)) if s > 1 and st > 0]
    v = g.node("Reshape", [value, g.ints([td.sizes[i] for i in dims] or [1])])
    if perm != sorted(perm):
        v = g.node("Transpose", [v], perm=[int(i) for i in np.argsort(perm)])
    v = g.node("Reshape", [v, g.ints([-1])])
    if total > span:  # zeros after the last element: Concat has a kernel for every type (Pad has none for INT16/UINT16)
        v = g.node("Concat", [v, g.const(np.zeros(total - span, dtype=g.dtype(v)))], axis=0)
    return v


def reinterpret(g: OnnxGraph, frm, to, value: str) -> str:
    """A consumer's read (TensorDesc ``to``) of the buffer a producer (``frm``) wrote: see tensors.reinterpret."""
    if not tensors.is_strided(frm) and not tensors.is_strided(to) and frm.element_count == to.element_count:
        return g.node("Reshape", [value, g.ints(to.sizes)])
    if tensors.is_strided(frm):
        buffer = strided_write(g, frm, value)
        size = max(tensors.buffer_elements(frm), tensors.needed_elements(frm))
    else:
        buffer, size = g.node("Reshape", [value, g.ints([-1])]), frm.element_count
    if size < tensors.needed_elements(to):
        buffer = g.node("Concat", [buffer, g.const(np.zeros(tensors.needed_elements(to) - size, g.dtype(buffer)))],
                        axis=0)  # as strided_write: Pad has no INT16/UINT16 kernel on ONNX Runtime's CPU
    if tensors.is_strided(to):
        return strided_read(g, to, buffer)
    return g.node("Reshape", [g.node("Slice", [buffer, g.ints([0]), g.ints([to.element_count])]), g.ints(to.sizes)])


def onnx_output_names(graph) -> list[str]:
    """Graph output names as ONNX names: an output named like an input (a parameter in, the updated parameter
    out) gets a ``:out`` suffix, since ONNX values are assigned once."""
    return [f"{n}:out" if n in graph.input_names else n for n in graph.output_names]


def _label(graph) -> str:
    return graph.nodes[0].OPERATOR_TYPE if len(graph.nodes) == 1 else f"GRAPH ({len(graph.nodes)} nodes)"


# Protobuf refuses to serialize a message of 2 GiB or more (EncodeError); a model is checked against this first.
MAX_MODEL_BYTES = (1 << 31) - 1


def build_model(graph, upcast_float16: bool, provider: str | None = None):
    """The ONNX model of ``graph``: inputs and outputs by graph name, strided ones as 1-D buffers (``provider``:
    OnnxGraph.provider; by default "cpu" when upcasting FLOAT16, else "dml"). A DmlOpsError
    naming the operator and the sizes refuses a model that would hold more than onnx_graph.MAX_CONSTANT_BYTES of
    constants (raised before the constant that crosses the bound is copied into the model, or, for the index tables
    of strided reads and writes, computed) or that serializes to 2 GiB or more."""
    try:
        model = _build_model(graph, upcast_float16, provider or ("cpu" if upcast_float16 else "dml"))
    except ConstantsTooLarge as e:
        raise DmlOpsError(f"{_label(graph)}: onnxruntime: {e}") from None
    size = model.ByteSize()
    if size > MAX_MODEL_BYTES:
        raise DmlOpsError(f"{_label(graph)}: onnxruntime: its ONNX model is {size_text(size)}; protobuf cannot write a "
                          f"model of 2 GiB or more.")
    return model


def _build_model(graph, upcast_float16: bool, provider: str):
    g = OnnxGraph(upcast_float16, provider)
    values = []
    for name, td in zip(graph.input_names, graph.input_descs()):
        dtype = td.data_type.numpy_dtype
        if tensors.is_strided(td):
            v = strided_read(g, td, g.input(name, dtype, [f"{name}_elements"]))
        else:
            v = g.input(name, dtype, td.sizes)
        values.append(g.cast(v, g.compute_dtype(td.data_type)))

    def settle(value, td):
        return g.cast(g.cast(value, td.data_type.numpy_dtype), g.compute_dtype(td.data_type))

    outs = evaluate(graph, values, lambda desc, x: lower_onnx(desc, g, x), settle,
                    lambda v, frm, to: reinterpret(g, frm, to, v))
    for name, td, v in zip(onnx_output_names(graph), graph.output_descs(), outs):
        v = g.cast(v, td.data_type.numpy_dtype)
        if tensors.is_strided(td):
            g.output(strided_write(g, td, v), name, [max(tensors.buffer_elements(td), tensors.needed_elements(td))])
        else:
            g.output(v, name, td.sizes)
    return g.model()


def dml_node_problems(graph, model) -> list[str]:
    """The nodes of ``model`` (built for ``graph``) that ONNX Runtime's DirectML provider has no kernel for. FLOAT64
    nodes pass only when the graph itself has FLOAT64 tensors (a device without FLOAT64 then refuses the
    descriptor itself)."""
    from ..graph import slots
    from . import ort_dml_kernels

    float64 = any(td is not None and td.data_type.name == "FLOAT64"
                  for node in graph.nodes for kind in ("input", "output") for _, td in slots(node, kind))
    return ort_dml_kernels.problems(model, float64=float64)


def refuse_unsupported_nodes(graph, model) -> None:
    """Raise if a node of ``model`` has no kernel in the DirectML provider (its CPU fallback is off, so session
    creation would fail with ORT's own, less specific error)."""
    found = dml_node_problems(graph, model)
    if found:
        raise DmlOpsError(f"{_label(graph)}: its ONNX model has {len(found)} node(s) that ONNX Runtime's DirectML provider "
                          f"cannot run (CPU fallback is off): " + " ".join(found[:5])
                          + (f" ... and {len(found) - 5} more." if len(found) > 5 else ""))


# Operators whose output ONNX Runtime always writes to memory of its own: kernels that compute (none of them aliases
# an input, as Reshape, Squeeze, Unsqueeze, Flatten, Identity and Dropout may) and that no graph optimization turns
# into a pass-through of an input (as NoopElimination does with Add / Sub / Mul / Div of a neutral constant, or the
# eliminations of Cast, Expand, Slice, Transpose, Concat, Pad with nothing to do). A graph output produced by any other
# node may be a graph input's memory handed back, and is checked at run time (Runner.fresh).
FRESH_OUTPUT_OPS = frozenset({"Where", "Greater", "Less", "GreaterOrEqual", "LessOrEqual", "Equal", "And", "Or", "Xor",
                              "Not", "IsNaN", "IsInf", "MatMul", "Gemm", "Conv", "ConvTranspose", "Exp", "Log", "Sqrt",
                              "Tanh", "Sigmoid", "Erf", "Sin", "Cos"})


def outputs_may_alias(model) -> list[bool]:
    """Per graph output of ``model``: whether a path from a graph input reaches it through nodes not in
    FRESH_OUTPUT_OPS only (so that ONNX Runtime might hand back an input's memory)."""
    producer = {out: node for node in model.graph.node for out in node.output}
    inputs = {i.name for i in model.graph.input}
    memo: dict[str, bool] = {}

    def reaches_input(value: str) -> bool:
        stack, seen = [value], set()
        while stack:  # iterative: a recurrent graph is thousands of nodes deep
            v = stack.pop()
            if v in memo:
                if memo[v]:
                    return True
                continue
            if v in seen:
                continue
            seen.add(v)
            if v in inputs:
                return True
            node = producer.get(v)
            if node is not None and node.op_type not in FRESH_OUTPUT_OPS:
                stack.extend(i for i in node.input if i)
        for v in seen:
            memo[v] = False
        return False

    return [reaches_input(o.name) for o in model.graph.output]


class Runner:
    """An InferenceSession with its names; one ``run`` at a time."""

    def __init__(self, graph, device: str, ort=None):
        if ort is None:
            import onnxruntime

            ort = onnxruntime
        self.ort = ort
        self.device = device
        self.kind, self.device_id = parse_device(device, "onnxruntime")
        self.upcast_float16 = self.kind == "cpu"
        self.model = build_model(graph, self.upcast_float16, self.kind)
        if self.kind == "dml":
            refuse_unsupported_nodes(graph, self.model)
        options, providers = session_config(device, ort, largest_tensor(graph))
        try:
            self.session = ort.InferenceSession(self.model.SerializeToString(), options, providers=providers)
        except Exception as e:  # onnxruntime raises its own exception types
            raise DmlOpsError(f"onnxruntime: could not create a session on {device} ({PROVIDERS[self.kind]}): "
                              f"{e}") from e
        if PROVIDERS[self.kind] not in self.session.get_providers():
            raise DmlOpsError(f"onnxruntime: the session did not take {PROVIDERS[self.kind]} "
                              f"(it has {self.session.get_providers()}).")
        self.input_names = list(graph.input_names)
        self.output_names = onnx_output_names(graph)
        # The DirectML provider must not run concurrently: one run at a time per session. Other
        # providers' sessions are thread-safe and need no lock.
        self.lock = threading.Lock() if self.kind == "dml" else contextlib.nullcontext()
        self._serial = self.kind == "dml"
        self.may_alias = outputs_may_alias(self.model)
        self._any_alias = any(self.may_alias)
        # InferenceSession.run re-validates the feed's names on every call, which dmlops has already done;
        # the binding it wraps costs ~1.2 us less per call (benchmarks/). Public run() where that is missing.
        self._run = getattr(self.session, "_sess", self.session).run

    def __call__(self, feed) -> list:
        """Run with a feed (dict by input name, or a list in input order); return the outputs in order."""
        if not isinstance(feed, dict):
            feed = dict(zip(self.input_names, feed))
        if not self._serial:
            return self._run(self.output_names, feed, None)
        with self.lock:
            return self._run(self.output_names, feed, None)

    def fresh(self, outs: list, inputs) -> list:
        """The outputs, each copied where it may share memory with an input array (``outputs_may_alias``: an
        Identity or Reshape of an input, or a node a graph optimization removed): writing an output never changes
        the caller's input. Outputs no input reaches through such nodes are not looked at."""
        if not self._any_alias:
            return outs
        arrays = [v for v in inputs if isinstance(v, np.ndarray)]
        return [v.copy() if alias and isinstance(v, np.ndarray) and any(np.may_share_memory(v, a) for a in arrays)
                else v for v, alias in zip(outs, self.may_alias)]

    def run_bound(self, inputs: list) -> list:
        """IOBinding: inputs are NumPy arrays or OrtValues; outputs stay on the session's device as OrtValues."""
        binding = self.session.io_binding()
        for name, value in zip(self.input_names, inputs):
            if isinstance(value, self.ort.OrtValue):
                binding.bind_ortvalue_input(name, value)
            else:
                binding.bind_cpu_input(name, value)
        for name in self.output_names:
            binding.bind_output(name, self.kind, self.device_id)
        with self.lock:
            self.session.run_with_iobinding(binding)
        return binding.get_outputs()


def build(graph, device):
    """A Runner for ``graph`` on ``device`` (a string from ``choose_device``)."""
    return Runner(graph, device)
