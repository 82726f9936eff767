"""OperatorDesc: the base of every generated DML_*_OPERATOR_DESC dataclass (dmlops/descs.py).

Construction normalizes what can be represented (lists become tuples, enum names become enum
members) and raises DescriptorError, naming ``OPERATOR.Field``, for what cannot (dmlops.core). Everything else
(ranks, data types, feature levels, shape relations) is a validation problem, reported all at once
by ``problems()`` / ``validate()``.

This module sits above dmlops.validation and dmlops.jsonout, which need only dmlops.core's OperatorDescCore,
so that no import runs back from them to here.
"""
from __future__ import annotations

from . import validation as _validation
from .core import OperatorDescCore, as_float, nested_operators, scalar_fits
from .errors import Problem
from .jsonout import to_json as _to_json

__all__ = ["OperatorDesc", "as_float", "nested_operators", "scalar_fits"]


class OperatorDesc(OperatorDescCore):
    """Base class of the generated operator descriptors. Subclasses are frozen, keyword-only dataclasses."""

    def problems(self, feature_level) -> list[Problem]:
        """Every problem that makes this descriptor invalid at ``feature_level`` (empty when valid)."""
        return _validation.problems(self, feature_level)

    def validate(self, feature_level) -> None:
        """Raise ValidationError listing every problem at ``feature_level``; return None when valid."""
        _validation.validate(self, feature_level)

    def to_json(self) -> dict:
        """This descriptor in DxDispatch's model format: ``{"type": "DML_OPERATOR_...", "desc": {...}}``."""
        return _to_json(self)
