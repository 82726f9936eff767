"""Loads the operator descriptors (descriptors/*.json) into OpSchema objects.

The JSON files are the source of truth; everything here is read-only and cached. In a checkout they live in the
top-level ``descriptors/`` folder; the wheel ships them as ``dmlops/descriptors/`` (pyproject.toml maps the one to
the other), and :func:`descriptor_folder` finds whichever this installation has.
"""
from __future__ import annotations

import functools
import json
import re
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING

from .errors import DescriptorError, DmlOpsError
from .types import FeatureLevel

if TYPE_CHECKING:
    from importlib.resources.abc import Traversable  # Python 3.11+; only read by type checkers


def ranks_text(counts) -> str:
    """Dimension counts the way the docs write them: "4", "1 to 8", "4, 5, 8"."""
    counts = sorted(counts)
    if len(counts) > 1 and counts == list(range(counts[0], counts[-1] + 1)):
        return f"{counts[0]} to {counts[-1]}"
    return ", ".join(map(str, counts))


def snake_case(name: str) -> str:
    """``InputGradientTensor`` → ``input_gradient_tensor``; ``ATensor`` → ``a_tensor``."""
    s = re.sub(r"([A-Z]+)([A-Z][a-z])", r"\1_\2", name)
    s = re.sub(r"([a-z0-9])([A-Z])", r"\1_\2", s)
    return s.lower()


@dataclass(frozen=True)
class FieldSchema:
    """One member of a DML_*_OPERATOR_DESC struct."""

    name: str
    kind: str  # input | output | attribute
    type: str  # the DirectML schema type (TENSOR_DESC, UINT, FLOAT_ARRAY, ...)
    c_type: str
    optional: bool
    enum: str | None = None
    count_field: str | None = None
    data_type_field: str | None = None
    default: object = None
    has_default: bool = False

    @property
    def py_name(self) -> str:
        """The Python (snake_case) field name."""
        return snake_case(self.name)

    @property
    def is_tensor(self) -> bool:
        return self.type in ("TENSOR_DESC", "TENSOR_DESC_ARRAY")

    @property
    def is_bool(self) -> bool:
        return self.c_type == "BOOL" or self.type == "BOOL"


@dataclass(frozen=True)
class TensorSupport:
    """One row of a docs 'Tensor support' table."""

    dimension_counts: tuple[int, ...]
    data_types: tuple[str, ...] | None  # None: not documented
    dimensions: str | None = None


@dataclass(frozen=True)
class Tier:
    """One docs 'Tensor support' table: applies from ``level`` up to the next tier's level."""

    level: FeatureLevel
    tensors: dict  # DML tensor field name -> TensorSupport
    functions: frozenset[str] | None = None  # REDUCE: the DML_REDUCE_FUNCTION names this table covers


@dataclass(frozen=True)
class SameConstraint:
    """"A, B and C must have the same DataType / DimensionCount / Sizes"."""

    tensors: tuple[str, ...]
    properties: tuple[str, ...]


@dataclass(frozen=True)
class OpSchema:
    """Everything dmlops knows about one DirectML operator type, from its descriptor file."""

    operator_type: str
    enum_value: int
    struct_name: str
    introduced: FeatureLevel
    docs_url: str
    supports_in_place: bool
    accepts_fused_activation: bool
    fusable_activation: bool
    fields: tuple[FieldSchema, ...]
    support: tuple[Tier, ...]
    same: tuple[SameConstraint, ...]
    constraints_text: tuple[str, ...]
    notes: tuple[str, ...]
    deviations: tuple[dict, ...]

    @property
    def class_name(self) -> str:
        """The generated Python class name (``ACTIVATION_RELU_GRAD`` → ``ActivationReluGrad``)."""
        return "".join(part.capitalize() for part in self.operator_type.split("_"))

    @property
    def count_fields(self) -> frozenset[str]:
        """Fields that DirectML derives from array lengths (ActivationDescCount, DimensionCount, ...)."""
        return frozenset(f.count_field for f in self.fields if f.count_field)

    @property
    def user_fields(self) -> tuple[FieldSchema, ...]:
        """The fields a user sets (every field but the derived counts)."""
        counts = self.count_fields
        return tuple(f for f in self.fields if f.name not in counts)

    def field(self, name: str) -> FieldSchema:
        """A field by DML name."""
        for f in self.fields:
            if f.name == name:
                return f
        raise KeyError(name)

    def tiers_for(self, function: str | None = None) -> tuple[Tier, ...]:
        """The support tiers that apply (for REDUCE: to the given DML_REDUCE_FUNCTION name), ascending."""
        return tuple(t for t in self.support if t.functions is None or function is None or function in t.functions)

    def tier_at(self, level: FeatureLevel, function: str | None = None) -> Tier | None:
        """The support tier in force at ``level`` (None below the operator's first tier)."""
        found = None
        for tier in self.tiers_for(function):
            if tier.level <= level:
                found = tier
        return found


def _field(d: dict) -> FieldSchema:
    return FieldSchema(
        name=d["name"], kind=d["kind"], type=d["type"], c_type=d["c_type"], optional=d["optional"],
        enum=d.get("enum"), count_field=d.get("count_field"), data_type_field=d.get("data_type_field"),
        default=d.get("default"), has_default="default" in d,
    )


def _tier(d: dict) -> Tier:
    tensors = {
        name: TensorSupport(tuple(t["dimension_counts"]),
                            None if t["data_types"] is None else tuple(t["data_types"]), t.get("dimensions"))
        for name, t in d["tensors"].items()
    }
    functions = frozenset(d["functions"]) if "functions" in d else None
    return Tier(FeatureLevel.parse(d["from"]), tensors, functions)


def _from_json(d: dict) -> OpSchema:
    return OpSchema(
        operator_type=d["operator_type"], enum_value=d["enum_value"], struct_name=d["struct_name"],
        introduced=FeatureLevel.parse(d["introduced"]), docs_url=d["docs_url"],
        supports_in_place=d["supports_in_place"], accepts_fused_activation=d["accepts_fused_activation"],
        fusable_activation=d["fusable_activation"], fields=tuple(_field(f) for f in d["fields"]),
        support=tuple(_tier(t) for t in d["support"]),
        same=tuple(SameConstraint(tuple(s["tensors"]), tuple(s["properties"])) for s in d["same"]),
        constraints_text=tuple(d["constraints_text"]), notes=tuple(d["notes"]), deviations=tuple(d["deviations"]),
    )


@functools.cache
def descriptor_folder() -> Traversable:
    """The folder holding the descriptor JSON files and ``_enums.json``.

    An installed wheel has them as ``dmlops/descriptors/``; a source checkout (run in place, or installed with
    ``pip install -e .``) has them in its top-level ``descriptors/`` folder, next to ``dmlops/``.
    """
    packaged = resources.files("dmlops") / "descriptors"
    if packaged.joinpath("_enums.json").is_file():
        return packaged
    checkout = Path(__file__).resolve().parent.parent / "descriptors"
    if (checkout / "_enums.json").is_file():
        return checkout
    raise DmlOpsError(f"dmlops cannot find its operator descriptors: neither {packaged} (an installed wheel) "
                      f"nor {checkout} (a source checkout) holds _enums.json; reinstall dmlops.")


def descriptor_files() -> list[Traversable]:
    """The descriptor files (Traversable objects), one per operator, sorted by name."""
    folder = descriptor_folder()
    return sorted((p for p in folder.iterdir() if p.name.endswith(".json") and not p.name.startswith("_")),
                  key=lambda p: p.name)


@functools.cache
def all_schemas() -> dict[str, OpSchema]:
    """Every operator schema keyed by operator type (``GRU``), in DML_OPERATOR_TYPE order."""
    schemas = [_from_json(json.loads(p.read_text(encoding="utf-8"))) for p in descriptor_files()]
    return {s.operator_type: s for s in sorted(schemas, key=lambda s: s.enum_value)}


@functools.cache
def enums_data() -> dict:
    """The descriptors' _enums.json."""
    return json.loads(descriptor_folder().joinpath("_enums.json").read_text(encoding="utf-8"))


def operator_name(value: str) -> str:
    """Normalize ``DML_OPERATOR_GRU`` / ``gru`` / ``GRU`` to ``GRU`` (no check that it exists)."""
    name = value.strip().upper()
    return name[len("DML_OPERATOR_"):] if name.startswith("DML_OPERATOR_") else name


def get(operator: str, path: str = "") -> OpSchema:
    """The schema of an operator type given as ``GRU``, ``gru`` or ``DML_OPERATOR_GRU``."""
    schemas = all_schemas()
    name = operator_name(operator) if isinstance(operator, str) else None
    if name not in schemas:
        close = [n for n in schemas if name and (name in n or n in name)][:5]
        hint = f" Did you mean: {', '.join(close)}?" if close else " Run 'dmlops ops' to list them."
        raise DescriptorError(path, f"unknown operator type {operator!r}.{hint}")
    return schemas[name]
