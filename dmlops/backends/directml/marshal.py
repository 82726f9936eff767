"""dmlops descriptors as DirectML's C structs, and back.

``marshal(desc)`` fills the generated DML_*_OPERATOR_DESC struct of an operator descriptor (tensors as
DML_TENSOR_DESC → DML_BUFFER_TENSOR_DESC, arrays with their count fields, nested activations, scale-bias,
scalar unions) and wraps it in a DML_OPERATOR_DESC, ready for IDMLDevice::CreateOperator. ``marshal_graph``
does the same for a DML_GRAPH_DESC. Every ctypes object the structs point into is held by the returned
object's ``keep`` list: keep the returned object alive for as long as DirectML may read the struct.

``read_back`` follows the pointers of a marshalled struct and rebuilds the dmlops descriptor, so tests can
check that what DirectML would read is what the descriptor says.
"""
from __future__ import annotations

import ctypes
import struct
from dataclasses import dataclass, field

from ...base import OperatorDesc, scalar_fits
from ...descs import CLASSES
from ...enums import ENUMS, GraphEdgeType, GraphNodeType, TensorType
from ...errors import DescriptorError, DmlOpsError
from ...graph import GraphDesc, InputEdge, IntermediateEdge, OutputEdge
from ...schema import FieldSchema, OpSchema
from ...types import DataType, ScaleBias, Size2D, TensorDesc, TensorFlags
from . import structs as S

_UINT_MAX = 2**32 - 1
_OPERATOR_BY_VALUE = {v: k for k, v in S.OPERATOR_TYPE.items()}
_OPERATOR_BY_STRUCT = {cls: op for op, cls in S.OPERATOR_STRUCTS.items()}
# DML_SCALAR_UNION member read for each data type. FLOAT16 has no member: its IEEE half bits go in the first two
# bytes (as TensorFlow-DirectML fills it); 4-bit types use the 8-bit members.
_SCALAR_MEMBER = {
    DataType.FLOAT32: "Float32", DataType.FLOAT64: "Float64", DataType.FLOAT16: "UInt16",
    DataType.INT8: "Int8", DataType.UINT8: "UInt8", DataType.INT16: "Int16", DataType.UINT16: "UInt16",
    DataType.INT32: "Int32", DataType.UINT32: "UInt32", DataType.INT64: "Int64", DataType.UINT64: "UInt64",
    DataType.INT4: "Int8", DataType.UINT4: "UInt8",
}
_ARRAY_CTYPES = {"UINT_ARRAY": ctypes.c_uint32, "INT_ARRAY": ctypes.c_int32, "FLOAT_ARRAY": ctypes.c_float}


@dataclass
class Marshalled:
    """A DML_OPERATOR_DESC and every ctypes buffer it points into (``keep``); keep this object alive while DirectML
    may read ``desc``."""

    desc: S.DML_OPERATOR_DESC
    keep: list = field(default_factory=list, repr=False)

    @property
    def pointer(self):
        """``POINTER(DML_OPERATOR_DESC)`` to ``desc``, for IDMLDevice::CreateOperator."""
        return ctypes.pointer(self.desc)


@dataclass
class MarshalledGraph:
    """A DML_GRAPH_DESC and every ctypes buffer it points into (``keep``)."""

    desc: S.DML_GRAPH_DESC
    keep: list = field(default_factory=list, repr=False)

    @property
    def pointer(self):
        """``POINTER(DML_GRAPH_DESC)`` to ``desc``, for IDMLDevice1::CompileGraph."""
        return ctypes.pointer(self.desc)


def marshal(desc: OperatorDesc) -> Marshalled:
    """The DML_OPERATOR_DESC of an operator descriptor, with every struct and array it points to kept alive.

    Count fields (DimensionCount, InputCount, ActivationDescCount, ...) are the lengths of their arrays; absent
    optional tensors, scale-biases and fused activations are NULL; packed tensors (``strides=None``) have NULL
    Strides; TotalTensorSizeInBytes is the TensorDesc's. Raises DescriptorError for a value the C struct cannot
    hold (a UINT over 2^32 - 1, a scalar outside its data type, arrays sharing a count with different lengths).
    """
    if not isinstance(desc, OperatorDesc):
        raise DmlOpsError(f"marshal: expected an operator descriptor (e.g. dmlops.ActivationRelu(...)); "
                          f"got {type(desc).__name__}.")
    keep: list = []
    op = _operator(desc, desc.OPERATOR_TYPE, keep)
    op._dmlops_keep = keep  # the struct itself holds its buffers too, should a caller keep only ``.desc``
    return Marshalled(op, keep)


def marshal_graph(graph: GraphDesc, operators=None) -> MarshalledGraph:
    """The DML_GRAPH_DESC of a GraphDesc, for IDMLDevice1::CompileGraph.

    ``operators`` are the IDMLOperator pointers (ints or c_void_p), one per node in ``graph.nodes`` order, made by
    IDMLDevice::CreateOperator from ``marshal(node).desc``; None leaves them NULL (a layout DirectML would refuse,
    for tests). Node and edge names are NULL (optional in DirectML.h).
    """
    if not isinstance(graph, GraphDesc):
        raise DmlOpsError(f"marshal_graph: expected a dmlops.GraphDesc; got {type(graph).__name__}.")
    nodes = len(graph.nodes)
    if operators is None:
        operators = [None] * nodes
    operators = list(operators)
    if len(operators) != nodes:
        raise DmlOpsError(f"marshal_graph: {len(operators)} IDMLOperator pointers given for a graph of {nodes} nodes; "
                          "give one per node, in GraphDesc.nodes order.")
    keep: list = []

    def address(obj) -> int:
        keep.append(obj)
        return ctypes.addressof(obj)

    def array(cls, items, type_, make):
        if not items:
            return None
        arr = (cls * len(items))(*[cls(type_, address(make(item))) for item in items])
        keep.append(arr)
        return ctypes.cast(arr, ctypes.POINTER(cls))

    def operator_node(op):
        value = op.value if isinstance(op, ctypes.c_void_p) else op
        return S.DML_OPERATOR_GRAPH_NODE_DESC(Operator=value, Name=None)

    g = S.DML_GRAPH_DESC(
        InputCount=graph.input_count, OutputCount=graph.output_count, NodeCount=nodes,
        Nodes=array(S.DML_GRAPH_NODE_DESC, operators, int(GraphNodeType.OPERATOR), operator_node),
        InputEdgeCount=len(graph.input_edges),
        InputEdges=array(S.DML_GRAPH_EDGE_DESC, graph.input_edges, int(GraphEdgeType.INPUT),
                         lambda e: S.DML_INPUT_GRAPH_EDGE_DESC(
                             _uint(e.graph_input_index, "GRAPH.InputEdges.GraphInputIndex"),
                             _uint(e.to_node_index, "GRAPH.InputEdges.ToNodeIndex"),
                             _uint(e.to_node_input_index, "GRAPH.InputEdges.ToNodeInputIndex"), None)),
        OutputEdgeCount=len(graph.output_edges),
        OutputEdges=array(S.DML_GRAPH_EDGE_DESC, graph.output_edges, int(GraphEdgeType.OUTPUT),
                          lambda e: S.DML_OUTPUT_GRAPH_EDGE_DESC(
                              _uint(e.from_node_index, "GRAPH.OutputEdges.FromNodeIndex"),
                              _uint(e.from_node_output_index, "GRAPH.OutputEdges.FromNodeOutputIndex"),
                              _uint(e.graph_output_index, "GRAPH.OutputEdges.GraphOutputIndex"), None)),
        IntermediateEdgeCount=len(graph.intermediate_edges),
        IntermediateEdges=array(S.DML_GRAPH_EDGE_DESC, graph.intermediate_edges, int(GraphEdgeType.INTERMEDIATE),
                                lambda e: S.DML_INTERMEDIATE_GRAPH_EDGE_DESC(
                                    _uint(e.from_node_index, "GRAPH.IntermediateEdges.FromNodeIndex"),
                                    _uint(e.from_node_output_index, "GRAPH.IntermediateEdges.FromNodeOutputIndex"),
                                    _uint(e.to_node_index, "GRAPH.IntermediateEdges.ToNodeIndex"),
                                    _uint(e.to_node_input_index, "GRAPH.IntermediateEdges.ToNodeInputIndex"), None)),
    )
    g._dmlops_keep = keep
    return MarshalledGraph(g, keep)


# --- marshalling ---------------------------------------------------------------------------------------------

def _uint(value: int, path: str) -> int:
    if not 0 <= value <= _UINT_MAX:
        raise DescriptorError(path, f"{value} does not fit a UINT (0 to {_UINT_MAX}).")
    return value


def _array(ctype, values, keep: list, path: str):
    """A C array of ``values`` as a typed pointer (NULL for an empty array), kept alive by ``keep``."""
    if not values:
        return None
    if ctype is ctypes.c_uint32:
        values = [_uint(v, f"{path}[{i}]") for i, v in enumerate(values)]
    arr = (ctype * len(values))(*values)
    keep.append(arr)
    return ctypes.cast(arr, ctypes.POINTER(ctype))


def _tensor(td: TensorDesc, keep: list, path: str) -> S.DML_TENSOR_DESC:
    """A DML_TENSOR_DESC of type BUFFER over a kept DML_BUFFER_TENSOR_DESC."""
    if td.strides is not None and len(td.strides) != len(td.sizes):
        raise DescriptorError(path + ".Strides", f"has {len(td.strides)} values but Sizes has {len(td.sizes)}; "
                                                 "DirectML reads DimensionCount strides.")
    buf = S.DML_BUFFER_TENSOR_DESC(
        DataType=int(td.data_type), Flags=int(td.flags), DimensionCount=len(td.sizes),
        Sizes=_array(ctypes.c_uint32, td.sizes, keep, path + ".Sizes"),
        Strides=None if td.strides is None else _array(ctypes.c_uint32, td.strides, keep, path + ".Strides"),
        TotalTensorSizeInBytes=td.total_tensor_size_in_bytes,
        GuaranteedBaseOffsetAlignment=_uint(td.guaranteed_base_offset_alignment, path + ".GuaranteedBaseOffsetAlignment"))
    keep.append(buf)
    return S.DML_TENSOR_DESC(Type=int(TensorType.BUFFER), Desc=ctypes.addressof(buf))


def _pointer_to(obj, keep: list):
    keep.append(obj)
    return ctypes.pointer(obj)


def _struct_array(cls, items, keep: list):
    if not items:
        return None
    arr = (cls * len(items))(*items)
    keep.append(arr)
    return ctypes.cast(arr, ctypes.POINTER(cls))


def _scalar(value, data_type: DataType, path: str) -> S.DML_SCALAR_UNION:
    u = S.DML_SCALAR_UNION()  # zeroed: the bytes past the member are 0
    member = _SCALAR_MEMBER.get(data_type)
    if member is None or not scalar_fits(value, data_type):
        raise DescriptorError(path, f"{value!r} is not representable as {data_type.name}.")
    if data_type == DataType.FLOAT16:
        u.UInt16 = struct.unpack("<H", struct.pack("<e", value))[0]
    elif data_type.is_float:
        setattr(u, member, float(value))
    else:
        setattr(u, member, int(value))
    return u


def _field(desc: OperatorDesc, s: OpSchema, f: FieldSchema, value, keep: list, path: str):
    t = f.type
    if t == "TENSOR_DESC":
        return None if value is None else _pointer_to(_tensor(value, keep, path), keep)
    if t == "TENSOR_DESC_ARRAY":
        return _struct_array(S.DML_TENSOR_DESC, [_tensor(v, keep, f"{path}[{i}]") for i, v in enumerate(value)], keep)
    if t == "OPERATOR_DESC":
        return None if value is None else _pointer_to(_operator(value, path, keep), keep)
    if t == "OPERATOR_DESC_ARRAY":
        return _struct_array(S.DML_OPERATOR_DESC, [_operator(v, f"{path}[{i}]", keep) for i, v in enumerate(value)],
                             keep)
    if t == "SCALE_BIAS":
        return None if value is None else _pointer_to(S.DML_SCALE_BIAS(value.scale, value.bias), keep)
    if t == "SIZE_2D":
        return S.DML_SIZE_2D(_uint(value.width, path + ".Width"), _uint(value.height, path + ".Height"))
    if t == "SCALAR_UNION":
        assert f.data_type_field is not None  # a scalar union is typed by another field
        return _scalar(value, getattr(desc, s.field(f.data_type_field).py_name), path)
    if t in _ARRAY_CTYPES:
        return _array(_ARRAY_CTYPES[t], value, keep, path)
    if f.enum or f.is_bool:
        return int(value)
    return value  # UINT / INT / FLOAT, range-checked when the descriptor was made


def _operator(desc: OperatorDesc, path: str, keep: list) -> S.DML_OPERATOR_DESC:
    s = desc.schema()
    st = S.OPERATOR_STRUCTS[s.operator_type]()
    keep.append(st)
    counts: dict[str, tuple[str, int]] = {}
    for f in s.user_fields:
        value = getattr(desc, f.py_name)
        where = f"{path}.{f.name}"
        if f.count_field:
            n = 0 if value is None else len(value)
            if f.count_field in counts and counts[f.count_field][1] != n:
                first, m = counts[f.count_field]
                raise DescriptorError(where, f"has {n} values but {first} has {m}; both are counted by "
                                             f"{f.count_field}, so they must have the same length.")
            counts.setdefault(f.count_field, (f.name, n))
        setattr(st, f.name, _field(desc, s, f, value, keep, where))
    for name, (_, n) in counts.items():
        setattr(st, name, n)
    return S.DML_OPERATOR_DESC(Type=S.OPERATOR_TYPE[s.operator_type], Desc=ctypes.addressof(st))


# --- reading back --------------------------------------------------------------------------------------------

def read_back(obj):
    """Decode a marshalled struct by following its pointers.

    Takes a Marshalled / MarshalledGraph, a DML_OPERATOR_DESC, a DML_*_OPERATOR_DESC struct, a DML_GRAPH_DESC, or a
    ctypes pointer to one. Returns the dmlops operator descriptor, or for a graph a dict with ``input_count``,
    ``output_count``, ``operators`` (the node IDMLOperator addresses, None for NULL), ``input_edges``,
    ``intermediate_edges`` and ``output_edges`` (dmlops.graph edge records).
    """
    original = obj  # holds the buffers while the pointers are followed
    if isinstance(obj, (Marshalled, MarshalledGraph)):
        obj = obj.desc
    if isinstance(obj, ctypes._Pointer):
        if not obj:
            raise DmlOpsError("read_back: the pointer is NULL.")
        obj = obj.contents
    if isinstance(obj, S.DML_GRAPH_DESC):
        result = _read_graph(obj)
    elif isinstance(obj, S.DML_OPERATOR_DESC):
        result = _read_operator(obj, "DML_OPERATOR_DESC")
    elif type(obj) in _OPERATOR_BY_STRUCT:
        op = _OPERATOR_BY_STRUCT[type(obj)]
        result = _read_struct(obj, CLASSES[op].schema(), op)
    else:
        result = None
    if result is not None:
        del original
        return result
    raise DmlOpsError(f"read_back: expected a marshalled DirectML struct (DML_OPERATOR_DESC, a DML_*_OPERATOR_DESC "
                      f"or DML_GRAPH_DESC); got {type(obj).__name__}.")


def _read_operator(d: S.DML_OPERATOR_DESC, path: str) -> OperatorDesc:
    op = _OPERATOR_BY_VALUE.get(d.Type)
    if op is None:
        raise DescriptorError(path + ".Type", f"{d.Type} is not a DML_OPERATOR_TYPE dmlops knows.")
    if not d.Desc:
        raise DescriptorError(path + ".Desc", f"is NULL for DML_OPERATOR_{op}.")
    st = ctypes.cast(d.Desc, ctypes.POINTER(S.OPERATOR_STRUCTS[op])).contents
    return _read_struct(st, CLASSES[op].schema(), op)


def _read_tensor(t: S.DML_TENSOR_DESC, path: str) -> TensorDesc:
    if t.Type != int(TensorType.BUFFER) or not t.Desc:
        raise DescriptorError(path, f"Type {t.Type} with Desc {t.Desc!r}; expected DML_TENSOR_TYPE_BUFFER and a "
                                    "DML_BUFFER_TENSOR_DESC.")
    b = ctypes.cast(t.Desc, ctypes.POINTER(S.DML_BUFFER_TENSOR_DESC)).contents
    n = b.DimensionCount
    return TensorDesc(
        data_type=DataType(b.DataType), sizes=tuple(b.Sizes[:n]) if b.Sizes else (),
        strides=tuple(b.Strides[:n]) if b.Strides else None, flags=TensorFlags(b.Flags),
        total_tensor_size_in_bytes=b.TotalTensorSizeInBytes,
        guaranteed_base_offset_alignment=b.GuaranteedBaseOffsetAlignment)


def _read_scalar(u: S.DML_SCALAR_UNION, data_type: DataType):
    if data_type == DataType.FLOAT16:
        return struct.unpack("<e", struct.pack("<H", u.UInt16))[0]
    return getattr(u, _SCALAR_MEMBER[data_type])


def _read_struct(st, s: OpSchema, op: str) -> OperatorDesc:
    kwargs = {}
    for f in s.user_fields:
        raw = getattr(st, f.name)
        path = f"{op}.{f.name}"
        count = getattr(st, f.count_field) if f.count_field else None
        t = f.type
        value: object
        if t == "TENSOR_DESC":
            value = _read_tensor(raw.contents, path) if raw else None
        elif t == "TENSOR_DESC_ARRAY":
            assert count is not None  # every array field has a count field
            value = tuple(_read_tensor(raw[i], f"{path}[{i}]") for i in range(count)) if raw else ()
        elif t == "OPERATOR_DESC":
            value = _read_operator(raw.contents, path) if raw else None
        elif t == "OPERATOR_DESC_ARRAY":
            assert count is not None  # every array field has a count field
            value = tuple(_read_operator(raw[i], f"{path}[{i}]") for i in range(count)) if raw else ()
        elif t == "SCALE_BIAS":
            value = ScaleBias(raw.contents.Scale, raw.contents.Bias) if raw else None
        elif t == "SIZE_2D":
            value = Size2D(raw.Width, raw.Height)
        elif t == "SCALAR_UNION":
            assert f.data_type_field is not None  # a scalar union is typed by another field
            value = _read_scalar(raw, DataType(getattr(st, f.data_type_field)))
        elif t in _ARRAY_CTYPES:
            value = tuple(raw[:count]) if raw else ()
        elif f.enum:
            value = ENUMS[f.enum].parse(raw, path)
        elif f.is_bool:
            value = bool(raw)
        else:
            value = raw
        if count is not None and count and not raw:
            raise DescriptorError(path, f"is NULL but {f.count_field} is {count}.")
        kwargs[f.py_name] = value
    return CLASSES[op](**kwargs)


def _edges(pointer, count: int, edge_type: GraphEdgeType, cls, make, path: str) -> tuple:
    out = []
    for i in range(count):
        e = pointer[i]
        if e.Type != int(edge_type) or not e.Desc:
            raise DescriptorError(f"{path}[{i}]", f"Type {e.Type}; expected {edge_type.dml_name} with a Desc.")
        out.append(make(ctypes.cast(e.Desc, ctypes.POINTER(cls)).contents))
    return tuple(out)


def _read_graph(g: S.DML_GRAPH_DESC) -> dict:
    operators = []
    for k in range(g.NodeCount):
        node = g.Nodes[k]
        if node.Type != int(GraphNodeType.OPERATOR):
            raise DescriptorError(f"GRAPH.Nodes[{k}]", f"Type {node.Type}; dmlops marshals operator nodes only.")
        operators.append(ctypes.cast(node.Desc, ctypes.POINTER(S.DML_OPERATOR_GRAPH_NODE_DESC)).contents.Operator)
    return {
        "input_count": g.InputCount,
        "output_count": g.OutputCount,
        "operators": operators,
        "input_edges": _edges(g.InputEdges, g.InputEdgeCount, GraphEdgeType.INPUT, S.DML_INPUT_GRAPH_EDGE_DESC,
                              lambda e: InputEdge(e.GraphInputIndex, e.ToNodeIndex, e.ToNodeInputIndex),
                              "GRAPH.InputEdges"),
        "intermediate_edges": _edges(g.IntermediateEdges, g.IntermediateEdgeCount, GraphEdgeType.INTERMEDIATE,
                                     S.DML_INTERMEDIATE_GRAPH_EDGE_DESC,
                                     lambda e: IntermediateEdge(e.FromNodeIndex, e.FromNodeOutputIndex, e.ToNodeIndex,
                                                                e.ToNodeInputIndex),
                                     "GRAPH.IntermediateEdges"),
        "output_edges": _edges(g.OutputEdges, g.OutputEdgeCount, GraphEdgeType.OUTPUT, S.DML_OUTPUT_GRAPH_EDGE_DESC,
                               lambda e: OutputEdge(e.FromNodeIndex, e.FromNodeOutputIndex, e.GraphOutputIndex),
                               "GRAPH.OutputEdges"),
    }
