"""``dmlops.compile`` / ``dmlops.run``: validate once, lower once, run many times.

With no backend named, a descriptor runs on the native DirectML backend wherever a DirectML device exists
(``default_backend``: its semantics are DirectML's own, since the descriptor is handed to DirectML unchanged),
and on ONNX Runtime everywhere else.

Compiling an equal descriptor or graph again (same backend, device and feature level) returns the
cached CompiledOperator, so its ONNX Runtime session, torch function or DirectML program is reused. The cache is
bounded by count and by memory: it keeps the ``cache_size()`` most recently used compiled operators (256 unless
``set_cache_size`` says otherwise) whose device memory together stays within ``cache_budget()`` bytes (1 GiB
unless ``set_cache_budget`` says otherwise; counted for the directml backend, whose compiled operators know what
they hold: ``CompiledOperator.device_bytes``), and forgets the least recently used ones beyond either bound. A
forgotten operator that the caller still holds keeps working (and keeps its memory), and compiling it again builds
it anew; one nobody holds gives its memory back at once.
"""
from __future__ import annotations

import threading
from collections import OrderedDict
from typing import Mapping

import numpy as np

from . import tensors
from .backends import BACKENDS
from .base import OperatorDesc, nested_operators
from .errors import DmlOpsError
from .graph import GraphDesc
from .types import FeatureLevel

DEFAULT_CACHE_SIZE = 256
# The native backend's compiled operators hold device memory (their buffers, DirectML's persistent and temporary
# resources); the cache keeps at most this much of it alive. 1 GiB: a quarter of a 4 GiB GPU, the smallest that
# DirectML machines commonly have, and far above what 256 typical operators hold (a few MiB).
DEFAULT_CACHE_BUDGET = 1 << 30
_CACHE: OrderedDict = OrderedDict()  # key -> CompiledOperator, least recently used first
_CACHE_LOCK = threading.Lock()
_CACHE_SIZE = [DEFAULT_CACHE_SIZE]
_CACHE_BUDGET = [DEFAULT_CACHE_BUDGET]
_CACHE_BYTES: dict = {}  # key -> device bytes of its CompiledOperator when cached (directml only)


class Outputs(dict):
    """A compiled operator's results: a dict keyed by DML name; single-operator results also by Python field name
    as attributes (``out.output_gradient_tensor`` is ``out["OutputGradientTensor"]``)."""

    _aliases: Mapping[str, str] = {}  # set per compiled operator on a subclass (keeps construction at C speed)

    def __getattr__(self, name: str):
        key = type(self)._aliases.get(name, name)
        if key in self:
            return self[key]
        raise AttributeError(f"no output {name!r} (outputs: {', '.join(self)})")


class CompiledOperator:
    """A validated, lowered operator or graph, bound to a backend and a device.

    ``backend``, ``device`` (``cpu``, ``cuda:0``, ``dml:0``) and ``provider`` (the ONNX Runtime
    execution provider, the torch device, or ``numpy``) say where it runs; ``notes`` say how (for
    example that FLOAT16 is computed in float32 on a CPU). Call it with inputs by Python field name
    (``op(input_tensor=x)``) or a dict keyed by DML name (``op({"InputTensor": x})``); graphs take
    their input names. It returns an ``Outputs`` dict.
    """

    def __init__(self, target, graph: GraphDesc, backend: str, device: str, provider, level: FeatureLevel,
                 runner, notes: tuple[str, ...]):
        self.target = target
        self.graph = graph
        self.backend = backend
        self.device = device
        self.provider = provider
        self.feature_level = level
        self.notes = notes
        self._runner = runner
        self.input_names = tuple(graph.input_names)
        self.output_names = tuple(graph.output_names)
        self._in_descs = graph.input_descs()
        self._out_descs = graph.output_descs()
        fields = target.FIELD_NAMES if isinstance(target, OperatorDesc) else {}
        self._in_aliases = {py: dml for py, dml in fields.items() if dml in self.input_names}
        self._out_aliases = {py: dml for py, dml in fields.items() if dml in self.output_names}
        self._label = target.OPERATOR_TYPE if isinstance(target, OperatorDesc) else "GRAPH"
        # The per-call fast path: packed NumPy inputs of exactly the declared dtype and shape, packed outputs (on
        # torch also torch tensors: Runner.fast). Everything else takes the checked path below, which also produces
        # the error messages.
        self._outputs = type("Outputs", (Outputs,), {"_aliases": self._out_aliases, "__slots__": ()})
        packed = not any(tensors.is_strided(td) or td.data_type.four_bit_range is not None
                         for td in self._in_descs + self._out_descs)
        py = {dml: p for p, dml in self._in_aliases.items()}
        fast = [(n, py.get(n, n), td.data_type.numpy_dtype, tuple(td.sizes))
                for n, td in zip(self.input_names, self._in_descs)] if packed else None
        self._fast_keys = (tuple(f[0] for f in fast), tuple(f[1] for f in fast)) if fast else ((), ())
        # torch: the runner's own fast path (torch tensors or NumPy arrays in; Runner.fast_path).
        self._fast_torch = runner.fast_path(self._outputs, self._fast_keys) \
            if fast is not None and backend == "torch" else None
        self._fast = fast if backend != "torch" else None
        # ONNX Runtime's runner knows which outputs cannot be an input's memory (onnxruntime.outputs_may_alias).
        self._fresh = runner.fresh if backend == "onnxruntime" else _fresh

    def __repr__(self) -> str:
        return (f"<CompiledOperator {self._label} backend={self.backend} device={self.device} "
                f"provider={self.provider} level={self.feature_level.short}>")

    @property
    def device_bytes(self) -> int | None:
        """Bytes of device memory this compiled operator holds on its own (directml backend: its input/output buffer,
        DirectML's persistent and temporary resources and its descriptors; ``notes`` itemizes them); None on the
        other backends, whose memory dmlops cannot see."""
        return self._runner.device_bytes if self.backend == "directml" else None

    def release(self) -> None:
        """Forget this operator in the compile cache and, on the directml backend, give its device memory back now
        (without it, that happens once nobody holds the operator); a directml operator then refuses to run."""
        with _CACHE_LOCK:
            for key in [k for k, v in _CACHE.items() if v is self]:
                del _CACHE[key]
                _CACHE_BYTES.pop(key, None)
        if self.backend == "directml":
            self._runner.release()

    @property
    def model(self):
        """The ONNX ModelProto (onnxruntime backend only)."""
        if self.backend != "onnxruntime":
            raise DmlOpsError(f"{self._label}: only the onnxruntime backend has an ONNX model; this one is {self.backend}.")
        return self._runner.model

    def _gather(self, inputs, kwargs) -> list:
        if inputs is not None and not isinstance(inputs, Mapping):
            raise DmlOpsError(f"{self._label}: pass inputs as keyword arguments or one dict keyed by DML name; "
                              f"got {type(inputs).__name__}.")
        given = dict(inputs or {})
        for key, value in kwargs.items():
            name = self._in_aliases.get(key, key)
            if name in given:
                raise DmlOpsError(f"{self._label}: input {name} is given twice.")
            given[name] = value
        unknown = [k for k in given if k not in self.input_names]
        if unknown:
            raise DmlOpsError(f"{self._label}: unknown input(s) {', '.join(map(repr, unknown))}; "
                              f"expected {self._input_list()}.")
        missing = [n for n in self.input_names if n not in given]
        if missing:
            raise DmlOpsError(f"{self._label}: missing input(s) {', '.join(missing)}; expected {self._input_list()}.")
        return [given[n] for n in self.input_names]

    def _input_list(self) -> str:
        py = {dml: p for p, dml in self._in_aliases.items()}
        return ", ".join(f"{py[n]} ({n})" if n in py else n for n in self.input_names)

    def _path(self, name: str) -> str:
        return f"{self._label}.{name}"

    def __call__(self, inputs=None, /, *, outputs_on_device: bool = False, **kwargs) -> Outputs:
        """Run once and return the outputs as NumPy arrays.

        ``outputs_on_device=True`` keeps them on the device: OrtValues (onnxruntime, through IOBinding) or
        ``DeviceBuffer``s (directml), either of which a later call on the same backend and device takes as an
        input without a copy through the CPU."""
        if self._fast_torch is not None and not outputs_on_device:
            result = self._fast_torch(inputs, kwargs)
            if result is not None:
                return result  # else the checked path below, which says what is wrong
        elif self._fast is not None and not outputs_on_device and (inputs is None or not kwargs):
            given = kwargs if inputs is None else inputs
            if type(given) is dict and len(given) == len(self._fast):
                feed = {}
                for name, alias, dtype, shape in self._fast:
                    v = given.get(alias) if inputs is None else given.get(name)
                    if type(v) is not np.ndarray or v.dtype != dtype or v.shape != shape or not v.flags.c_contiguous:
                        break
                    feed[name] = v
                else:
                    result = self._outputs()  # item by item: faster than from a zip
                    for name, v in zip(self.output_names, self._fresh(self._runner(feed), feed.values())):
                        result[name] = v
                    return result
        values = self._gather(inputs, kwargs)
        if self.backend == "torch":
            if outputs_on_device:
                raise DmlOpsError(f"{self._label}: outputs_on_device is for the onnxruntime backend; torch results stay "
                                  "on the device of torch tensor inputs already.")
            return self._call_torch(values)
        if outputs_on_device and self.backend not in ("onnxruntime", "directml"):
            raise DmlOpsError(f"{self._label}: outputs_on_device needs the onnxruntime or directml backend; this one is "
                              f"{self.backend}.")
        args: list = []  # in input order (the fast path above feeds a dict)
        for name, td, value in zip(self.input_names, self._in_descs, values):
            if outputs_on_device and type(value).__name__ == "OrtValue":
                args.append(self._check_ortvalue(name, td, value))
            elif self.backend == "directml" and type(value).__name__ == "DeviceBuffer":
                args.append(value)  # checked by the runner against its device and this input
            else:
                args.append(tensors.numpy_input(td, value, self._path(name)))
        if outputs_on_device:
            return self._outputs(zip(self.output_names, self._runner.run_bound(args)))
        outs = self._fresh(self._runner(args), args)
        return self._outputs((n, tensors.numpy_output(td, v)) for n, td, v in zip(self.output_names, self._out_descs, outs))

    def _check_ortvalue(self, name, td, value):
        expected = "tensor(" + {"float32": "float", "float64": "double"}.get(td.data_type.numpy_dtype.name,
                                                                            td.data_type.numpy_dtype.name) + ")"
        shape = tuple(value.shape())
        wanted = (tuple(td.sizes),) if not tensors.is_strided(td) else ()
        if value.data_type() != expected or (wanted and shape not in wanted) or (not wanted and len(shape) != 1):
            form = f"shape {list(td.sizes)}" if wanted else "a 1-D buffer"
            raise DmlOpsError(f"{self._path(name)}: expected an OrtValue of {expected} with {form}; got "
                              f"{value.data_type()} with shape {list(shape)}.")
        return value

    def _call_torch(self, values) -> Outputs:
        torch = self._runner.torch
        as_torch = any(isinstance(v, torch.Tensor) for v in values)
        feed = [self._runner.to_device(self._path(n), td, v) for n, td, v in zip(self.input_names, self._in_descs, values)]
        outs = self._runner.fresh(self._runner(feed), feed)
        if as_torch:
            result = [self._runner.torch_output(self._path(n), td, v)
                      for n, td, v in zip(self.output_names, self._out_descs, outs)]
        else:
            result = [self._runner.to_numpy(self._path(n), td, v)
                      for n, td, v in zip(self.output_names, self._out_descs, outs)]
        return self._outputs(zip(self.output_names, result))


def _fresh(outs, inputs) -> list:
    """The outputs, each copied where it may share memory with an input (an identity or same-type CAST can hand its
    input back): writing an output never changes the caller's input."""
    arrays = [v for v in inputs if isinstance(v, np.ndarray)]
    return [v.copy() if isinstance(v, np.ndarray) and any(np.may_share_memory(v, a) for a in arrays) else v
            for v in outs]


def _graph_of(target) -> GraphDesc:
    if isinstance(target, OperatorDesc):
        return GraphDesc.single(target)
    if isinstance(target, GraphDesc):
        return target
    raise DmlOpsError(f"compile: expected an operator descriptor or a GraphDesc; got {type(target).__name__}.")


def default_backend(device: str | None = None) -> str:
    """The backend ``compile`` and ``run`` use when none is named: "directml" when ``device`` is None or a ``dml``
    device and a DirectML device exists here for it (``dmlops.devices()``: Windows, WSL), since only the native
    backend hands descriptors to DirectML unchanged; else "onnxruntime" (every machine without DirectML, and the
    CPU and CUDA devices)."""
    if device is not None and not (isinstance(device, str) and device.strip().lower().split(":")[0] == "dml"):
        return "onnxruntime"
    return "directml" if _native_device(device) is not None else "onnxruntime"


def resolve_backend(backend: str | None, device: str | None) -> tuple[str, str | None]:
    """(backend, device) as ``compile`` resolves them: a named backend as it is; None the ``default_backend`` for
    ``device``, and with the native backend and no device the first DirectML device (``dml:N``)."""
    if backend is None:
        backend = default_backend(device)
        if backend == "directml" and device is None:
            device = _native_device(None)
    return backend, device


def _native_device(device: str | None) -> str | None:
    """``dml:N`` when ``device`` (None: the first) is a DirectML adapter with a DirectML device here, else None."""
    from .backends.directml import adapters

    found = [a for a in adapters.devices() if a.feature_level is not None]
    if device is None:
        return found[0].device if found else None
    index = device.strip().lower().partition(":")[2]
    if index and not index.isdigit():
        return None  # the chosen backend reports the malformed name
    return next((a.device for a in found if a.index == int(index or 0)), None)


def compile(target, backend: str | None = None, device: str | None = None, feature_level=None, *,
            debug: bool = False, execution_flags=None) -> CompiledOperator:
    """Validate ``target`` (an operator descriptor or a GraphDesc) at ``feature_level`` and make it runnable on
    ``backend``:

    - None (the default): "directml" where a DirectML device exists (on ``device``, or the first: dml:0), else
      "onnxruntime" (``default_backend``);
    - "onnxruntime", "torch", "reference": lowered (ONNX graph, aten ops, NumPy), on ``device`` (None: the best
      available; "cpu", "cuda[:N]", "dml[:N]"); the level defaults to the newest;
    - "directml": handed to DirectML unchanged on ``device`` "dml:N" (None: dml:0); the level defaults to that
      device's highest, tensors of a data type the device lacks are refused, and ``debug=True`` turns DirectML's
      debug layer on where it is installed.

    ``execution_flags`` (DML_EXECUTION_FLAGS: an ExecutionFlags, an int, a name or a list of names; None is NONE)
    go to DirectML's CompileOperator / CompileGraph on the native backend. The lowering backends accept
    ALLOW_HALF_PRECISION_COMPUTATION (a permission: they compute at the tensors' own precision, as DirectML may)
    and DISABLE_META_COMMANDS (they have no metacommands), each said in ``notes``, and refuse DESCRIPTORS_VOLATILE,
    which says how DirectML reads binding tables, which they do not have.

    Returns a CompiledOperator; equal targets (with equal options) share one."""
    backend, device = resolve_backend(backend, device)
    if backend not in BACKENDS:
        raise DmlOpsError(f"compile: unknown backend {backend!r}; choose one of {', '.join(BACKENDS)}.")
    if debug and backend != "directml":
        raise DmlOpsError(f"compile: debug=True is for the directml backend (DirectML's debug layer); this one is {backend}.")
    flags = _execution_flags(execution_flags, backend)
    adapter = None
    if backend == "directml":
        from .backends import directml

        index, adapter = directml.choose_device(device)
        device = adapter.device
        level = directml.level_for(adapter, feature_level)
    else:
        level = FeatureLevel.latest() if feature_level is None else FeatureLevel.parse(feature_level)
    key = (target, backend, device, level, debug, flags)
    try:
        with _CACHE_LOCK:
            cached = _CACHE.get(key)
            if cached is not None:
                _CACHE.move_to_end(key)
    except TypeError:  # unhashable target: not a descriptor, reported below
        cached = None
    if cached is not None:
        return cached
    graph = _graph_of(target)
    if isinstance(target, OperatorDesc):
        target.validate(level)
    else:
        graph.validate(level)
    label = target.OPERATOR_TYPE if isinstance(target, OperatorDesc) else "GRAPH"
    if adapter is not None:
        problems = directml.data_type_problems(graph, adapter)
        if problems:
            raise DmlOpsError("\n".join(problems))
    else:
        from .lower import op_module

        for node in graph.nodes:
            op_module(node, backend)
            for act in nested_operators(node):
                op_module(act, backend)
    for name, td in zip(graph.output_names, graph.output_descs()):
        problem = tensors.output_problem(td)
        if problem:
            raise DmlOpsError(f"{label}.{name}: {problem}")
    compiled = _build(target, graph, backend, device, level, debug, flags)
    with _CACHE_LOCK:
        cached = _CACHE.setdefault(key, compiled)
        if cached is compiled and compiled.device_bytes:
            _CACHE_BYTES[key] = compiled.device_bytes
        _CACHE.move_to_end(key)
        evicted = _evict()
    del evicted  # released outside the lock: a directml operator gives its memory back as it goes
    return cached


def _evict() -> list:
    """Drop least recently used entries beyond the cache size or budget (the caller holds _CACHE_LOCK); returns
    them, for the caller to let go of after releasing the lock."""
    evicted = []
    budget = _CACHE_BUDGET[0]
    while _CACHE and (len(_CACHE) > _CACHE_SIZE[0] or sum(_CACHE_BYTES.values()) > budget):
        key, value = _CACHE.popitem(last=False)
        _CACHE_BYTES.pop(key, None)
        evicted.append(value)
    return evicted


def _execution_flags(value, backend: str):
    """``value`` as DML_EXECUTION_FLAGS (dmlops.enums.ExecutionFlags), checked for ``backend``."""
    from .enums import ExecutionFlags

    flags = ExecutionFlags.NONE if value is None else ExecutionFlags.parse(value, "compile.execution_flags")
    if backend != "directml" and ExecutionFlags.DESCRIPTORS_VOLATILE in flags:
        raise DmlOpsError(f"compile: execution_flags DESCRIPTORS_VOLATILE is for the directml backend (it lets "
                          f"DirectML read a binding table's descriptors when the list executes); the {backend} "
                          "backend has no binding tables.")
    return flags


def _flag_notes(flags, backend: str) -> tuple[str, ...]:
    """What ``op.notes`` says about the execution flags on ``backend``."""
    from .enums import ExecutionFlags

    if not flags:
        return ()
    if backend == "directml":
        names = "|".join("DML_EXECUTION_FLAG_" + n for n in flags.names())
        notes = [f"compiled with {names} (CompileOperator / CompileGraph)"]
        if ExecutionFlags.ALLOW_HALF_PRECISION_COMPUTATION in flags:
            notes.append("DirectML may compute FLOAT32 tensors in half precision (ALLOW_HALF_PRECISION_COMPUTATION)")
        return tuple(notes)
    notes = []
    if ExecutionFlags.ALLOW_HALF_PRECISION_COMPUTATION in flags:
        notes.append(f"execution_flags ALLOW_HALF_PRECISION_COMPUTATION accepted: it allows DirectML to compute in "
                     f"half precision; the {backend} backend computes at the tensors' own precision")
    if ExecutionFlags.DISABLE_META_COMMANDS in flags:
        notes.append(f"execution_flags DISABLE_META_COMMANDS accepted: it keeps DirectML from using driver "
                     f"metacommands; the {backend} backend has none")
    return tuple(notes)


def _build(target, graph, backend, device, level, debug=False, flags=0) -> CompiledOperator:
    made = _build_backend(target, graph, backend, device, level, debug, flags)
    extra = _flag_notes(flags, backend)
    if extra:
        made.notes = tuple(made.notes) + extra
    return made


def _build_backend(target, graph, backend, device, level, debug=False, flags=0) -> CompiledOperator:
    if backend == "directml":
        from .backends import directml
        from .backends.directml import adapters

        a = adapters.adapter(device)
        program, notes = directml.build(target, graph, a.index, level, debug, int(flags))
        return CompiledOperator(target, graph, backend, device, f"DirectML ({a.name})", level, program, notes)
    if backend == "reference":
        from .backends import reference

        name, provider, notes = reference.choose_device(device)
        return CompiledOperator(target, graph, backend, name, provider, level, reference.build(graph, name), notes)
    float16 = any(td.data_type.name == "FLOAT16" for node in graph.nodes for f, td in _tensor_slots(node))
    if backend == "onnxruntime":
        from .backends import onnxruntime as ort_backend

        name, provider, _ = ort_backend.choose_device(device)
        runner = ort_backend.build(graph, name)
        notes = (_lowered("ONNX"),) + (("FLOAT16 computed in float32 on the CPU provider (it lacks float16 kernels); "
                                         "outputs rounded to FLOAT16",) if float16 and runner.upcast_float16 else ())
        return CompiledOperator(target, graph, backend, name, provider, level, runner, notes)
    from .backends import torch as torch_backend

    name, torch_device, _ = torch_backend.choose_device(device)
    runner = torch_backend.build(graph, name, torch_device)
    notes = (_lowered("torch"),) + torch_backend.directml_notes(graph, runner, name) + (
        ("FLOAT16 computed in float32 on the CPU; outputs rounded to FLOAT16",)
        if float16 and getattr(runner, "upcast_float16", False) else ())
    return CompiledOperator(target, graph, backend, name, str(torch_device), level, runner, notes)


def _lowered(ops: str) -> str:
    """``op.notes``' first line on a lowering backend: whose semantics these are."""
    return (f"semantics are dmlops's lowering of DirectML's: {ops} ops following the rules of dmlops's reference, "
            "which is checked against DirectML's recorded answers; backend=\"directml\" hands the descriptor to "
            "DirectML itself")


def _tensor_slots(desc):
    from .graph import slots

    return [(n, td) for kind in ("input", "output") for n, td in slots(desc, kind) if td is not None]


def run(target, inputs=None, /, *, backend: str | None = None, device: str | None = None, feature_level=None,
        debug: bool = False, execution_flags=None, **kwargs) -> Outputs:
    """Compile (or reuse) ``target`` and run it once: ``dmlops.run(desc, input_tensor=x, backend="torch")``
    (no backend: ``default_backend``; the options as ``compile``'s)."""
    return compile(target, backend, device, feature_level, debug=debug, execution_flags=execution_flags)(inputs, **kwargs)


def clear_cache() -> None:
    """Forget every compiled operator (their sessions are released when no longer referenced)."""
    with _CACHE_LOCK:
        dropped = list(_CACHE.values())
        _CACHE.clear()
        _CACHE_BYTES.clear()
    del dropped


def cache_size() -> int:
    """How many compiled operators the cache keeps (``DEFAULT_CACHE_SIZE`` = 256 unless set)."""
    return _CACHE_SIZE[0]


def set_cache_size(size: int) -> None:
    """Keep at most ``size`` compiled operators (0 turns caching off); entries beyond it are forgotten at once,
    least recently used first."""
    if isinstance(size, bool) or not isinstance(size, int) or size < 0:
        raise DmlOpsError(f"set_cache_size: expected a whole number >= 0; got {size!r}.")
    with _CACHE_LOCK:
        _CACHE_SIZE[0] = size
        evicted = _evict()
    del evicted


def cache_budget() -> int:
    """How many bytes of device memory the cached compiled operators may hold together (``DEFAULT_CACHE_BUDGET``
    = 1 GiB unless set; counted for the directml backend)."""
    return _CACHE_BUDGET[0]


def set_cache_budget(nbytes: int) -> None:
    """Keep cached compiled operators holding at most ``nbytes`` of device memory together; entries beyond it are
    forgotten at once, least recently used first (one bigger than the whole budget is not kept at all)."""
    if isinstance(nbytes, bool) or not isinstance(nbytes, int) or nbytes < 0:
        raise DmlOpsError(f"set_cache_budget: expected a whole number of bytes >= 0; got {nbytes!r}.")
    with _CACHE_LOCK:
        _CACHE_BUDGET[0] = nbytes
        evicted = _evict()
    del evicted


def cached_count() -> int:
    """How many compiled operators the cache holds now."""
    with _CACHE_LOCK:
        return len(_CACHE)


def cached_bytes() -> int:
    """Bytes of device memory the cached compiled operators hold together (directml backend)."""
    with _CACHE_LOCK:
        return sum(_CACHE_BYTES.values())


__all__ = ["compile", "run", "default_backend", "resolve_backend", "clear_cache", "cache_size", "set_cache_size", "cache_budget",
           "set_cache_budget", "cached_count", "cached_bytes", "CompiledOperator", "Outputs", "DEFAULT_CACHE_SIZE",
           "DEFAULT_CACHE_BUDGET"]
