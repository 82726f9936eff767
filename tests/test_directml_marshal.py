"""Marshalling descriptors into DirectML's C structs (dmlops/backends/directml/marshal.py).

Every operator type, at every support tier, in two versions (tests/factory.py's instance, and one with a distinct
value in every field so a swapped or dropped field shows), and every op module's SAMPLES: marshalled, then read back
by following the pointers, equal to the descriptor. FLOAT members are C floats, so the expectation is the descriptor
with its floats rounded to float32 (FLOAT16 scalars to half), done here with ``struct``. A few structs are also
checked byte by byte at the offsets of DirectML.h (tests/data/dml_struct_layouts.json).
"""
import ctypes
import gc
import json
import struct
import sys
from pathlib import Path

import pytest

import dmlops
from dmlops import schema as S
from dmlops.backends.directml import structs as M
from dmlops.backends.directml.marshal import Marshalled, marshal, marshal_graph, read_back
from dmlops.enums import ENUMS
from dmlops.errors import DescriptorError, DmlOpsError
from dmlops.graph import GraphDesc, InputEdge, IntermediateEdge, OutputEdge
from dmlops.ops import module
from dmlops.types import DataType, ScaleBias, Size2D, TensorDesc, TensorFlags

sys.path.insert(0, str(Path(__file__).resolve().parent))
import factory  # noqa: E402

LAYOUTS = json.loads((Path(__file__).resolve().parent / "data" / "dml_struct_layouts.json").read_text())
LAYOUT = {s["struct"]: {f["name"]: f for f in s["fields"]} | {"": s} for s in LAYOUTS["structs"]}
OP_VALUES = LAYOUTS["enums"]["DML_OPERATOR_TYPE"]
SCHEMAS = S.all_schemas()


# --- expected values -------------------------------------------------------------------------------------------

def f32(x: float) -> float:
    return struct.unpack("<f", struct.pack("<f", x))[0]


def f16(x: float) -> float:
    return struct.unpack("<e", struct.pack("<e", x))[0]


def as_stored(desc):
    """``desc`` with every value as the C struct holds it: FLOAT members float32, FLOAT16 scalars half."""
    changes = {}
    for f in desc.schema().user_fields:
        v = getattr(desc, f.py_name)
        if f.type == "FLOAT":
            v = f32(v)
        elif f.type == "FLOAT_ARRAY":
            v = tuple(f32(x) for x in v)
        elif f.type == "SCALE_BIAS" and v is not None:
            v = ScaleBias(f32(v.scale), f32(v.bias))
        elif f.type == "SCALAR_UNION":
            dt = getattr(desc, desc.schema().field(f.data_type_field).py_name)
            v = f32(v) if dt == DataType.FLOAT32 else f16(v) if dt == DataType.FLOAT16 else v
        elif f.type == "OPERATOR_DESC" and v is not None:
            v = as_stored(v)
        elif f.type == "OPERATOR_DESC_ARRAY":
            v = tuple(as_stored(x) for x in v)
        changes[f.py_name] = v
    return desc.replace(**changes)


# --- instances -------------------------------------------------------------------------------------------------

# (data type, value) pairs for DML_SCALAR_UNION members, each exercising a different union member
SCALARS = [(DataType.FLOAT32, 0.1), (DataType.FLOAT16, -0.333), (DataType.FLOAT64, 0.1), (DataType.INT8, -128),
           (DataType.UINT8, 255), (DataType.INT16, -32768), (DataType.UINT16, 65535), (DataType.INT32, -7),
           (DataType.UINT32, 2**32 - 1), (DataType.INT64, -(2**63)), (DataType.UINT64, 2**64 - 1)]


def distinct(op: str, tier, k: int = 0):
    """An instance of ``op`` with a different value in every field (not a valid descriptor: marshalling only)."""
    s = SCHEMAS[op]
    counter = iter(range(1, 10_000))
    arrays = 3  # arrays sharing a count field must have one length
    kwargs = {}

    def tensor(rank):
        n = next(counter)
        sizes = [n + i for i in range(rank)]
        strides = None if n % 2 else [rank - i + n for i in range(rank)]  # every other tensor strided
        return TensorDesc(DataType.FLOAT16 if n % 3 == 0 else DataType.FLOAT32, sizes, strides,
                          flags=TensorFlags.OWNED_BY_DML if n % 4 == 1 else TensorFlags.NONE,
                          total_tensor_size_in_bytes=4096 + 4 * n, guaranteed_base_offset_alignment=16 if n % 2 else 0)

    scalar_type, scalar_value = SCALARS[k % len(SCALARS)]
    for f in s.user_fields:
        support = tier.tensors.get(f.name)
        rank = factory.rank_for(support.dimension_counts) if support else 4
        t = f.type
        if t == "TENSOR_DESC":
            value = tensor(rank)
        elif t == "TENSOR_DESC_ARRAY":
            value = (tensor(rank), tensor(rank), tensor(rank))
        elif t == "OPERATOR_DESC":
            value = dmlops.ActivationLinear(alpha=2.5, beta=-1.25)
        elif t == "OPERATOR_DESC_ARRAY":
            value = (dmlops.ActivationScaledTanh(alpha=0.5, beta=1.5), dmlops.ActivationLeakyRelu(alpha=0.125),
                     dmlops.ActivationSigmoid())
        elif t == "SCALE_BIAS":
            value = ScaleBias(0.5 + next(counter), -2.25)
        elif t == "SIZE_2D":
            value = Size2D(next(counter), next(counter) + 100)
        elif t == "SCALAR_UNION":
            value = scalar_value
        elif f.enum == "DML_TENSOR_DATA_TYPE":
            value = scalar_type
        elif f.enum:
            members = list(ENUMS[f.enum])
            value = members[next(counter) % len(members)]
        elif f.is_bool:
            value = True
        elif t == "UINT":
            value = 1000 + next(counter)
        elif t == "INT":
            value = -1000 - next(counter)
        elif t == "FLOAT":
            value = 0.1 * next(counter)
        elif t == "UINT_ARRAY":
            value = tuple(next(counter) for _ in range(arrays))
        elif t == "INT_ARRAY":
            value = tuple(-next(counter) for _ in range(arrays))
        elif t == "FLOAT_ARRAY":
            value = tuple(0.3 * next(counter) for _ in range(arrays))
        else:
            raise AssertionError(t)
        kwargs[f.py_name] = value
    return dmlops.descs.CLASSES[op](**kwargs)


def tier_cases():
    for op, s in SCHEMAS.items():
        for i, tier in enumerate(s.support):
            fused = dmlops.ActivationRelu() if s.accepts_fused_activation else None
            yield pytest.param(factory.build(op, tier, fused=fused), id=f"{op}-tier{i}-factory")
            yield pytest.param(distinct(op, tier, i), id=f"{op}-tier{i}-distinct")


def sample_cases():
    for op in SCHEMAS:
        for sample in getattr(module(op), "SAMPLES", ()):
            yield pytest.param(sample.desc, id=f"{op}-{sample.name}")


# --- round trips -----------------------------------------------------------------------------------------------

@pytest.mark.parametrize("desc", list(tier_cases()))
def test_every_tier_instance_reads_back(desc):
    assert read_back(marshal(desc)) == as_stored(desc)


@pytest.mark.parametrize("desc", list(sample_cases()))
def test_every_sample_reads_back(desc):
    assert read_back(marshal(desc)) == as_stored(desc)


def test_every_operator_type_is_covered():
    ops = {p.values[0].OPERATOR_TYPE for p in tier_cases()}
    assert ops == set(SCHEMAS) and len(ops) == 177


def test_the_round_trip_can_fail():
    """A field that changed (or was dropped) between marshal and read_back is seen."""
    desc = distinct("GRU", SCHEMAS["GRU"].support[-1])
    m = marshal(desc)
    gru = ctypes.cast(m.desc.Desc, ctypes.POINTER(M.DML_GRU_OPERATOR_DESC)).contents
    gru.LinearBeforeReset = 0
    assert read_back(m) != as_stored(desc)
    gru.LinearBeforeReset = 1
    gru.BiasTensor = None
    assert read_back(m).bias_tensor is None


def test_every_scalar_union_member():
    tier = SCHEMAS["FILL_VALUE_CONSTANT"].support[-1]
    for k, (data_type, value) in enumerate(SCALARS):
        desc = distinct("FILL_VALUE_CONSTANT", tier, k)
        assert desc.value_data_type == data_type
        back = read_back(marshal(desc))
        assert back.value == (f32(value) if data_type == DataType.FLOAT32 else f16(value)
                              if data_type == DataType.FLOAT16 else value), data_type


def test_the_kept_buffers_outlive_the_descriptor():
    desc = distinct("JOIN", SCHEMAS["JOIN"].support[-1])
    expected = as_stored(desc)
    m = marshal(desc)
    del desc
    gc.collect()
    garbage = [(ctypes.c_uint32 * 64)(*range(64)) for _ in range(200)]  # reuse freed memory, if any was freed
    assert read_back(m) == expected and len(garbage) == 200
    assert read_back(m.desc) == expected and read_back(m.pointer) == expected
    only_the_struct = marshal(distinct("GRU", SCHEMAS["GRU"].support[-1])).desc  # the Marshalled object is dropped
    gc.collect()
    garbage = [(ctypes.c_uint32 * 64)(*range(64)) for _ in range(200)]
    assert read_back(only_the_struct) == as_stored(distinct("GRU", SCHEMAS["GRU"].support[-1]))


# --- bytes at DirectML.h's offsets ---------------------------------------------------------------------------

def u32(addr, offset):
    return struct.unpack_from("<I", ctypes.string_at(addr + offset, 4))[0]


def u64(addr, offset):
    return struct.unpack_from("<Q", ctypes.string_at(addr + offset, 8))[0]


def test_buffer_tensor_desc_bytes():
    td = TensorDesc("FLOAT16", [2, 3, 5], strides=[20, 5, 1], flags="OWNED_BY_DML", total_tensor_size_in_bytes=256,
                    guaranteed_base_offset_alignment=16)
    m = marshal(dmlops.ElementWiseIdentity(input_tensor=td, output_tensor=TensorDesc("FLOAT16", [2, 3, 5])))
    assert m.desc.Type == OP_VALUES["DML_OPERATOR_ELEMENT_WISE_IDENTITY"] == 1
    op = m.desc.Desc
    tensor = u64(op, 0)  # InputTensor: the first member of DML_ELEMENT_WISE_IDENTITY_OPERATOR_DESC
    assert u32(tensor, 0) == 1  # DML_TENSOR_TYPE_BUFFER
    buf = u64(tensor, 8)
    # DML_BUFFER_TENSOR_DESC: DataType @0, Flags @4, DimensionCount @8, Sizes @16, Strides @24, Total @32, Align @40
    assert [LAYOUT["DML_BUFFER_TENSOR_DESC"][n]["offset"] for n in (
        "DataType", "Flags", "DimensionCount", "Sizes", "Strides", "TotalTensorSizeInBytes",
        "GuaranteedBaseOffsetAlignment")] == [0, 4, 8, 16, 24, 32, 40]
    assert u32(buf, 0) == 2  # DML_TENSOR_DATA_TYPE_FLOAT16
    assert u32(buf, 4) == 1  # DML_TENSOR_FLAG_OWNED_BY_DML
    assert u32(buf, 8) == 3
    assert ctypes.string_at(u64(buf, 16), 12) == struct.pack("<3I", 2, 3, 5)
    assert ctypes.string_at(u64(buf, 24), 12) == struct.pack("<3I", 20, 5, 1)
    assert u64(buf, 32) == 256
    assert u32(buf, 40) == 16
    out_buf = u64(u64(op, 8), 8)  # OutputTensor: packed, so NULL Strides; Total = DMLCalcBufferTensorSize = 60
    assert u64(out_buf, 24) == 0 and u64(out_buf, 32) == 60
    assert u64(op, 16) == 0  # ScaleBias absent: NULL


def test_gru_struct_bytes_at_the_header_offsets():
    x = TensorDesc("FLOAT32", [1, 7, 2, 3])
    w = TensorDesc("FLOAT32", [1, 1, 12, 3])
    r = TensorDesc("FLOAT32", [1, 1, 12, 4])
    y = TensorDesc("FLOAT32", [7, 1, 2, 4])
    desc = dmlops.Gru(input_tensor=x, weight_tensor=w, recurrence_tensor=r, output_sequence_tensor=y,
                      activation_descs=[dmlops.ActivationSigmoid(), dmlops.ActivationTanh()],
                      direction="BACKWARD", linear_before_reset=True)
    m = marshal(desc)
    assert m.desc.Type == OP_VALUES["DML_OPERATOR_GRU"]
    gru, at = m.desc.Desc, LAYOUT["DML_GRU_OPERATOR_DESC"]
    present = {"InputTensor", "WeightTensor", "RecurrenceTensor", "OutputSequenceTensor"}
    for name in ("InputTensor", "WeightTensor", "RecurrenceTensor", "BiasTensor", "HiddenInitTensor",
                 "SequenceLengthsTensor", "OutputSequenceTensor", "OutputSingleTensor"):
        assert (u64(gru, at[name]["offset"]) != 0) == (name in present), name
    weight = u64(u64(gru, at["WeightTensor"]["offset"]), 8)
    assert ctypes.string_at(u64(weight, 16), 16) == struct.pack("<4I", 1, 1, 12, 3)
    assert u32(gru, at["ActivationDescCount"]["offset"]) == 2
    assert u32(gru, at["Direction"]["offset"]) == LAYOUTS["enums"]["DML_RECURRENT_NETWORK_DIRECTION"][
        "DML_RECURRENT_NETWORK_DIRECTION_BACKWARD"]
    assert u32(gru, at["LinearBeforeReset"]["offset"]) == 1
    acts = u64(gru, at["ActivationDescs"]["offset"])
    size = LAYOUT["DML_OPERATOR_DESC"][""]["size"]
    assert u32(acts, 0) == OP_VALUES["DML_OPERATOR_ACTIVATION_SIGMOID"]
    assert u32(acts, size) == OP_VALUES["DML_OPERATOR_ACTIVATION_TANH"]
    sigmoid = u64(acts, 8)
    assert u64(sigmoid, 0) == 0 and u64(sigmoid, 8) == 0  # a recurrent activation's tensors are NULL


def test_scalar_union_and_scale_bias_bytes():
    out = TensorDesc("FLOAT16", [4])
    m = marshal(dmlops.FillValueConstant(output_tensor=out, value_data_type="FLOAT16", value=0.1))
    value = LAYOUT["DML_FILL_VALUE_CONSTANT_OPERATOR_DESC"]["Value"]["offset"]
    assert ctypes.string_at(m.desc.Desc + value, 8) == bytes([0x66, 0x2E]) + bytes(6)  # 0.1 in IEEE half: 0x2E66
    m = marshal(dmlops.FillValueConstant(output_tensor=TensorDesc("INT8", [4]), value_data_type="INT8", value=-2))
    assert ctypes.string_at(m.desc.Desc + value, 8) == b"\xfe" + bytes(7)
    td = TensorDesc("FLOAT32", [4])
    m = marshal(dmlops.ElementWiseIdentity(input_tensor=td, output_tensor=td, scale_bias=ScaleBias(0.5, -2.0)))
    sb = u64(m.desc.Desc, LAYOUT["DML_ELEMENT_WISE_IDENTITY_OPERATOR_DESC"]["ScaleBias"]["offset"])
    assert ctypes.string_at(sb, 8) == struct.pack("<ff", 0.5, -2.0)


def test_nested_fused_activation_bytes():
    t = TensorDesc("FLOAT32", [1, 1, 2, 2])
    desc = dmlops.ElementWiseAdd1(a_tensor=t, b_tensor=t, output_tensor=t,
                                  fused_activation=dmlops.ActivationLeakyRelu(alpha=0.25))
    m = marshal(desc)
    fused = u64(m.desc.Desc, LAYOUT["DML_ELEMENT_WISE_ADD1_OPERATOR_DESC"]["FusedActivation"]["offset"])
    assert u32(fused, 0) == OP_VALUES["DML_OPERATOR_ACTIVATION_LEAKY_RELU"]
    leaky = u64(fused, 8)
    at = LAYOUT["DML_ACTIVATION_LEAKY_RELU_OPERATOR_DESC"]
    assert u64(leaky, at["InputTensor"]["offset"]) == 0 and u64(leaky, at["OutputTensor"]["offset"]) == 0
    assert ctypes.string_at(leaky + at["Alpha"]["offset"], 4) == struct.pack("<f", 0.25)


def test_count_fields_are_the_array_lengths():
    t = TensorDesc("FLOAT32", [1, 1, 4, 4])
    desc = dmlops.MaxPooling(input_tensor=t, output_tensor=t, strides=[1, 1], window_size=[2, 2],
                             start_padding=[0, 0], end_padding=[1, 1])
    m = marshal(desc)  # held: the struct's pointers live as long as the Marshalled object
    pool = ctypes.cast(m.desc.Desc, ctypes.POINTER(M.DML_MAX_POOLING_OPERATOR_DESC)).contents
    assert pool.DimensionCount == 2 and list(pool.EndPadding[:2]) == [1, 1]
    join = dmlops.Join(input_tensors=[t, t, t], output_tensor=t, axis=1)
    m2 = marshal(join)
    st = ctypes.cast(m2.desc.Desc, ctypes.POINTER(M.DML_JOIN_OPERATOR_DESC)).contents
    assert st.InputCount == 3 and [st.InputTensors[i].Type for i in range(3)] == [1, 1, 1]


# --- errors ----------------------------------------------------------------------------------------------------

def test_arrays_sharing_a_count_must_have_one_length():
    t = TensorDesc("FLOAT32", [1, 1, 4, 4])
    desc = dmlops.MaxPooling(input_tensor=t, output_tensor=t, strides=[1, 1], window_size=[2, 2, 2],
                             start_padding=[0, 0], end_padding=[0, 0])
    with pytest.raises(DescriptorError, match=r"^MAX_POOLING\.WindowSize: has 3 values but Strides has 2; both are "
                                              r"counted by DimensionCount, so they must have the same length\.$"):
        marshal(desc)


def test_values_the_struct_cannot_hold_are_refused():
    t = TensorDesc("INT8", [4])
    with pytest.raises(DescriptorError, match=r"^FILL_VALUE_CONSTANT\.Value: 300 is not representable as INT8\.$"):
        marshal(dmlops.FillValueConstant(output_tensor=t, value_data_type="INT8", value=300))
    big = TensorDesc("FLOAT32", [2**32, 1])
    with pytest.raises(DescriptorError, match=r"^ELEMENT_WISE_IDENTITY\.InputTensor\.Sizes\[0\]: 4294967296 does not "
                                              r"fit a UINT \(0 to 4294967295\)\.$"):
        marshal(dmlops.ElementWiseIdentity(input_tensor=big, output_tensor=t))
    odd = TensorDesc("FLOAT32", [2, 2], strides=[1])
    with pytest.raises(DescriptorError, match=r"^ELEMENT_WISE_IDENTITY\.OutputTensor\.Strides: has 1 values but Sizes "
                                              r"has 2; DirectML reads DimensionCount strides\.$"):
        marshal(dmlops.ElementWiseIdentity(input_tensor=t, output_tensor=odd))
    with pytest.raises(DmlOpsError, match=r"^marshal: expected an operator descriptor .*; got dict\.$"):
        marshal({"type": "GRU"})
    with pytest.raises(DmlOpsError, match=r"^read_back: expected a marshalled DirectML struct .*; got int\.$"):
        read_back(3)


# --- graphs ----------------------------------------------------------------------------------------------------

def _graph():
    t = TensorDesc("FLOAT32", [2, 3])
    relu = dmlops.ActivationRelu(input_tensor=t, output_tensor=t)
    add = dmlops.ElementWiseAdd(a_tensor=t, b_tensor=t, output_tensor=t)
    grad = dmlops.ActivationReluGrad(input_tensor=t, input_gradient_tensor=t, output_gradient_tensor=t)
    return GraphDesc(
        nodes=(relu, add, grad),
        input_edges=(InputEdge(0, 0, 0), InputEdge(1, 1, 1), InputEdge(0, 2, 0)),
        intermediate_edges=(IntermediateEdge(0, 0, 1, 0), IntermediateEdge(1, 0, 2, 1)),
        output_edges=(OutputEdge(2, 0, 0), OutputEdge(1, 0, 1)),
        input_names=("x", "y"), output_names=("g", "s"))


def test_a_graph_marshals_with_its_nodes_and_edges():
    graph = _graph()
    assert graph.problems("6.4") == []
    ops = [0x1000, 0x2000, 0x3000]  # stand-ins for the IDMLOperator pointers CreateOperator would return
    m = marshal_graph(graph, ops)
    g = m.desc
    assert (g.InputCount, g.OutputCount, g.NodeCount) == (2, 2, 3)
    assert (g.InputEdgeCount, g.IntermediateEdgeCount, g.OutputEdgeCount) == (3, 2, 2)
    assert [g.Nodes[k].Type for k in range(3)] == [1, 1, 1]  # DML_GRAPH_NODE_TYPE_OPERATOR
    assert [g.InputEdges[i].Type for i in range(3)] == [1, 1, 1]  # DML_GRAPH_EDGE_TYPE_INPUT
    assert [g.OutputEdges[i].Type for i in range(2)] == [2, 2]
    assert [g.IntermediateEdges[i].Type for i in range(2)] == [3, 3]
    second = ctypes.cast(g.IntermediateEdges[1].Desc, ctypes.POINTER(M.DML_INTERMEDIATE_GRAPH_EDGE_DESC)).contents
    assert (second.FromNodeIndex, second.FromNodeOutputIndex, second.ToNodeIndex, second.ToNodeInputIndex) == (1, 0, 2, 1)
    back = read_back(m)
    assert back == {"input_count": 2, "output_count": 2, "operators": ops,
                    "input_edges": graph.input_edges, "intermediate_edges": graph.intermediate_edges,
                    "output_edges": graph.output_edges}
    assert read_back(marshal_graph(graph))["operators"] == [None, None, None]


def test_a_graph_without_intermediate_edges_has_a_null_array():
    t = TensorDesc("FLOAT32", [4])
    g = marshal_graph(GraphDesc.single(dmlops.ActivationRelu(input_tensor=t, output_tensor=t))).desc
    assert g.IntermediateEdgeCount == 0 and not g.IntermediateEdges
    assert (g.InputEdgeCount, g.OutputEdgeCount, g.NodeCount) == (1, 1, 1)


def test_marshal_graph_wants_one_operator_per_node():
    with pytest.raises(DmlOpsError, match=r"^marshal_graph: 2 IDMLOperator pointers given for a graph of 3 nodes; "
                                          r"give one per node, in GraphDesc\.nodes order\.$"):
        marshal_graph(_graph(), [1, 2])


def test_marshalled_is_the_returned_type():
    t = TensorDesc("FLOAT32", [4])
    m = marshal(dmlops.ActivationRelu(input_tensor=t, output_tensor=t))
    assert isinstance(m, Marshalled) and isinstance(m.desc, M.DML_OPERATOR_DESC) and m.keep
