"""Operator descriptors as JSON, in DxDispatch's model format.

One operator is ``{"type": "DML_OPERATOR_GRU", "desc": {"InputTensor": {"DataType": "FLOAT32",
"Sizes": [1, 5, 2, 8]}, ...}}``. Field names are the C struct's; enum values may be short
(``FLOAT32``, ``FORWARD``) or full (``DML_RECURRENT_NETWORK_DIRECTION_FORWARD``); optional members
may be omitted; count members (``ActivationDescCount``) may be omitted and are checked when given.
Nested operator descs are ``{"Type": "DML_OPERATOR_ACTIVATION_ELU", "Desc": {"Alpha": 0.5}}`` or, as
DxDispatch also accepts, ``{"Type": "ACTIVATION_ELU", "Alpha": 0.5}``. A whole DxDispatch model
file with a single DML dispatchable is accepted too. As DxDispatch's parser reads them: a tensor may be written
in DML_TENSOR_DESC's long form ``{"Type": "DML_TENSOR_TYPE_BUFFER", "Desc": {"DataType": ..., "Sizes": ...}}``,
``"TotalTensorSizeInBytes": 0`` means "compute it", and text may hold // and /* */ comments and trailing commas.

Writing is dmlops.jsonout's (``to_json`` and ``dumps`` here are its own); reading builds the generated classes.
Every error is a DescriptorError whose path is the JSON path of the offending value (``$.desc.Direction``).
"""
from __future__ import annotations

import json
import re
from dataclasses import fields
from pathlib import Path

from . import schema as _schema
from .base import OperatorDesc
from .errors import DescriptorError
from .jsonout import dumps, to_json
from .types import DataType, ScaleBias, Size2D, TensorDesc, TensorFlags

__all__ = ["to_json", "dumps", "from_json", "loads", "load", "graph_to_json", "graph_from_json"]

_TENSOR_KEYS = ("Type", "DataType", "Flags", "DimensionCount", "Sizes", "Strides", "TotalTensorSizeInBytes",
                "GuaranteedBaseOffsetAlignment")


def from_json(document, path: str = "$") -> OperatorDesc:
    """An operator descriptor from a parsed JSON document (see the module docstring for the format), or from
    its JSON text (a ``str``, as ``loads`` reads it)."""
    if isinstance(document, str):
        return loads(document, path)
    if isinstance(document, dict) and "dispatchables" in document:
        return _from_model(document, path)
    if not isinstance(document, dict):
        raise DescriptorError(path, f"expected an object with 'type' and 'desc'; got {_kind(document)}.")
    return _operator(document, path, nested=False)


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
        return json.loads(_TRAILING_COMMAS.sub(_blank, _COMMENTS.sub(_blank, text)))
    except json.JSONDecodeError as e:
        raise DescriptorError(source, f"malformed JSON at line {e.lineno}, column {e.colno}: {e.msg}.") from None
    except RecursionError:
        raise DescriptorError(source, "JSON nested too deeply to read (a descriptor nests a few levels).") from None
    except ValueError:  # an integer literal of more than sys.get_int_max_str_digits() digits
        raise DescriptorError(source, "a JSON integer is too long to read (thousands of digits).") from None


def load(path) -> OperatorDesc:
    """An operator descriptor from a JSON file."""
    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8")
    except OSError as e:
        raise DescriptorError(str(p), f"cannot read the file ({e.strerror}).") from None
    except UnicodeDecodeError:
        raise DescriptorError(str(p), "is not UTF-8 text.") from None
    return from_json(_parse(text, str(p)))


def _from_model(document: dict, path: str) -> OperatorDesc:
    dispatchables = document["dispatchables"]
    if not isinstance(dispatchables, dict):
        raise DescriptorError(f"{path}.dispatchables", f"expected an object; got {_kind(dispatchables)}.")
    dml = {name: d for name, d in dispatchables.items()
           if isinstance(d, dict) and str(d.get("type", "")).upper() not in ("HLSL", "ONNX")}
    if len(dml) != 1:
        names = ", ".join(dml) or "none"
        raise DescriptorError(f"{path}.dispatchables",
                              f"expected exactly one DML operator dispatchable; found {len(dml)} ({names}).")
    name, d = next(iter(dml.items()))
    return _operator(d, f"{path}.dispatchables.{name}", nested=False, allowed=_DISPATCHABLE_KEYS)


# Keys a DxDispatch DML dispatchable may carry next to its type and desc (DxDispatch's JSON model format).
_DISPATCHABLE_KEYS = ("executionFlags", "bindPoints")


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
            raise DescriptorError(f"{path}.{extra[0]}", f"unexpected key next to '{type_key}' and '{desc_key}'.")
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
    total = None if total is None else _integer(total, f"{path}.TotalTensorSizeInBytes")
    total = total or None  # 0 means "compute it" (DxDispatch: DMLCalcBufferTensorSize)
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
