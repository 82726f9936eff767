"""Validation of operator descriptors against a feature level.

One generic validator driven by the descriptor files (introduced level, support tiers, same-
constraints, required fields, enum members, array counts, nested operator descs), plus the
``check(desc, level)`` hook of the operator's hand-written module in dmlops/ops/ for shape rules.
Every problem is collected; nothing stops at the first.
"""
from __future__ import annotations

import functools

from . import schema as _schema
from .core import OperatorDescCore, scalar_fits, scalar_text
from .schema import ranks_text
from .errors import Problem, ValidationError
from .types import DataType, DmlEnum, FeatureLevel, TensorDesc

# How a nested operator desc is used: it must then have null tensors (dml-fused-activations docs;
# the recurrent operators' activation lists follow the same convention).
FUSED = "a fused activation"
ACTIVATION_LIST = "an activation in ActivationDescs"
# dml-fused-activations: ELEMENT_WISE_CLIP is fusable "for Convolution and GEMM only"; DirectML refuses it on ADD1
# (its vectors: element_wise_add1 fused_clip), and the other fusing operators are held to the same rule.
CLIP_FUSES_INTO = ("CONVOLUTION", "GEMM")


def problems(desc: OperatorDescCore, feature_level) -> list[Problem]:
    """Every problem that makes ``desc`` invalid at ``feature_level`` (a FeatureLevel, "5.1", 0x5100, ...)."""
    if not isinstance(desc, OperatorDescCore):
        raise TypeError(f"expected an operator descriptor (e.g. dmlops.Gru(...)); got {type(desc).__name__}")
    return _problems(desc, FeatureLevel.parse(feature_level), nested=None)


def validate(desc: OperatorDescCore, feature_level) -> None:
    """Raise ValidationError with every problem of ``desc`` at ``feature_level``; return None when valid."""
    found = problems(desc, feature_level)
    if found:
        raise ValidationError(found)


def _problems(desc: OperatorDescCore, level: FeatureLevel, nested: str | None) -> list[Problem]:
    s = desc.schema()
    op = s.operator_type
    out: list[Problem] = []

    def add(field, rule, message):
        out.append(Problem(op, field, rule, message))

    if level < s.introduced:
        add(None, "introduced", f"{op} was introduced in {s.introduced.dml_name}; the target is {level.dml_name}.")

    counted: dict[str, list[tuple[str, int]]] = {}
    for f in s.user_fields:
        value = getattr(desc, f.py_name)
        if f.count_field:
            counted.setdefault(f.count_field, []).append((f.name, len(value)))
        if f.type == "TENSOR_DESC":
            if nested:
                if value is not None:
                    add(f.name, "nested_tensor", f"must be null when {op} is used as {nested}.")
            elif value is None:
                if not f.optional:
                    add(f.name, "required", "is required but missing (null).")
            else:
                for rule, message in value.problems(level, f.kind):
                    add(f.name, rule, message)
        elif f.type == "TENSOR_DESC_ARRAY":
            if not value and not f.optional:
                add(f.name, "required", "needs at least one tensor.")
            for i, t in enumerate(value):
                for rule, message in t.problems(level, f.kind):
                    add(f"{f.name}[{i}]", rule, message)
        elif f.type == "OPERATOR_DESC" and value is not None:
            out.extend(_nested(op, f.name, value, level, FUSED))
        elif f.type == "OPERATOR_DESC_ARRAY":
            for i, item in enumerate(value):
                out.extend(_nested(op, f"{f.name}[{i}]", item, level, ACTIVATION_LIST))
        elif isinstance(value, DmlEnum) and f.enum:
            since = _member_introduced(f.enum, value)
            if level < since:
                add(f.name, "enum", f"{value.dml_name} was introduced in {since.dml_name}; the target is {level.dml_name}.")
            if f.enum == "DML_TENSOR_DATA_TYPE" and value == DataType.UNKNOWN:
                add(f.name, "enum", "DML_TENSOR_DATA_TYPE_UNKNOWN is not a valid data type here.")
        if f.type == "SCALAR_UNION" and f.data_type_field:
            data_type = getattr(desc, _schema.snake_case(f.data_type_field))
            if data_type != DataType.UNKNOWN and not scalar_fits(value, data_type):
                add(f.name, "scalar", f"{scalar_text(value)} is not representable as {f.data_type_field} "
                                       f"{data_type.name}.")

    for count_field, arrays in counted.items():
        lengths = {n for _, n in arrays}
        if len(lengths) > 1:
            listing = ", ".join(f"{name} has {n}" for name, n in arrays)
            add(arrays[0][0], "count", f"arrays counted by {count_field} differ in length ({listing}); they must be equal.")

    if not nested and level >= s.introduced:
        out.extend(_tier_problems(desc, s, level))
    if not nested:
        out.extend(_same_problems(desc, s))
    from .ops import module

    mod = module(op)  # nested descs too: their attribute rules (e.g. SOFTPLUS Steepness) still apply
    if mod is not None and hasattr(mod, "check"):
        out.extend(mod.check(desc, level))
    return out


def _nested(parent: str, field: str, child: OperatorDescCore, level: FeatureLevel, usage: str) -> list[Problem]:
    cs = child.schema()
    out = []
    if usage == FUSED and not cs.fusable_activation:
        fusable = ", ".join(n for n, x in _schema.all_schemas().items() if x.fusable_activation)
        out.append(Problem(parent, field, "fusable", f"{cs.operator_type} cannot be a fused activation (fusable: {fusable})."))
    if usage == FUSED and cs.operator_type == "ELEMENT_WISE_CLIP" and parent not in CLIP_FUSES_INTO:
        out.append(Problem(parent, field, "fusable", f"ELEMENT_WISE_CLIP cannot be fused into {parent}; it is a fused "
                                                     f"activation of {' and '.join(CLIP_FUSES_INTO)} only."))
    if usage == ACTIVATION_LIST and not cs.operator_type.startswith("ACTIVATION_"):
        out.append(Problem(parent, field, "activation", f"{cs.operator_type} is not an activation operator."))
    for p in _problems(child, level, nested=usage):
        out.append(Problem(parent, f"{field}.{p.field}" if p.field else field, p.rule, p.message))
    return out


@functools.cache
def _enum_introduced(enum: str) -> dict[int, FeatureLevel]:
    data = _schema.enums_data()["enums"][enum]
    return {m["value"]: FeatureLevel.parse(m["introduced"]) for m in data["members"]}


def _member_introduced(enum: str, value) -> FeatureLevel:
    return _enum_introduced(enum).get(int(value), FeatureLevel.FL_1_0)


def _tensor_instances(desc: OperatorDescCore, name: str) -> list[tuple[str, TensorDesc]]:
    """(field path, tensor) for a tensor field or each element of a tensor array; absent tensors skipped."""
    f = desc.schema().field(name)
    value = getattr(desc, f.py_name)
    if f.type == "TENSOR_DESC_ARRAY":
        return [(f"{name}[{i}]", t) for i, t in enumerate(value)]
    return [] if value is None else [(name, value)]


def _function(desc: OperatorDescCore) -> str | None:
    value = getattr(desc, "function", None)
    return value.dml_name if isinstance(value, DmlEnum) else None


def _tier_problems(desc: OperatorDescCore, s: _schema.OpSchema, level: FeatureLevel) -> list[Problem]:
    function = _function(desc)
    tier = s.tier_at(level, function)
    if tier is None:
        return []
    later = [t for t in s.tiers_for(function) if t.level > level]
    out = []
    for name, support in tier.tensors.items():
        for path, t in _tensor_instances(desc, name):
            n = t.dimension_count
            if n not in support.dimension_counts:
                allows = next((x for x in later if name in x.tensors and n in x.tensors[name].dimension_counts), None)
                hint = (f"{allows.level.dml_name} allows {ranks_text(allows.tensors[name].dimension_counts)}"
                        if allows else f"no feature level up to {FeatureLevel.latest().dml_name} allows {n}")
                out.append(Problem(s.operator_type, path, "dimension_count",
                                   f"{n} dimensions not supported at {level.dml_name} "
                                   f"(supported: {ranks_text(support.dimension_counts)}); {hint}."))
            dt = t.data_type.name
            if support.data_types is not None and dt not in support.data_types:
                allows = next((x for x in later if name in x.tensors and x.tensors[name].data_types is not None
                               and dt in x.tensors[name].data_types), None)
                hint = (f"{allows.level.dml_name} allows it" if allows
                        else f"no feature level up to {FeatureLevel.latest().dml_name} allows it")
                out.append(Problem(s.operator_type, path, "data_type",
                                   f"DataType {dt} not supported at {level.dml_name} "
                                   f"(supported: {', '.join(support.data_types)}); {hint}."))
    return out


def _join(names: list[str]) -> str:
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


_PROPERTY = {
    "DataType": lambda t: t.data_type.name,
    "DimensionCount": lambda t: t.dimension_count,
    "Sizes": lambda t: list(t.sizes),
}


def _same_problems(desc: OperatorDescCore, s: _schema.OpSchema) -> list[Problem]:
    out = []
    for rule in s.same:
        present = [(path, t) for name in rule.tensors for path, t in _tensor_instances(desc, name)]
        if len(present) < 2:
            continue
        for prop in rule.properties:
            values = [_PROPERTY[prop](t) for _, t in present]
            if any(v != values[0] for v in values):
                got = _join([str(v) for v in values])
                out.append(Problem(s.operator_type, None, "same",
                                   f"{_join([p for p, _ in present])} must have the same {prop}; got {got}."))
    return out


# Helpers for the hand-written check() hooks in dmlops/ops/.

def shape_problem(desc: OperatorDescCore, field: str, found, formula: str, expected) -> Problem:
    """``OP.Field: Sizes [found] do not match {formula} = [expected].``"""
    return Problem(desc.OPERATOR_TYPE, field, "shape",
                   f"Sizes {list(found)} do not match {formula} = {list(expected)}.")


def tensor(desc: OperatorDescCore, name: str) -> TensorDesc | None:
    """A tensor member by DML name (None when absent)."""
    return getattr(desc, _schema.snake_case(name))
