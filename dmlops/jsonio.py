"""Operator descriptors as JSON, in DxDispatch's model format.

One operator is ``{"type": "DML_OPERATOR_GRU", "desc": {"InputTensor": {"DataType": "FLOAT32",
"Sizes": [1, 5, 2, 8]}, ...}}``. Field names are the C struct's; enum values may be short
(``FLOAT32``, ``FORWARD``) or full (``DML_RECURRENT_NETWORK_DIRECTION_FORWARD``); optional members
may be omitted; count members (``ActivationDescCount``) may be omitted and are checked when given.
Nested operator descs are ``{"Type": "DML_OPERATOR_ACTIVATION_ELU", "Desc": {"Alpha": 0.5}}`` or, as
DxDispatch also accepts, ``{"Type": "ACTIVATION_ELU", "Alpha": 0.5}``. A whole DxDispatch model file with a single
DML operator dispatchable is accepted too, and so is that dispatchable's own object: next to its type and desc it may
hold what DxDispatch's parser reads there, ``dmlCompileType``, ``executionFlags`` and ``bindings``, checked as
dmlops.dxdispatch describes (which also reads the model's resources and commands, and runs them). As DxDispatch's
parser reads them: a tensor may be written in DML_TENSOR_DESC's long form ``{"Type": "DML_TENSOR_TYPE_BUFFER",
"Desc": {"DataType": ..., "Sizes": ...}}``, ``"TotalTensorSizeInBytes": 0`` means "compute it" (a size given as 0,
which is invalid, is written and read as ``"explicit 0"``), and text may hold // and /* */ comments and trailing
commas. A file is read up to MAX_FILE_BYTES (64 MiB).

Writing is dmlops.jsonout's (``to_json`` and ``dumps`` here are its own); reading builds the generated classes.
Every error is a DescriptorError whose path is the JSON path of the offending value (``$.desc.Direction``).
"""
from __future__ import annotations

import json
import re
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any

from . import schema as _schema
from .base import OperatorDesc
from .errors import DescriptorError
from .jsonout import EXPLICIT_ZERO, dumps, to_json
from .types import DataType, ScaleBias, Size2D, TensorDesc, TensorFlags

__all__ = ["to_json", "dumps", "from_json", "loads", "load", "load_document", "graph_to_json", "graph_from_json",
           "load_model", "model_from_json", "dispatchable_from_json", "Model", "Dispatchable", "Command", "Binding",
           "MAX_FILE_BYTES"]

# The most bytes dmlops reads from one JSON file (a descriptor is a few KiB; a DxDispatch model with its initial
# values inline, rarely a few MiB). A larger file, or an endless one such as /dev/zero, is refused after reading
# one byte more than this.
MAX_FILE_BYTES = 64 << 20

_TENSOR_KEYS = ("Type", "DataType", "Flags", "DimensionCount", "Sizes", "Strides", "TotalTensorSizeInBytes",
                "GuaranteedBaseOffsetAlignment")


def from_json(document, path: str = "$") -> OperatorDesc:
    """An operator descriptor from a parsed JSON document (see the module docstring for the format), or from
    its JSON text (a ``str``, as ``loads`` reads it)."""
    if isinstance(document, str):
        return loads(document, path)
    if isinstance(document, dict) and "dispatchables" in document:
        return model_from_json(document, path).dispatchable.desc
    if not isinstance(document, dict):
        raise DescriptorError(path, f"expected an object with 'type' and 'desc'; got {_kind(document)}.")
    if any(k in document for k in DISPATCHABLE_KEYS):  # a DxDispatch dispatchable's own object
        return dispatchable_from_json(document, path).desc
    return _operator(document, path, nested=False, allowed=DISPATCHABLE_KEYS)


def loads(text: str, source: str = "$") -> OperatorDesc:
    """An operator descriptor from a JSON string."""
    return from_json(_parse(text, source))


# DxDispatch reads its models with rapidjson's kParseCommentsFlag and kParseTrailingCommasFlag: // and /* */ comments
# and a comma before } or ] are allowed. Strings are matched first so that nothing inside one is touched.
_COMMENTS = re.compile(r'"(?:\\.|[^"\\])*"|//[^\n]*|/\*.*?\*/', re.S)
_TRAILING_COMMAS = re.compile(r'"(?:\\.|[^"\\])*"|,(?=\s*[}\]])')


def _blank(match) -> str:
    """A comment or trailing comma as spaces (newlines kept, so error positions stay right); a string as itself, and
    a comma that follows no value (``{,}``) too, for json.loads to report."""
    text = match.group(0)
    if text.startswith('"'):
        return text
    if text == ",":
        i = match.start() - 1
        while i >= 0 and match.string[i].isspace():
            i -= 1
        if i < 0 or match.string[i] in "{[,:":
            return text
    return re.sub(r"[^\n]", " ", text)


def _parse(text: str, source: str):
    """json.loads of DxDispatch's JSON (comments and trailing commas allowed), every failure a DescriptorError
    naming ``source`` (malformed text, nesting deeper than Python's recursion allows, integers longer than Python
    converts)."""
    try:
        return json.loads(_TRAILING_COMMAS.sub(_blank, _COMMENTS.sub(_blank, text)), parse_float=_finite_float)
    except json.JSONDecodeError as e:
        raise DescriptorError(source, f"malformed JSON at line {e.lineno}, column {e.colno}: {e.msg}.") from None
    except RecursionError:
        raise DescriptorError(source, "JSON nested too deeply to read (a descriptor nests a few levels).") from None
    except _FloatTooLarge as e:
        raise DescriptorError(source, f"the JSON number {e.args[0][:40]} is too large for a double (write "
                                      "\"Infinity\" for an infinity).") from None
    except ValueError:  # an integer literal of more than sys.get_int_max_str_digits() digits
        raise DescriptorError(source, "a JSON integer is too long to read (thousands of digits).") from None


class _FloatTooLarge(Exception):
    pass


def _finite_float(literal: str) -> float:
    """A JSON number with a fraction or exponent; one beyond a double (1e400) is refused, as rapidjson (DxDispatch's
    parser) refuses it, rather than read as an infinity that nobody wrote."""
    value = float(literal)
    if value in (float("inf"), float("-inf")):
        raise _FloatTooLarge(literal)
    return value


def load(path) -> OperatorDesc:
    """An operator descriptor from a JSON file (a descriptor, a DxDispatch model or one of its dispatchables)."""
    return from_json(load_document(path))


def load_document(path, max_bytes: int | None = None):
    """The parsed JSON of a file (comments and trailing commas allowed), reading at most ``max_bytes`` of it
    (default MAX_FILE_BYTES): a larger or endless file (/dev/zero) is a DescriptorError giving the limit, as are
    unreadable and non-UTF-8 files."""
    max_bytes = MAX_FILE_BYTES if max_bytes is None else max_bytes
    p = Path(path)
    try:
        with open(p, "rb") as f:
            raw = f.read(max_bytes + 1)
    except OSError as e:
        raise DescriptorError(str(p), f"cannot read the file ({e.strerror or e}).") from None
    if len(raw) > max_bytes:
        raise DescriptorError(str(p), f"the file is larger than {_size_text(max_bytes)}, the most dmlops reads of a "
                                      "JSON document.")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise DescriptorError(str(p), "is not UTF-8 text.") from None
    return _parse(text.removeprefix("\ufeff"), str(p))


def _size_text(nbytes: int) -> str:
    return f"{nbytes} bytes ({nbytes >> 20} MiB)" if nbytes >= 1 << 20 and not nbytes % (1 << 20) else f"{nbytes} bytes"


# The keys DxDispatch's parser reads on a DML operator dispatchable besides its type and desc (JsonParsers.cpp,
# ParseModelDmlDispatchableDesc); dmlops.dxdispatch checks their values.
DISPATCHABLE_KEYS = ("dmlCompileType", "executionFlags", "bindings")


def _kind(value) -> str:
    return {dict: "an object", list: "an array", str: "a string", bool: "a boolean", type(None): "null",
            int: "a number", float: "a number"}.get(type(value), type(value).__name__)


def _get(obj: dict, *keys):
    for k in keys:
        if k in obj:
            return k, obj[k]
    return None, None


def _operator(obj: dict, path: str, nested: bool, allowed=()) -> OperatorDesc:
    from .descs import CLASSES

    type_key, type_value = _get(obj, "type", "Type")
    if type_key is None:
        raise DescriptorError(path, "missing 'type' (the operator type, e.g. \"DML_OPERATOR_GRU\").")
    if not isinstance(type_value, str):
        raise DescriptorError(f"{path}.{type_key}", f"expected a string; got {_kind(type_value)}.")
    s = _schema.get(type_value, f"{path}.{type_key}")
    desc_key, fields = _get(obj, "desc", "Desc")
    if desc_key is None:
        if not nested:
            raise DescriptorError(path, "missing 'desc' (the operator's fields).")
        fields, desc_path = {k: v for k, v in obj.items() if k != type_key}, path
    else:
        desc_path = f"{path}.{desc_key}"
        extra = [k for k in obj if k not in (type_key, desc_key, *allowed)]
        if extra:
            also = f" (allowed besides them: {', '.join(allowed)})" if allowed else ""
            raise DescriptorError(f"{path}.{extra[0]}", f"unexpected key next to '{type_key}' and '{desc_key}'{also}.")
    if not isinstance(fields, dict):
        raise DescriptorError(desc_path, f"expected an object of {s.struct_name} fields; got {_kind(fields)}.")

    known = {f.name: f for f in s.fields}
    for key in fields:
        if key not in known:
            listing = ", ".join(f.name for f in s.fields)
            raise DescriptorError(f"{desc_path}.{key}", f"unknown field for {s.operator_type} (fields: {listing}).")
    kwargs = {}
    for f in s.user_fields:
        fpath = f"{desc_path}.{f.name}"
        if nested and f.type in ("OPERATOR_DESC", "OPERATOR_DESC_ARRAY") and fields.get(f.name):
            raise DescriptorError(fpath, f"a nested operator must be an activation; {s.operator_type} holds "
                                         "operators itself (DirectML nests one level only).")
        if f.name not in fields or fields[f.name] is None:
            # A missing tensor is None, as the constructor takes it, and validation reports it ("is required but
            # missing"): what to_json writes of any descriptor reads back.
            required = not f.optional and f.type != "TENSOR_DESC" and not f.has_default
            if required:
                raise DescriptorError(fpath, f"required field of {s.struct_name} is missing.")
            continue
        kwargs[f.py_name] = _field_value(f, fields[f.name], fpath)
    try:
        desc = CLASSES[s.operator_type](**kwargs)
    except DescriptorError as e:  # a value the struct cannot hold; point at it in the document
        field = e.path.split(".", 1)[1] if "." in e.path else e.path
        raise DescriptorError(f"{desc_path}.{field}", e.message) from None
    for count in s.count_fields:
        if count in fields:
            given = fields[count]
            if isinstance(given, bool) or not isinstance(given, int):
                raise DescriptorError(f"{desc_path}.{count}", f"expected an integer; got {_kind(given)}.")
            if given != desc.count(count):
                arrays = ", ".join(f.name for f in s.fields if f.count_field == count)
                raise DescriptorError(f"{desc_path}.{count}",
                                      f"{given} does not match the {desc.count(count)} entries of {arrays}.")
    return desc


def _field_value(f: _schema.FieldSchema, value, path: str):
    t = f.type
    if t == "TENSOR_DESC":
        return _tensor(value, path)
    if t == "TENSOR_DESC_ARRAY":
        return tuple(_tensor(v, f"{path}[{i}]") for i, v in enumerate(_array(value, path)))
    if t == "OPERATOR_DESC":
        return _nested_operator(value, path)
    if t == "OPERATOR_DESC_ARRAY":
        return tuple(_nested_operator(v, f"{path}[{i}]") for i, v in enumerate(_array(value, path)))
    if t == "SCALE_BIAS":
        obj = _object(value, path, ("Scale", "Bias"))
        return ScaleBias(scale=_number(obj.get("Scale", 1.0), f"{path}.Scale"),
                         bias=_number(obj.get("Bias", 0.0), f"{path}.Bias"))
    if t == "SIZE_2D":
        obj = _object(value, path, ("Width", "Height"))
        for k in ("Width", "Height"):
            if k not in obj:
                raise DescriptorError(f"{path}.{k}", "required field of DML_SIZE_2D is missing.")
        return Size2D(width=_integer(obj["Width"], f"{path}.Width"), height=_integer(obj["Height"], f"{path}.Height"))
    if f.enum:
        from .enums import ENUMS

        return ENUMS[f.enum].parse(value, path)
    if f.is_bool:
        if isinstance(value, bool) or value in (0, 1):
            return bool(value)
        raise DescriptorError(path, f"expected true or false; got {_kind(value)}.")
    if t in ("FLOAT", "SCALAR_UNION"):
        return _number(value, path)
    if t in ("UINT", "INT"):
        return _integer(value, path)
    if t == "FLOAT_ARRAY":
        return tuple(_number(v, f"{path}[{i}]") for i, v in enumerate(_array(value, path)))
    return tuple(_integer(v, f"{path}[{i}]") for i, v in enumerate(_array(value, path)))


def _nested_operator(value, path: str) -> OperatorDesc:
    if not isinstance(value, dict):
        raise DescriptorError(path, f"expected an operator object with 'Type'; got {_kind(value)}.")
    return _operator(value, path, nested=True)


def _tensor(value, path: str) -> TensorDesc:
    if isinstance(value, dict) and "Desc" in value:  # DML_TENSOR_DESC's long form: {"Type": ..., "Desc": {...}}
        outer = _object(value, path, ("Type", "Desc"))
        if "Type" in outer and outer["Type"] not in ("BUFFER", "DML_TENSOR_TYPE_BUFFER"):
            raise DescriptorError(f"{path}.Type", f"only DML_TENSOR_TYPE_BUFFER tensors exist; got {outer['Type']!r}.")
        value, path = outer["Desc"], f"{path}.Desc"
    obj = _object(value, path, _TENSOR_KEYS)
    for k in ("DataType", "Sizes"):
        if k not in obj:
            raise DescriptorError(f"{path}.{k}", "required field of DML_BUFFER_TENSOR_DESC is missing.")
    if "Type" in obj and obj["Type"] not in ("BUFFER", "DML_TENSOR_TYPE_BUFFER"):
        raise DescriptorError(f"{path}.Type", f"only DML_TENSOR_TYPE_BUFFER tensors exist; got {obj['Type']!r}.")
    data_type = DataType.parse(obj["DataType"], f"{path}.DataType")
    sizes = tuple(_integer(v, f"{path}.Sizes[{i}]") for i, v in enumerate(_array(obj["Sizes"], f"{path}.Sizes")))
    strides = None
    if obj.get("Strides") is not None:
        strides = tuple(_integer(v, f"{path}.Strides[{i}]")
                        for i, v in enumerate(_array(obj["Strides"], f"{path}.Strides")))
    if "DimensionCount" in obj and _integer(obj["DimensionCount"], f"{path}.DimensionCount") != len(sizes):
        raise DescriptorError(f"{path}.DimensionCount", f"{obj['DimensionCount']} does not match the {len(sizes)} Sizes.")
    flags = TensorFlags.parse(obj.get("Flags", 0), f"{path}.Flags")
    total = obj.get("TotalTensorSizeInBytes")
    if total == EXPLICIT_ZERO:  # what dmlops writes for a size given as 0, which 0 itself cannot say
        total = 0
    elif total is not None:
        if isinstance(total, str):
            raise DescriptorError(f"{path}.TotalTensorSizeInBytes", f"expected an integer (0: compute it) or "
                                                                   f"{EXPLICIT_ZERO!r}; got {total!r}.")
        total = _integer(total, f"{path}.TotalTensorSizeInBytes") or None  # 0: compute it (DMLCalcBufferTensorSize)
    align = _integer(obj.get("GuaranteedBaseOffsetAlignment", 0), f"{path}.GuaranteedBaseOffsetAlignment")
    try:
        return TensorDesc(data_type, sizes, strides, flags, total, align)
    except DescriptorError as e:  # e.g. a negative size: point at it in the document
        raise DescriptorError(f"{path}.{e.path}", e.message) from None


def _object(value, path: str, keys) -> dict:
    if not isinstance(value, dict):
        raise DescriptorError(path, f"expected an object; got {_kind(value)}.")
    for k in value:
        if k not in keys:
            raise DescriptorError(f"{path}.{k}", f"unknown key (allowed: {', '.join(keys)}).")
    return value


def _array(value, path: str) -> list:
    if not isinstance(value, list):
        raise DescriptorError(path, f"expected an array; got {_kind(value)}.")
    return value


def _integer(value, path: str) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or isinstance(value, float) and not value.is_integer():
        raise DescriptorError(path, f"expected an integer; got {_kind(value) if not isinstance(value, float) else value}.")
    return int(value)


def _number(value, path: str) -> float | int:
    if isinstance(value, str) and value in ("NaN", "nan", "inf", "-inf", "Infinity", "-Infinity"):
        return float(value.replace("Infinity", "inf"))
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise DescriptorError(path, f"expected a number; got {_kind(value)}.")
    return value


# ---------------------------------------------------------------------------------------------- DxDispatch models
# A model is {"resources": {...}, "dispatchables": {...}, "commands": [...]} (plus "$schema"); dmlops takes one DML
# operator dispatchable per model (HLSL, ONNX and dmlSerializedGraph ones are skipped when choosing it). Beside its
# type and desc, DxDispatch's parser (JsonParsers.cpp, ParseModelDmlDispatchableDesc) reads on it:
#   dmlCompileType  "DmlCompileOp" (default) or "DmlCompileGraph": IDMLDevice::CompileOperator, or a one-node graph;
#   executionFlags  a DML_EXECUTION_FLAGS name or an array of names (short or full), OR'd: CompileOperator's flags;
#   bindings        the initialization bindings {tensor: resource}, for OWNED_BY_DML inputs (DirectML reads them once,
#                   at initialization); a dispatch command's "bindings" bind every other tensor at execution.
# A binding is a resource name, an object {"name", "elementOffset", "elementSizeInBytes", "elementCount", "format",
# "counter", "counterOffsetBytes", "shape"} or an array of those (one per tensor of a tensor array such as JOIN's
# InputTensors). Binding keys must be tensors present in the desc; resource names must exist. Keys DxDispatch does
# not read are refused with their JSON path (DxDispatch ignores them: a misspelt key would change nothing, silently).
# dmlops.dxdispatch.run creates the resources and runs the commands.
COMPILE_TYPES = ("DmlCompileOp", "DmlCompileGraph")
MODEL_KEYS = ("$schema", "resources", "dispatchables", "commands")
BINDING_KEYS = ("name", "format", "elementCount", "elementSizeInBytes", "elementOffset", "counter",
                "counterOffsetBytes", "shape")
# Dispatchable types DxDispatch parses as something other than a DML operator (compared without case, as it does).
OTHER_DISPATCHABLES = ("hlsl", "onnx", "dmlserializedgraph")


@dataclass(frozen=True)
class Binding:
    """One resource bound to a tensor: ``elementOffset`` elements of ``elementSizeInBytes`` (default: the resource's
    element size) into the resource; the other DxDispatch binding members are checked but not used for DML tensors."""

    resource: str
    element_offset: int = 0
    element_size_in_bytes: int | None = None
    element_count: int | None = None


Bindings = dict[str, tuple[Binding, ...]]


def _no_flags():
    from .enums import ExecutionFlags

    return ExecutionFlags.NONE


@dataclass(frozen=True)
class Dispatchable:
    """A DML operator dispatchable: the descriptor and what DxDispatch reads beside it. ``execution_flags`` is a
    dmlops.enums.ExecutionFlags (DML_EXECUTION_FLAGS) that no backend takes yet: DirectML's CompileOperator would."""

    desc: OperatorDesc
    name: str | None = None
    execution_flags: Any = field(default_factory=_no_flags)
    compile_type: str = "DmlCompileOp"
    bindings: Bindings = field(default_factory=dict)  # initialization bindings (OWNED_BY_DML inputs)


@dataclass(frozen=True)
class Command:
    """A command of the model: ``type`` as written, ``path`` its JSON path, and for a dispatch of the DML operator
    dispatchable its bindings (``dispatchable`` names the dispatchable it runs; None for other commands)."""

    type: str
    path: str
    dispatchable: str | None = None
    bindings: Bindings = field(default_factory=dict)
    resource: str | None = None  # a print command's resource


@dataclass(frozen=True)
class Model:
    """A DxDispatch model with one DML operator dispatchable (``dispatchable``)."""

    dispatchable: Dispatchable
    resources: dict
    commands: tuple[Command, ...]
    path: str = "$"
    folder: Path | None = None  # where sourcePath files are looked up


def load_model(path) -> Model:
    """A DxDispatch model from a file (read up to MAX_FILE_BYTES)."""
    return model_from_json(load_document(path), "$", Path(path).parent)


def model_from_json(document, path: str = "$", folder: Path | None = None) -> Model:
    """A Model from a parsed DxDispatch model document; errors are DescriptorErrors naming the JSON path."""
    doc = _object(document, path, MODEL_KEYS)
    resources = doc.get("resources", {})
    if not isinstance(resources, dict):
        raise DescriptorError(f"{path}.resources", f"expected an object of resources; got {_kind(resources)}.")
    dispatchables = doc.get("dispatchables")
    if not isinstance(dispatchables, dict):
        raise DescriptorError(f"{path}.dispatchables", f"expected an object; got {_kind(dispatchables)}.")
    for name, d in dispatchables.items():
        if not isinstance(d, dict):
            raise DescriptorError(f"{path}.dispatchables.{name}", f"expected an object; got {_kind(d)}.")
    dml = [name for name, d in dispatchables.items() if str(d.get("type", "")).lower() not in OTHER_DISPATCHABLES]
    if len(dml) != 1:
        raise DescriptorError(f"{path}.dispatchables", f"expected exactly one DML operator dispatchable; found "
                                                       f"{len(dml)} ({', '.join(dml) or 'none'}).")
    name = dml[0]
    dispatchable = dispatchable_from_json(dispatchables[name], f"{path}.dispatchables.{name}", name, resources)
    commands = []
    for i, c in enumerate(_array(doc.get("commands", []), f"{path}.commands")):
        cpath = f"{path}.commands[{i}]"
        if not isinstance(c, dict) or not isinstance(c.get("type"), str):
            raise DescriptorError(cpath, "expected an object with a 'type' string.")
        ctype = c["type"]
        if ctype == "dispatch":
            target = c.get("dispatchable")
            if not isinstance(target, str) or target not in dispatchables:
                raise DescriptorError(f"{cpath}.dispatchable", f"expected the name of a dispatchable "
                                                               f"({', '.join(dispatchables)}); got {target!r}.")
            if "bindings" not in c:
                raise DescriptorError(f"{cpath}.bindings", "required for a dispatch command.")
            bindings = (_bindings(c["bindings"], f"{cpath}.bindings", dispatchable.desc, resources)
                        if target == name else {})
            commands.append(Command(ctype, cpath, target, bindings))
        elif ctype == "print":
            resource = c.get("resource")
            if not isinstance(resource, str) or resource not in resources:
                raise DescriptorError(f"{cpath}.resource", f"expected the name of a resource "
                                                           f"({', '.join(resources) or 'none'}); got {resource!r}.")
            commands.append(Command(ctype, cpath, resource=resource))
        else:
            commands.append(Command(ctype, cpath))
    return Model(dispatchable, resources, tuple(commands), path, folder)


def dispatchable_from_json(obj, path: str = "$", name: str | None = None, resources: dict | None = None) -> Dispatchable:
    """A DML operator dispatchable's object: its operator, ``dmlCompileType``, ``executionFlags`` and ``bindings``,
    each checked as DxDispatch reads it; ``resources`` (a model's) lets binding names be checked."""
    if not isinstance(obj, dict):
        raise DescriptorError(path, f"expected an object with 'type' and 'desc'; got {_kind(obj)}.")
    desc = _operator(obj, path, nested=False, allowed=DISPATCHABLE_KEYS)
    compile_type = obj.get("dmlCompileType", "DmlCompileOp")
    if compile_type not in COMPILE_TYPES:
        raise DescriptorError(f"{path}.dmlCompileType", f"{compile_type!r} is not a DmlCompileType (allowed: "
                                                        f"{', '.join(COMPILE_TYPES)}).")
    flags = _execution_flags(obj.get("executionFlags", "DML_EXECUTION_FLAG_NONE"), f"{path}.executionFlags")
    bindings = _bindings(obj["bindings"], f"{path}.bindings", desc, resources) if "bindings" in obj else {}
    return Dispatchable(desc, name, flags, compile_type, bindings)


def _execution_flags(value, path: str):
    """DML_EXECUTION_FLAGS from a name or an array of names, as DxDispatch's ParseFlags (no numbers)."""
    from .enums import ExecutionFlags

    items = value if isinstance(value, list) else [value]
    if not isinstance(value, (str, list)):
        raise DescriptorError(path, f"expected a DML_EXECUTION_FLAGS name or an array of them; got {_kind(value)}.")
    flags = ExecutionFlags(0)
    for i, item in enumerate(items):
        where = f"{path}[{i}]" if isinstance(value, list) else path
        if not isinstance(item, str):
            raise DescriptorError(where, f"expected a DML_EXECUTION_FLAGS name; got {_kind(item)}.")
        flags |= ExecutionFlags.parse(item, where)
    return flags


def _tensor_slots(desc: OperatorDesc) -> dict[str, int | None]:
    """Tensor fields present in ``desc``: None for a single tensor, the count for a tensor array; absent optional
    tensors are left out."""
    out: dict[str, int | None] = {}
    for f in desc.schema().fields:
        if not f.is_tensor:
            continue
        value = getattr(desc, f.py_name)
        if f.type == "TENSOR_DESC_ARRAY":
            out[f.name] = len(value)
        elif value is not None:
            out[f.name] = None
    return out


def _bindings(value, path: str, desc: OperatorDesc, resources: dict | None) -> Bindings:
    if not isinstance(value, dict):
        raise DescriptorError(path, f"expected an object of tensor bindings; got {_kind(value)}.")
    slots = _tensor_slots(desc)
    op = desc.OPERATOR_TYPE
    out: Bindings = {}
    for tensor, source in value.items():
        where = f"{path}.{tensor}"
        if tensor not in slots:
            known = {f.name for f in desc.schema().fields if f.is_tensor}
            why = (f"{op}'s desc has no {tensor} (an absent optional tensor takes no binding)" if tensor in known
                   else f"{op} has no tensor {tensor}")
            raise DescriptorError(where, f"{why}; tensors: {', '.join(slots)}.")
        items = source if isinstance(source, list) else [source]
        bound = tuple(_binding(b, f"{where}[{i}]" if isinstance(source, list) else where, resources)
                      for i, b in enumerate(items))
        want = slots[tensor] if slots[tensor] is not None else 1
        if len(bound) != want:
            raise DescriptorError(where, f"{len(bound)} resource(s) bound; {op}.{tensor} takes {want}.")
        out[tensor] = bound
    return out


def _binding(value, path: str, resources: dict | None) -> Binding:
    obj: dict = {}
    if isinstance(value, str):
        name = value
    elif isinstance(value, dict):
        obj = _object(value, path, BINDING_KEYS)
        found = obj.get("name")
        if not isinstance(found, str):
            raise DescriptorError(f"{path}.name", f"expected a resource name; got {_kind(found)}.")
        name = found
        for key in ("format", "counter"):
            if key in obj and not isinstance(obj[key], str):
                raise DescriptorError(f"{path}.{key}", f"expected a string; got {_kind(obj[key])}.")
        for key in ("elementCount", "elementSizeInBytes", "elementOffset", "counterOffsetBytes"):
            if key in obj and _integer(obj[key], f"{path}.{key}") < 0:
                raise DescriptorError(f"{path}.{key}", f"expected an unsigned integer; got {obj[key]}.")
        for i, s in enumerate(_array(obj.get("shape", []), f"{path}.shape")):
            _integer(s, f"{path}.shape[{i}]")
    else:
        raise DescriptorError(path, f"expected a resource name, a binding object or an array of them; got "
                                    f"{_kind(value)}.")
    if resources is not None and name not in resources:
        raise DescriptorError(path, f"no resource named {name!r} (resources: {', '.join(resources) or 'none'}).")
    size = obj.get("elementSizeInBytes")
    count = obj.get("elementCount")
    return Binding(name, int(obj.get("elementOffset", 0)), None if size is None else int(size),
                   None if count is None else int(count))


# ---------------------------------------------------------------------------------------------- graphs
_EDGE_KEYS = {
    "InputEdges": ("GraphInputIndex", "ToNodeIndex", "ToNodeInputIndex"),
    "IntermediateEdges": ("FromNodeIndex", "FromNodeOutputIndex", "ToNodeIndex", "ToNodeInputIndex"),
    "OutputEdges": ("FromNodeIndex", "FromNodeOutputIndex", "GraphOutputIndex"),
}


def graph_to_json(graph) -> dict:
    """A GraphDesc as JSON: DML_GRAPH_DESC's members (nodes as operator documents, edges by index) plus the
    graph's input and output names: ``{"type": "DML_GRAPH", "InputNames": [...], "OutputNames": [...],
    "Nodes": [...], "InputEdges": [...], "IntermediateEdges": [...], "OutputEdges": [...]}``."""
    from dataclasses import astuple

    edges = {"InputEdges": graph.input_edges, "IntermediateEdges": graph.intermediate_edges,
             "OutputEdges": graph.output_edges}
    return {"type": "DML_GRAPH", "InputNames": list(graph.input_names), "OutputNames": list(graph.output_names),
            "Nodes": [to_json(n) for n in graph.nodes],
            **{kind: [dict(zip(_EDGE_KEYS[kind], astuple(e))) for e in es] for kind, es in edges.items()}}


def graph_from_json(document, path: str = "$"):
    """A GraphDesc from ``graph_to_json``'s format; errors are DescriptorErrors with the JSON path."""
    from .graph import GraphDesc, InputEdge, IntermediateEdge, OutputEdge

    keys = ("type", "InputNames", "OutputNames", "Nodes", *_EDGE_KEYS)
    doc = _object(document, path, keys)
    if doc.get("type") != "DML_GRAPH":
        raise DescriptorError(f"{path}.type", f"expected \"DML_GRAPH\"; got {doc.get('type')!r}.")
    missing = [k for k in keys if k not in doc]
    if missing:
        raise DescriptorError(path, f"missing {', '.join(missing)}.")

    def names(key):
        value = _array(doc[key], f"{path}.{key}")
        for i, n in enumerate(value):
            if not isinstance(n, str):
                raise DescriptorError(f"{path}.{key}[{i}]", f"expected a string; got {_kind(n)}.")
        return value

    nodes = [_operator(_object(n, f"{path}.Nodes[{i}]", ("type", "desc")), f"{path}.Nodes[{i}]", nested=False)
             for i, n in enumerate(_array(doc["Nodes"], f"{path}.Nodes"))]
    edges: dict[str, list] = {}
    for kind, cls in (("InputEdges", InputEdge), ("IntermediateEdges", IntermediateEdge), ("OutputEdges", OutputEdge)):
        edges[kind] = []
        for i, e in enumerate(_array(doc[kind], f"{path}.{kind}")):
            e = _object(e, f"{path}.{kind}[{i}]", _EDGE_KEYS[kind])
            absent = [k for k in _EDGE_KEYS[kind] if k not in e]
            if absent:
                raise DescriptorError(f"{path}.{kind}[{i}]", f"missing {', '.join(absent)}.")
            values = [_integer(e[k], f"{path}.{kind}[{i}].{k}") for k in _EDGE_KEYS[kind]]
            try:
                edges[kind].append(cls(*values))
            except DescriptorError as err:  # a negative or too large index: point at it in the document
                field = _EDGE_KEYS[kind][[f.name for f in fields(cls)].index(err.path.split(".")[-1])]
                raise DescriptorError(f"{path}.{kind}[{i}].{field}", err.message) from None
    return GraphDesc(tuple(nodes), tuple(edges["InputEdges"]), tuple(edges["IntermediateEdges"]),
                     tuple(edges["OutputEdges"]), tuple(names("InputNames")), tuple(names("OutputNames")))
