"""Running a DxDispatch model (dmlops.jsonio.load_model) on a dmlops backend, as DxDispatch would run it.

``run(model)`` creates the buffers from the resources' initial values (a list, ``{"valueCount", "value"}``,
``{"valueCount", "valueStart", "valueDelta"}`` as DxDispatch's running sum in the type, a list of ``{"type",
"value"}``, or ``{"sourcePath"}`` of a .npy or raw .dat file next to the model), at most MAX_RESOURCE_BYTES in all
(counted before anything is allocated), then runs the commands in order: a dispatch reads its inputs from the bytes
its bindings name (OWNED_BY_DML inputs from the dispatchable's own bindings, the rest from the command's) and writes
its outputs back there (what strides skip is left as it was); a print adds ``Resource 'name': 1, 2, 3``. The
dispatchable's executionFlags go to DirectML's CompileOperator / CompileGraph on the native backend; the lowering
backends compile without them, and the notes say so.
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from .errors import DescriptorError
from .jsonio import Binding, Command, Model, _integer, _kind, _number, _object
from .types import DataType, TensorFlags

__all__ = ["run", "RunResult", "MAX_RESOURCE_BYTES"]

RESOURCE_KEYS = ("initialValuesDataType", "initialValues", "sizeInBytes", "initialValuesOffsetInBytes")
# The most bytes run() allocates for a model's resources, all together (D3D12 buffers are at most 4 GiB each).
MAX_RESOURCE_BYTES = 1 << 30


@dataclass
class RunResult:
    """What ``run`` did: ``resources`` (each buffer as an array of its initial values' data type, after the
    commands), ``printed`` (the print commands' lines), ``notes`` (what dmlops did differently from DxDispatch)."""

    backend: str
    device: str
    resources: dict
    printed: list[str]
    notes: list[str]


@dataclass
class _Buffer:
    data: bytearray
    data_type: DataType | None  # None: a mixed list of typed values


def run(model: Model, backend: str | None = None, device: str | None = None, feature_level=None) -> RunResult:
    """Create ``model``'s resources and run its commands in order on ``backend`` (None: as ``dmlops.compile``
    chooses, the native backend where a DirectML device exists, else onnxruntime), the operator validated at
    ``feature_level`` (default: the backend's, as ``dmlops.compile``'s). DmlCompileGraph compiles a one-node
    GraphDesc (on the native backend, IDMLDevice1::CompileGraph, as DxDispatch does); on the native backend the
    dispatchable's executionFlags go to CompileOperator / CompileGraph."""
    import numpy as np

    from .compiled import compile as compile_
    from .compiled import resolve_backend
    from .graph import GraphDesc

    d = model.dispatchable
    for c in model.commands:
        if c.type == "dispatch" and c.dispatchable != d.name:
            raise DescriptorError(f"{c.path}.dispatchable", f"dmlops runs DML operator dispatchables only; "
                                                            f"{c.dispatchable!r} is not one.")
    target = GraphDesc.single(d.desc) if d.compile_type == "DmlCompileGraph" else d.desc
    backend, device = resolve_backend(backend, device)
    native = backend == "directml"
    op = compile_(target, backend, device, feature_level, execution_flags=d.execution_flags if native else None)
    buffers = _resources(model)
    notes = []
    if d.execution_flags and not native:
        names = ", ".join("DML_EXECUTION_FLAG_" + n for n in d.execution_flags.names())
        notes.append(f"executionFlags {names}: kept as data; the {backend} backend compiles without them "
                     "(only DirectML's CompileOperator takes them).")
    printed = []
    for c in model.commands:
        if c.type == "dispatch":
            _dispatch(model, c, op, buffers, np)
        elif c.type == "print":
            assert c.resource is not None  # model_from_json checked it
            values = _values(buffers[c.resource], np).tolist()
            printed.append(f"Resource '{c.resource}': {', '.join(_format(v) for v in values)}")
        else:
            notes.append(f"{c.path}: '{c.type}' skipped (dmlops runs dispatch and print commands).")
    return RunResult(backend, op.device, {name: _values(b, np) for name, b in buffers.items()}, printed, notes)


def _format(v) -> str:
    return f"{v:g}" if isinstance(v, float) else str(v)  # 32.0 as 32, 0.1 (a float32) as 0.1


def _values(buffer: _Buffer, np):
    if buffer.data_type is None:
        return np.frombuffer(bytes(buffer.data), np.uint8).copy()
    dtype = buffer.data_type.numpy_dtype
    usable = len(buffer.data) // dtype.itemsize * dtype.itemsize
    return np.frombuffer(bytes(buffer.data[:usable]), dtype).copy()


def _resources(model: Model) -> dict[str, _Buffer]:
    """Every resource's bytes, after checking that all of them together fit MAX_RESOURCE_BYTES."""
    import numpy as np

    plans = {name: _resource_plan(value, f"{model.path}.resources.{name}", model.folder, np)
             for name, value in model.resources.items()}
    total = sum(size for size, _ in plans.values())
    if total > MAX_RESOURCE_BYTES:
        big = max(plans, key=lambda n: plans[n][0])
        raise DescriptorError(f"{model.path}.resources", f"the resources need {total} bytes ({big!r}: {plans[big][0]}); "
                                                         f"dmlops creates at most {MAX_RESOURCE_BYTES} bytes (1 GiB) of "
                                                         "them.")
    return {name: make() for name, (_, make) in plans.items()}


def _resource_plan(value, path: str, folder: Path | None, np):
    """(size in bytes, a function making the buffer) for one resource, computed without allocating it."""
    obj = _object(value, path, RESOURCE_KEYS)
    if "initialValues" not in obj:
        raise DescriptorError(f"{path}.initialValues", "required field of a buffer resource is missing.")
    init = obj["initialValues"]
    dtype_name = obj.get("initialValuesDataType")
    data_type = None if dtype_name is None else DataType.parse(dtype_name, f"{path}.initialValuesDataType")
    if data_type is not None and (data_type == DataType.UNKNOWN or data_type.four_bit_range is not None):
        raise DescriptorError(f"{path}.initialValuesDataType", f"{data_type.name} has no initial values in DxDispatch.")
    ipath = f"{path}.initialValues"

    def typed():
        if data_type is None:
            raise DescriptorError(f"{path}.initialValuesDataType", "required for these initial values.")
        return data_type.numpy_dtype

    if isinstance(init, list) and data_type is None:  # [{"type": "UINT32", "value": 42}, ...]
        size = 0
        for i, item in enumerate(init):
            item = _object(item, f"{ipath}[{i}]", ("type", "value"))
            size += DataType.parse(item.get("type"), f"{ipath}[{i}].type").numpy_dtype.itemsize
        count, make_values = size, lambda: _mixed(init, ipath, np)
    elif isinstance(init, list):
        dtype = typed()
        count, make_values = len(init) * dtype.itemsize, lambda: _typed_list(init, dtype, ipath, np)
    elif isinstance(init, dict) and ("value" in init or "valueStart" in init):
        keys = ("valueCount", "value") if "value" in init else ("valueCount", "valueStart", "valueDelta")
        gen = _object(init, ipath, keys)
        for k in keys:
            if k not in gen:
                raise DescriptorError(f"{ipath}.{k}", "required field of this initializer is missing.")
        n = _integer(gen["valueCount"], f"{ipath}.valueCount")
        if n < 1:
            raise DescriptorError(f"{ipath}.valueCount", f"expected at least 1; got {n}.")
        dtype = typed()
        count = n * dtype.itemsize
        make_values = (lambda: _constant(gen, n, dtype, ipath, np)) if "value" in gen else \
                      (lambda: _sequence(gen, n, dtype, ipath, np))
    elif isinstance(init, dict) and "sourcePath" in init:
        source = _object(init, ipath, ("sourcePath",))["sourcePath"]
        if not isinstance(source, str):
            raise DescriptorError(f"{ipath}.sourcePath", f"expected a file name; got {_kind(source)}.")
        file = (folder or Path(".")) / source
        try:
            count = file.stat().st_size
        except OSError as e:
            raise DescriptorError(f"{ipath}.sourcePath", f"cannot read {str(file)!r} ({e.strerror}).") from None
        make_values = lambda: _from_file(file, data_type, f"{ipath}.sourcePath", np)  # noqa: E731
    elif init == "deferred":
        raise DescriptorError(ipath, "'deferred' resources are bound by DxDispatch's callers; dmlops cannot run them.")
    else:
        raise DescriptorError(ipath, f"expected an array of values, an initializer object or \"deferred\"; got "
                                     f"{_kind(init)}.")
    if count == 0:
        raise DescriptorError(ipath, "must not be empty.")
    offset = _integer(obj.get("initialValuesOffsetInBytes", 0), f"{path}.initialValuesOffsetInBytes")
    size = (count + 3) & ~3 if "sizeInBytes" not in obj else _integer(obj["sizeInBytes"], f"{path}.sizeInBytes")
    if offset < 0 or offset + count > size:
        raise DescriptorError(path, f"{count} bytes of initial values at offset {offset} do not fit sizeInBytes {size}.")

    def make() -> _Buffer:
        data = bytearray(size)
        values, dt = make_values()
        data[offset:offset + len(values)] = values
        return _Buffer(data, dt if data_type is None else data_type)

    return size, make


def _typed_list(values, dtype, path: str, np):
    out = np.empty(len(values), dtype)
    for i, v in enumerate(values):
        out[i] = _scalar(v, dtype, f"{path}[{i}]", np)
    return out.tobytes(), None


def _scalar(v, dtype, path: str, np):
    v = _number(v, path)
    if dtype.kind in "iu":
        if isinstance(v, float) and not v.is_integer():
            raise DescriptorError(path, f"expected an integer for {dtype}; got {v}.")
        info = np.iinfo(dtype)
        if not info.min <= v <= info.max:
            raise DescriptorError(path, f"{v} is outside the {dtype} range [{info.min}, {info.max}].")
        return int(v)
    with np.errstate(over="ignore"):
        return dtype.type(v)


def _mixed(items, path: str, np):
    parts = []
    for i, item in enumerate(items):
        dtype = DataType.parse(item["type"], f"{path}[{i}].type").numpy_dtype
        parts.append(np.asarray(_scalar(item.get("value"), dtype, f"{path}[{i}].value", np), dtype).tobytes())
    return b"".join(parts), None


def _constant(gen, n, dtype, path: str, np):
    return np.full(n, _scalar(gen["value"], dtype, f"{path}.value", np), dtype).tobytes(), None


def _sequence(gen, n, dtype, path: str, np):
    """DxDispatch's sequence: value += valueDelta after each element, in the data type (integers wrap)."""
    start = _scalar(gen["valueStart"], dtype, f"{path}.valueStart", np)
    delta = _scalar(gen["valueDelta"], dtype, f"{path}.valueDelta", np)
    steps = np.full(n, delta, dtype)
    steps[0] = start
    with np.errstate(over="ignore"):
        return np.add.accumulate(steps, dtype=dtype).tobytes(), None


def _from_file(file: Path, data_type: DataType | None, path: str, np):
    if file.suffix.lower() == ".npy":
        try:
            array = np.load(file, allow_pickle=False)
        except (OSError, ValueError) as e:
            raise DescriptorError(path, f"cannot read {str(file)!r} as a .npy file ({e}).") from None
        if data_type is not None and array.dtype != data_type.numpy_dtype:
            raise DescriptorError(path, f"{str(file)!r} holds {array.dtype}; initialValuesDataType is {data_type.name}.")
        held = DataType.parse(array.dtype.name.upper(), path)  # a .npy file says its type, as in DxDispatch
        return np.ascontiguousarray(array).tobytes(), held
    if file.suffix.lower() in (".jpg", ".jpeg", ".png"):
        raise DescriptorError(path, "image resources are not read by dmlops; use a .npy or .dat file.")
    if data_type is None:
        raise DescriptorError(path, "a raw .dat file needs initialValuesDataType.")
    with open(file, "rb") as f:
        return f.read(), None


def _dispatch(model: Model, command: Command, op, buffers: dict[str, _Buffer], np) -> None:
    from . import tensors
    from .graph import slots

    d = model.dispatchable
    inputs = {}
    for slot, td in slots(d.desc, "input"):
        if td is None:
            continue
        tensor, index = _split(slot)
        owned = TensorFlags.OWNED_BY_DML in td.flags
        source, where = ((d.bindings, f"{model.path}.dispatchables.{d.name}.bindings") if owned
                         else (command.bindings, f"{command.path}.bindings"))
        if tensor not in source:
            why = ("an OWNED_BY_DML input is bound by the dispatchable's bindings, which DirectML reads at "
                   "initialization" if owned else "the dispatchable's own bindings serve OWNED_BY_DML inputs only")
            raise DescriptorError(where, f"{d.desc.OPERATOR_TYPE}.{slot} is not bound ({why}).")
        data, start = _region(buffers, source[tensor][index], td, f"{where}.{tensor}")
        inputs[slot] = tensors.from_bytes(td, bytes(data[start:start + td.total_tensor_size_in_bytes]))
    outputs = op(inputs)
    for slot, td in slots(d.desc, "output"):
        tensor, index = _split(slot)
        if td is None or tensor not in command.bindings:
            continue  # computed and dropped, as DirectML does with an output bound to nothing
        where = f"{command.path}.bindings.{tensor}"
        if td.data_type.four_bit_range is not None:
            raise DescriptorError(where, f"dmlops cannot write {td.data_type.name} outputs into a resource.")
        data, start = _region(buffers, command.bindings[tensor][index], td, where)
        # The bytes already there, with the output written through its strides: what they skip keeps its value.
        end = start + tensors.buffer_elements(td) * td.data_type.numpy_dtype.itemsize
        buffer = np.frombuffer(bytes(data[start:end]), td.data_type.numpy_dtype).copy()
        tensors.strided_view(td, buffer)[...] = np.asarray(outputs[slot]).reshape(td.sizes)
        data[start:end] = buffer.tobytes()


def _split(slot: str) -> tuple[str, int]:
    """("InputTensors", 1) for "InputTensors[1]"; (name, 0) for a single tensor."""
    if slot.endswith("]"):
        name, index = slot[:-1].split("[")
        return name, int(index)
    return slot, 0


def _region(buffers: dict[str, _Buffer], binding: Binding, td, path: str) -> tuple[bytearray, int]:
    """The bound resource's bytes and the binding's start in them, checked to hold TotalTensorSizeInBytes."""
    buffer = buffers[binding.resource]
    element = binding.element_size_in_bytes
    if element is None:
        element = buffer.data_type.numpy_dtype.itemsize if buffer.data_type is not None else 1
    start = binding.element_offset * element
    available = max(len(buffer.data) - start, 0)
    if available < td.total_tensor_size_in_bytes:
        raise DescriptorError(path, f"resource {binding.resource!r} holds {available} bytes from offset {start}; the "
                                    f"tensor's TotalTensorSizeInBytes is {td.total_tensor_size_in_bytes}.")
    return buffer.data, start
