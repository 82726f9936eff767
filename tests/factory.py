"""Build an instance of any operator descriptor from its schema alone (for tests over all 177 types).

The instance uses, for every tensor, a rank and data type its support tier allows, and simple values
for attributes. It is not meant to pass the hand-written shape rules; tests over all operators
assert on specific problems, never on an empty list.
"""
from __future__ import annotations

import dmlops
from dmlops import schema as S
from dmlops.descs import CLASSES
from dmlops.enums import ENUMS
from dmlops.types import DataType, FeatureLevel, Size2D, TensorDesc


def rank_for(counts) -> int:
    return 4 if 4 in counts else counts[0]


def tensor_for(support: S.TensorSupport | None, rank: int | None = None, data_type: str | None = None) -> TensorDesc:
    if support is None:
        return TensorDesc(data_type or "FLOAT32", [1] * (rank or 4))
    types = support.data_types or ("FLOAT32",)
    return TensorDesc(data_type or types[0], [1] * (rank or rank_for(support.dimension_counts)))


def first_member(enum_name: str, level: FeatureLevel):
    cls = ENUMS[enum_name]
    data = S.enums_data()["enums"][enum_name]["members"]
    for m in data:
        if FeatureLevel.parse(m["introduced"]) <= level and not m["name"].endswith(("_INVALID", "_UNKNOWN")):
            return cls(m["value"])
    return cls(data[0]["value"])


def build(operator: str, tier: S.Tier | None = None, overrides: dict | None = None, fused=None):
    """An instance of ``operator`` shaped after ``tier`` (default: its newest tier)."""
    s = S.get(operator)
    tier = tier or s.support[-1]
    level = tier.level
    kwargs = {}
    for f in s.user_fields:
        support = tier.tensors.get(f.name)
        if f.type == "TENSOR_DESC":
            value = tensor_for(support)
        elif f.type == "TENSOR_DESC_ARRAY":
            value = (tensor_for(support), tensor_for(support))
        elif f.type == "OPERATOR_DESC":
            value = fused
        elif f.type == "OPERATOR_DESC_ARRAY":
            value = (dmlops.ActivationSigmoid(), dmlops.ActivationTanh())
        elif f.type == "SCALE_BIAS":
            value = dmlops.ScaleBias(scale=1.0, bias=0.0)
        elif f.type == "SIZE_2D":
            value = Size2D(1, 1)
        elif f.type == "SCALAR_UNION":
            value = 0
        elif f.enum == "DML_REDUCE_FUNCTION" and tier.functions:
            value = ENUMS[f.enum].parse(sorted(tier.functions)[0])
        elif f.enum == "DML_TENSOR_DATA_TYPE":
            value = DataType.FLOAT32
        elif f.enum:
            value = first_member(f.enum, level)
        elif f.is_bool:
            value = False
        elif f.type in ("UINT", "INT"):
            value = 1
        elif f.type == "FLOAT":
            value = f.default if f.has_default else 1.0
        elif f.type in ("UINT_ARRAY", "INT_ARRAY"):
            value = (1, 1)
        elif f.type == "FLOAT_ARRAY":
            value = (1.0, 1.0)
        else:
            raise AssertionError(f.type)
        kwargs[f.py_name] = value
    kwargs.update(overrides or {})
    return CLASSES[s.operator_type](**kwargs)
