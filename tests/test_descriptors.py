"""The descriptor files: schema-valid, complete, and in agreement with ../shared/reference."""
import json
from pathlib import Path

import jsonschema
import pytest

from dmlops import schema as S
from dmlops.enums import ENUMS
from dmlops.types import DataType, FeatureLevel, TensorFlags

ROOT = Path(__file__).resolve().parent.parent
FOLDER = ROOT / "descriptors"
REFERENCE = ROOT.parent / "shared" / "reference"
FILES = sorted(p for p in FOLDER.glob("*.json") if not p.name.startswith("_"))


def test_one_file_per_operator_type():
    assert len(FILES) == 177
    for p in FILES:
        assert json.loads(p.read_text())["operator_type"].lower() + ".json" == p.name


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.stem)
def test_file_is_valid_against_schema(path):
    schema = json.loads((FOLDER / "_schema.json").read_text())
    doc = json.loads(path.read_text())
    assert doc["$schema"] == "_schema.json"
    jsonschema.Draft202012Validator(schema).validate(doc)


def test_schema_rejects_a_broken_file():
    schema = json.loads((FOLDER / "_schema.json").read_text())
    doc = json.loads((FOLDER / "gru.json").read_text())
    doc["fields"][0]["kind"] = "inout"
    with pytest.raises(jsonschema.ValidationError, match="'inout' is not one of"):
        jsonschema.Draft202012Validator(schema).validate(doc)


def test_fields_reference_existing_fields_and_enums():
    enums = S.enums_data()["enums"]
    for s in S.all_schemas().values():
        names = {f.name for f in s.fields}
        for f in s.fields:
            assert f.count_field is None or f.count_field in names, (s.operator_type, f.name)
            assert f.data_type_field is None or f.data_type_field in names, (s.operator_type, f.name)
            assert f.enum is None or f.enum in enums, (s.operator_type, f.enum)
        tensors = {f.name for f in s.fields if f.is_tensor}
        for tier in s.support:
            assert set(tier.tensors) <= tensors, s.operator_type
            assert tier.level >= s.introduced, s.operator_type
        for c in s.same:
            assert set(c.tensors) <= tensors, s.operator_type


def test_tiers_ascend_per_function_group():
    for s in S.all_schemas().values():
        groups = {t.functions for t in s.support}
        for g in groups:
            levels = [t.level for t in s.support if t.functions == g]
            assert levels == sorted(set(levels)), s.operator_type


def test_enum_values_unique_and_classes_mirror_enums_json():
    schemas = S.all_schemas().values()
    assert len({s.enum_value for s in schemas}) == 177
    for name, data in S.enums_data()["enums"].items():
        cls = ENUMS[name]
        assert {int(m) for m in cls.__members__.values()} == {m["value"] for m in data["members"]}, name
    assert [m.value for m in DataType] == [m["value"] for m in S.enums_data()["enums"]["DML_TENSOR_DATA_TYPE"]["members"]]
    assert [m.dml_name for m in FeatureLevel] == [m["name"] for m in S.enums_data()["enums"]["DML_FEATURE_LEVEL"]["members"]]
    assert [m.value for m in TensorFlags.__members__.values()] == [m["value"] for m in S.enums_data()["enums"]["DML_TENSOR_FLAGS"]["members"]]


def test_every_deviation_and_note_explains_itself():
    for s in S.all_schemas().values():
        for d in s.deviations:
            assert len(d["why"]) > 40, (s.operator_type, d)


@pytest.mark.skipif(not REFERENCE.is_dir(), reason="../shared/reference is not present")
def test_descriptors_agree_with_reference_except_recorded_deviations():
    from tools.build_descriptors import derive, pointer_get

    derived = derive(REFERENCE)
    assert set(derived) == set(S.all_schemas())
    for p in FILES:
        ours = json.loads(p.read_text())
        ref = derived[ours["operator_type"]]
        allowed = {d["path"]: d for d in ours["deviations"]}
        for path, ref_value in allowed.items():
            assert pointer_get(ref, path) == ref_value["reference"], (p.name, path)
        diffs = list(_diff(ref, ours, ""))
        unexplained = [d for d in diffs if d not in allowed and d != "/deviations"]
        assert not unexplained, f"{p.name}: differs from the reference at {unexplained} without a recorded deviation"


@pytest.mark.skipif(not REFERENCE.is_dir(), reason="../shared/reference is not present")
def test_enums_agree_with_reference():
    from tools.build_descriptors import build_enums

    assert build_enums(REFERENCE) == S.enums_data()


def _diff(a, b, path):
    if isinstance(a, dict) and isinstance(b, dict):
        for k in sorted(set(a) | set(b)):
            if k not in a or k not in b:
                yield f"{path}/{k}"
            else:
                yield from _diff(a[k], b[k], f"{path}/{k}")
    elif isinstance(a, list) and isinstance(b, list) and len(a) == len(b) and any(isinstance(x, (dict, list)) for x in a):
        for i, (x, y) in enumerate(zip(a, b)):
            yield from _diff(x, y, f"{path}/{i}")
    elif a != b:
        yield path
