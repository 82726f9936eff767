"""The native DirectML backend: pure ctypes over DirectML, D3D12 and DXGI / DXCore, loaded on first use.

``dmlops.compile(desc, backend="directml", device="dml:0")`` hands the descriptor (or GraphDesc) to DirectML
unchanged: every operator type runs, up to the device's feature level. Modules: ``libraries`` (finding and loading
the shared libraries), ``com`` (vtable calls), ``structs`` (generated C structs), ``marshal`` (descriptors → structs),
``adapters`` (devices and what they support), ``runtime`` (compiling, binding and running).
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from ...errors import DmlOpsError
from ...types import FeatureLevel

if TYPE_CHECKING:  # loaded on first use at run time (ctypes, the libraries)
    from .adapters import Adapter


def choose_device(device) -> tuple[int, Adapter]:
    """(adapter index, Adapter) for ``device`` (None: ``dml:0``); DmlOpsError when it does not exist here or no
    DirectML device could be made on it (the message lists what exists, or where dmlops looked for DirectML)."""
    from . import adapters
    from .. import parse_device

    if device is None:
        index = 0
    else:
        kind, index = parse_device(device, "directml")
        if kind != "dml":
            raise DmlOpsError(f"directml: runs on DirectML devices only (dml:N); got device {device!r}. "
                              "Use the onnxruntime or torch backend for the CPU or CUDA.")
    a = adapters.adapter(index)
    if a.feature_level is None:
        raise DmlOpsError(f"{a.device} ({a.name}): no DirectML device could be created: {a.problem}")
    return index, a


def level_for(adapter, feature_level) -> FeatureLevel:
    """The feature level to validate at on ``adapter``: its highest unless one is given, which must not exceed it."""
    if feature_level is None:
        return adapter.feature_level
    level = FeatureLevel.parse(feature_level)
    if level > adapter.feature_level:
        raise DmlOpsError(f"compile: {level.dml_name} was asked for, but {adapter.device} ({adapter.name}) supports "
                          f"up to {adapter.feature_level.dml_name}.")
    return level


def data_type_problems(graph, adapter) -> list[str]:
    """Every tensor whose data type ``adapter`` lacks (DML_FEATURE_TENSOR_DATA_TYPE_SUPPORT), as messages."""
    from ...core import nested_operators
    from ...graph import slots

    problems = []
    label = (lambda k, d: d.OPERATOR_TYPE) if len(graph.nodes) == 1 else (lambda k, d: f"GRAPH node {k} ({d.OPERATOR_TYPE})")
    for k, node in enumerate(graph.nodes):
        for desc in [node] + nested_operators(node):
            for kind in ("input", "output"):
                for name, td in slots(desc, kind):
                    if td is not None and not adapter.supports(td.data_type):
                        problems.append(f"{label(k, node)}.{name}: {td.data_type.name} tensors are not supported by "
                                        f"{adapter.device} ({adapter.name}); DML_FEATURE_TENSOR_DATA_TYPE_SUPPORT "
                                        "says no.")
    return problems


def build(target, graph, index: int, level: FeatureLevel, debug: bool = False, execution_flags: int = 0):
    """(runner, notes): a ``runtime.Program`` for ``target`` on ``dml:<index>`` compiled with ``execution_flags``
    (DML_EXECUTION_FLAGS), and notes saying which files were loaded, that the semantics are DirectML's own, how much
    device memory the operator holds, and whether the debug layer is on."""
    from . import libraries, runtime

    program = runtime.Program(target, graph, index, level, debug, execution_flags)
    loaded = libraries.loaded_paths()
    notes = ["DirectML native backend" + ("; loaded " + ", ".join(f"{k}: {p}" for k, p in sorted(loaded.items()))
                                          if loaded else ""),
             "semantics are DirectML's own: the descriptor is handed to DirectML unchanged (CreateOperator, "
             "CompileOperator; CompileGraph for a graph)",
             program.memory_note()]
    if debug:
        q = program.queue
        notes.append("DirectML debug layer on (DML_CREATE_DEVICE_FLAG_DEBUG)" if q.debug_dml is not None
                     else f"debug=True asked for, but {q.debug_problem}; running without it")
        if q.info_queue is None:
            notes.append("no D3D12 debug-layer messages (set DMLOPS_D3D12_DEBUG=1 before the first DirectML use to "
                         "enable the D3D12 debug layer)")
    return program, tuple(notes)
