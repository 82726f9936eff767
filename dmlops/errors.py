"""Errors and problem records.

Every message has one shape: ``OPERATOR.Field: what was found; what is allowed``, using DirectML's
own (PascalCase) names so users can check it against the DirectML docs.
"""
from __future__ import annotations

from dataclasses import dataclass


class DmlOpsError(ValueError):
    """Base class of every error dmlops raises for bad input."""


class DescriptorError(DmlOpsError):
    """A value cannot be represented in the DirectML struct (wrong type, unknown enum name, bad JSON).

    ``path`` locates the value: a DML field path such as ``GRU.ActivationDescs[1].Alpha`` or a
    JSON path such as ``$.desc.InputTensor.DataType``.
    """

    def __init__(self, path: str, message: str):
        self.path = path
        self.message = message
        super().__init__(f"{path}: {message}" if path else message)


class UnsupportedValue(DmlOpsError):
    """A path refused a value at run time that it cannot compute exactly (e.g. a UINT32 element needing the top
    bit on torch-directml, which carries UINT32 in int32 tensors); the message names the element and the path
    that can (usually ``backend="directml"``). The descriptor itself is fine."""


@dataclass(frozen=True)
class Problem:
    """One reason a descriptor is invalid at a feature level.

    ``operator`` is the DML operator type without prefix (``GRU``), ``field`` the DML field path
    (``InputTensor``, ``ActivationDescs[1]``) or ``None`` for the operator as a whole, ``rule`` a
    short machine-readable id (``introduced``, ``data_type``, ``dimension_count``, ``same``, ...).
    """

    operator: str
    field: str | None
    rule: str
    message: str

    def __str__(self) -> str:
        if self.field:
            return f"{self.operator}.{self.field}: {self.message}"
        if self.message.startswith(self.operator + " "):
            return self.message
        return f"{self.operator}: {self.message}"

    def to_dict(self) -> dict:
        """A JSON-ready dict (used by ``dmlops validate --json``)."""
        return {"operator": self.operator, "field": self.field, "rule": self.rule, "message": str(self)}


class ValidationError(DmlOpsError):
    """A descriptor is invalid at a feature level; ``problems`` lists every reason found."""

    def __init__(self, problems: list[Problem]):
        self.problems = list(problems)
        lines = "\n".join(f"  - {p}" for p in self.problems)
        super().__init__(f"{len(self.problems)} problem(s):\n{lines}")
