"""The generated ctypes structs (dmlops/backends/directml/structs.py) against DirectML.h's measured layouts.

tests/data/dml_struct_layouts.json is a verbatim copy of ../shared/reference/dml_struct_layouts.json: sizeof, alignof
and offsetof of every struct in DirectML.h, measured with a C compiler for Linux x64 and Windows x64 (identical).
"""
import ctypes
import filecmp
import json
from pathlib import Path

import pytest

from dmlops import schema as S
from dmlops.backends.directml import structs as M

HERE = Path(__file__).resolve().parent
COPY = HERE / "data" / "dml_struct_layouts.json"
SHARED = HERE.parents[1] / "shared" / "reference" / "dml_struct_layouts.json"
LAYOUTS = json.loads(COPY.read_text(encoding="utf-8"))
ALL_LAYOUTS = {s["struct"]: s for s in LAYOUTS["structs"] + LAYOUTS["referenced_d3d12_structs"]}

# Every struct issue 10 names (the operator structs are checked by count below).
NAMED = [
    "DML_BUFFER_TENSOR_DESC", "DML_TENSOR_DESC", "DML_OPERATOR_DESC", "DML_SCALE_BIAS", "DML_SIZE_2D",
    "DML_SCALAR_UNION", "DML_GRAPH_DESC", "DML_GRAPH_NODE_DESC", "DML_OPERATOR_GRAPH_NODE_DESC",
    "DML_CONSTANT_DATA_GRAPH_NODE_DESC", "DML_GRAPH_EDGE_DESC", "DML_INPUT_GRAPH_EDGE_DESC",
    "DML_OUTPUT_GRAPH_EDGE_DESC", "DML_INTERMEDIATE_GRAPH_EDGE_DESC", "DML_BINDING_DESC", "DML_BUFFER_BINDING",
    "DML_BUFFER_ARRAY_BINDING", "DML_BINDING_PROPERTIES", "DML_BINDING_TABLE_DESC", "D3D12_CPU_DESCRIPTOR_HANDLE",
    "D3D12_GPU_DESCRIPTOR_HANDLE", "DML_FEATURE_QUERY_TENSOR_DATA_TYPE_SUPPORT",
    "DML_FEATURE_DATA_TENSOR_DATA_TYPE_SUPPORT", "DML_FEATURE_QUERY_FEATURE_LEVELS", "DML_FEATURE_DATA_FEATURE_LEVELS",
]

# What each C type of the layouts file must be in ctypes (written here, independently of the generator).
_SCALAR = {"UINT": ctypes.c_uint32, "UINT32": ctypes.c_uint32, "INT": ctypes.c_int32, "INT32": ctypes.c_int32,
           "BOOL": ctypes.c_int, "FLOAT": ctypes.c_float, "float": ctypes.c_float, "DOUBLE": ctypes.c_double,
           "UINT64": ctypes.c_uint64, "INT64": ctypes.c_int64, "SIZE_T": ctypes.c_size_t, "INT8": ctypes.c_int8,
           "UINT8": ctypes.c_uint8, "INT16": ctypes.c_int16, "UINT16": ctypes.c_uint16}


def expected_ctype(c_type: str):
    """The ctypes type a DirectML.h field type must map to."""
    if c_type in _SCALAR:
        return _SCALAR[c_type]
    if c_type == "BYTE[8]":
        return ctypes.c_ubyte * 8
    if c_type == "const char*":
        return ctypes.c_char_p
    if c_type == "const void*" or (c_type.endswith("*") and c_type[0] == "I"):  # void* and COM interfaces
        return ctypes.c_void_p
    if c_type in LAYOUTS["enums"]:
        return ctypes.c_uint
    if c_type.startswith("const ") and c_type.endswith("*"):
        return ctypes.POINTER(expected_ctype(c_type[len("const "):-1]))
    return M.STRUCTS[c_type]


def _same_ctype(a, b) -> bool:
    if issubclass(a, ctypes.Array) and issubclass(b, ctypes.Array):
        return a._type_ is b._type_ and a._length_ == b._length_
    return a is b


@pytest.mark.skipif(not SHARED.is_file(), reason="../shared/reference/dml_struct_layouts.json is not present")
def test_the_layouts_copy_is_verbatim():
    assert filecmp.cmp(COPY, SHARED, shallow=False)


def test_every_named_struct_is_generated():
    missing = [n for n in NAMED if not hasattr(M, n) or n not in M.STRUCTS]
    assert missing == []


def test_every_layout_struct_is_generated():
    assert sorted(set(ALL_LAYOUTS) - set(M.STRUCTS)) == []


def test_every_operator_type_has_its_struct():
    schemas = S.all_schemas()
    assert len(schemas) == 177
    assert sorted(M.OPERATOR_STRUCTS) == sorted(schemas)
    for op, s in schemas.items():
        assert M.OPERATOR_STRUCTS[op].__name__ == s.struct_name
        assert M.OPERATOR_TYPE[op] == LAYOUTS["enums"]["DML_OPERATOR_TYPE"][f"DML_OPERATOR_{op}"]


def test_header_aliases_are_defined():
    for alias in LAYOUTS["meta"]["aliases"]:
        assert getattr(M, alias["alias"]) is M.STRUCTS[alias["target"]]


@pytest.mark.parametrize("name", sorted(ALL_LAYOUTS))
def test_layout_matches_the_header(name):
    layout, cls = ALL_LAYOUTS[name], M.STRUCTS[name]
    assert issubclass(cls, ctypes.Union if layout.get("kind") == "union" else ctypes.Structure)
    assert (ctypes.sizeof(cls), ctypes.alignment(cls)) == (layout["size"], layout["align"])
    assert [f[0] for f in cls._fields_] == [f["name"] for f in layout["fields"]]
    for (fname, ftype), f in zip(cls._fields_, layout["fields"]):
        member = getattr(cls, fname)
        assert (member.offset, member.size) == (f["offset"], f["size"]), f"{name}.{fname}"
        assert _same_ctype(ftype, expected_ctype(f["c_type"])), f"{name}.{fname}: {ftype} for {f['c_type']}"


def test_the_layout_check_can_fail():
    """A struct with a field moved (FLOAT where UINT64 belongs) is told apart by size and offsets."""
    class Wrong(ctypes.Structure):
        _fields_ = [(f["name"], ctypes.c_float if f["name"] == "TotalTensorSizeInBytes" else t)
                    for f, (_, t) in zip(ALL_LAYOUTS["DML_BUFFER_TENSOR_DESC"]["fields"], M.DML_BUFFER_TENSOR_DESC._fields_)]
    layout = ALL_LAYOUTS["DML_BUFFER_TENSOR_DESC"]
    assert Wrong.GuaranteedBaseOffsetAlignment.offset != layout["fields"][-1]["offset"]
    assert not _same_ctype(ctypes.c_float, expected_ctype("UINT64"))


def test_enum_values_match_the_header():
    """The DML enums dmlops uses for marshalling (dmlops/enums.py) have the header's values."""
    from dmlops.enums import ENUMS

    for dml, members in LAYOUTS["enums"].items():
        if dml not in ENUMS:
            continue
        cls = ENUMS[dml]
        for name, value in members.items():
            if name in LAYOUTS["enum_info"][dml].get("aliases", {}):
                continue
            assert cls.parse(name).value == value, name
