"""Limits derived from the descriptor files, for every operator and support tier.

For each tier: a rank just outside its range and a data type outside its list, for every tensor,
each yield the documented message; and a level below `introduced` yields the introduction message.
Expected texts are computed here from the raw JSON files, independently of dmlops.schema.
"""
import json
from pathlib import Path

import pytest

from dmlops import FeatureLevel, problems
from dmlops import schema as S

from . import factory

FOLDER = Path(__file__).resolve().parent.parent / "descriptors"
RAW = {p.stem.upper(): json.loads(p.read_text()) for p in FOLDER.glob("[a-z]*.json")}
LATEST = "DML_FEATURE_LEVEL_6_4"
CASES = [(op, i) for op in sorted(RAW) for i in range(len(RAW[op]["support"]))]
PROBE_TYPES = ["FLOAT64", "INT8", "UINT64", "FLOAT16", "FLOAT32", "UINT32", "INT16", "UINT16", "UINT8", "INT32", "INT64", "UINT4", "INT4"]


def key(level):
    return tuple(int(x) for x in level.split("_")[-2:])


def ranks(counts):
    counts = sorted(counts)
    if len(counts) > 1 and counts == list(range(counts[0], counts[-1] + 1)):
        return f"{counts[0]} to {counts[-1]}"
    return ", ".join(map(str, counts))


def later_tiers(op, tier):
    group = tier.get("functions")
    return sorted((t for t in RAW[op]["support"] if t.get("functions") == group and key(t["from"]) > key(tier["from"])),
                  key=lambda t: key(t["from"]))


def tensor_paths(op, name):
    field = next(f for f in RAW[op]["fields"] if f["name"] == name)
    return [f"{name}[0]", f"{name}[1]"] if field["type"] == "TENSOR_DESC_ARRAY" else [name]


def instance(op, index, name, **tensor):
    tier = S.get(op).support[index]
    base = factory.build(op, tier)
    f = base.schema().field(name)
    support = tier.tensors[name]
    t = factory.tensor_for(support, **tensor)
    value = (t, t) if f.type == "TENSOR_DESC_ARRAY" else t
    return base.replace(**{f.py_name: value}), tier.level


@pytest.mark.parametrize("op, index", CASES, ids=[f"{o}-{i}" for o, i in CASES])
def test_rank_just_outside_the_tier(op, index):
    tier = RAW[op]["support"][index]
    for name, sup in tier["tensors"].items():
        counts = sup["dimension_counts"]
        for rank in {max(counts) + 1, min(counts) - 1} - {0}:
            desc, level = instance(op, index, name, rank=rank)
            allows = next((t for t in later_tiers(op, tier) if rank in t["tensors"].get(name, {}).get("dimension_counts", [])), None)
            hint = f"{allows['from']} allows {ranks(allows['tensors'][name]['dimension_counts'])}" if allows \
                else f"no feature level up to {LATEST} allows {rank}"
            messages = [str(p) for p in problems(desc, level)]
            for path in tensor_paths(op, name):
                expected = (f"{op}.{path}: {rank} dimensions not supported at {tier['from']} "
                            f"(supported: {ranks(counts)}); {hint}.")
                assert expected in messages, (expected, messages)


@pytest.mark.parametrize("op, index", CASES, ids=[f"{o}-{i}" for o, i in CASES])
def test_data_type_outside_the_tier(op, index):
    tier = RAW[op]["support"][index]
    for name, sup in tier["tensors"].items():
        if sup["data_types"] is None:  # not documented (FOLD, UNFOLD): nothing to check, see the deviation note
            continue
        dt = next((t for t in PROBE_TYPES if t not in sup["data_types"]), None)
        if dt is None:  # every DirectML data type is allowed (CAST at 6.3): none lies outside
            continue
        desc, level = instance(op, index, name, data_type=dt)
        allows = next((t for t in later_tiers(op, tier) if dt in (t["tensors"].get(name, {}).get("data_types") or [])), None)
        hint = f"{allows['from']} allows it" if allows else f"no feature level up to {LATEST} allows it"
        messages = [str(p) for p in problems(desc, level)]
        for path in tensor_paths(op, name):
            expected = (f"{op}.{path}: DataType {dt} not supported at {tier['from']} "
                        f"(supported: {', '.join(sup['data_types'])}); {hint}.")
            assert expected in messages, (expected, messages)


INTRODUCED_LATER = sorted(op for op in RAW if RAW[op]["introduced"] != "DML_FEATURE_LEVEL_1_0")


@pytest.mark.parametrize("op", INTRODUCED_LATER)
def test_level_below_introduced(op):
    introduced = RAW[op]["introduced"]
    below = max(level for level in FeatureLevel if key(level.dml_name) < key(introduced))
    desc = factory.build(op)
    messages = [str(p) for p in problems(desc, below)]
    assert f"{op} was introduced in {introduced}; the target is {below.dml_name}." in messages


def test_every_level_at_or_above_introduced_has_no_introduction_problem():
    for op in RAW:
        desc = factory.build(op)
        assert not [p for p in problems(desc, "6.4") if p.rule == "introduced"], op
