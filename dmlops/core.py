"""OperatorDescCore: what every DML_*_OPERATOR_DESC dataclass is, with no dependence on validation or JSON.

dmlops.base.OperatorDesc (the base of the generated classes in dmlops/descs.py) adds the methods that reach
up to dmlops.validation and dmlops.jsonout; everything below them needs only this core, so the import graph
runs one way: core <- validation, jsonout <- base <- descs.

Construction normalizes what can be represented (lists become tuples, enum names become enum
members) and raises DescriptorError, naming ``OPERATOR.Field``, for what cannot. Everything else
(ranks, data types, feature levels, shape relations) is a validation problem, reported all at once
by ``problems()`` / ``validate()``.
"""
from __future__ import annotations

import dataclasses
import math
import numbers
from typing import ClassVar

from . import schema as _schema
from .errors import DescriptorError
from .types import DataType, ScaleBias, Size2D, TensorDesc, integer_digits

_UINT_MAX = 2**32 - 1
_INT_MIN, _INT_MAX = -(2**31), 2**31 - 1


def _is_int(value) -> bool:
    return isinstance(value, numbers.Integral) and not isinstance(value, bool)  # NumPy integers included


def _is_number(value) -> bool:
    return isinstance(value, numbers.Real) and not isinstance(value, bool)  # NumPy floats included


def _enum_class(name: str):
    from . import enums

    return enums.ENUMS[name]


class OperatorDescCore:
    """The fields of an operator descriptor, checked and normalized at construction. Every descriptor is a
    dmlops.base.OperatorDesc, which adds problems(), validate() and to_json(); test ``isinstance`` against this
    class only in modules that dmlops.base itself imports."""

    OPERATOR_TYPE: ClassVar[str]
    FIELD_NAMES: ClassVar[dict[str, str]]  # Python name -> DML name

    def __post_init__(self):
        for f in self.schema().user_fields:
            path = f"{self.OPERATOR_TYPE}.{f.name}"
            value = getattr(self, f.py_name)
            object.__setattr__(self, f.py_name, _coerce(f, value, path))

    @classmethod
    def schema(cls) -> _schema.OpSchema:
        """The operator's schema (fields, support tiers, constraints) from its descriptor file."""
        return _schema.get(cls.OPERATOR_TYPE)

    def count(self, count_field: str) -> int:
        """The value DirectML derives for a count field (``ActivationDescCount``) from its arrays."""
        for f in self.schema().fields:
            if f.count_field == count_field:
                value = getattr(self, f.py_name)
                return 0 if value is None else len(value)
        raise KeyError(count_field)

    def dml_fields(self) -> dict[str, object]:
        """Every struct member by DML name, in struct order, with count fields derived."""
        out: dict[str, object] = {}
        for f in self.schema().fields:
            if f.name in self.schema().count_fields:
                out[f.name] = self.count(f.name)
            else:
                out[f.name] = getattr(self, f.py_name)
        return out

    def tensors(self) -> dict[str, TensorDesc | tuple[TensorDesc, ...] | None]:
        """The tensor members by DML name (None where an optional tensor is absent)."""
        return {f.name: getattr(self, f.py_name) for f in self.schema().fields if f.is_tensor}

    def replace(self, **changes):
        """A copy with some fields changed (``dataclasses.replace``)."""
        return dataclasses.replace(self, **changes)


def _coerce(f: _schema.FieldSchema, value, path: str):
    t = f.type
    if t == "TENSOR_DESC":
        if value is None or isinstance(value, TensorDesc):
            return value
        raise DescriptorError(path, f"expected a TensorDesc or None; got {type(value).__name__}.")
    if t == "TENSOR_DESC_ARRAY":
        items = _sequence(value, path, "TensorDesc")
        for i, item in enumerate(items):
            if not isinstance(item, TensorDesc):
                raise DescriptorError(f"{path}[{i}]", f"expected a TensorDesc; got {type(item).__name__}.")
        return items
    if t == "OPERATOR_DESC":
        if value is None or isinstance(value, OperatorDescCore):
            return _flat_nested(value, path)
        raise DescriptorError(path, f"expected an operator descriptor (e.g. dmlops.ActivationRelu()) or None; "
                                    f"got {type(value).__name__}.")
    if t == "OPERATOR_DESC_ARRAY":
        items = _sequence(value, path, "operator descriptor")
        for i, item in enumerate(items):
            if not isinstance(item, OperatorDescCore):
                raise DescriptorError(f"{path}[{i}]", f"expected an operator descriptor; got {type(item).__name__}.")
            _flat_nested(item, f"{path}[{i}]")
        return items
    if t == "SCALE_BIAS":
        if value is None or isinstance(value, ScaleBias):
            return value
        raise DescriptorError(path, f"expected a ScaleBias or None; got {type(value).__name__}.")
    if t == "SIZE_2D":
        if isinstance(value, Size2D):
            return value
        raise DescriptorError(path, f"expected a Size2D; got {type(value).__name__}.")
    if t == "SCALAR_UNION":
        if _is_number(value):
            return int(value) if _is_int(value) else as_float(value, path)  # NumPy scalars become Python numbers
        raise DescriptorError(path, f"expected a number; got {value!r}.")
    if f.enum:
        return _enum_class(f.enum).parse(value, path)
    if f.is_bool:
        if isinstance(value, bool):
            return value
        if _is_int(value) and int(value) in (0, 1):
            return bool(value)
        raise DescriptorError(path, f"expected true or false; got {value!r}.")
    if t in ("UINT", "INT", "FLOAT"):
        return _scalar(t, value, path)
    if t in ("UINT_ARRAY", "INT_ARRAY", "FLOAT_ARRAY"):
        scalar = t[: -len("_ARRAY")]
        return tuple(_scalar(scalar, v, f"{path}[{i}]") for i, v in enumerate(_sequence(value, path, scalar.lower())))
    raise AssertionError(f"unhandled field type {t}")  # the schema's enum of types is closed


def _flat_nested(value, path: str):
    """A nested operator (a fused activation, GRU/LSTM/RNN ActivationDescs) is an activation: DirectML nests one
    level only, so a nested operator that holds operators itself is refused here (and nesting stays shallow)."""
    if value is not None:
        held = [f.name for f in value.schema().user_fields
                if f.type in ("OPERATOR_DESC", "OPERATOR_DESC_ARRAY") and getattr(value, f.py_name)]
        if held:
            raise DescriptorError(path, f"{value.OPERATOR_TYPE} holds operators itself ({', '.join(held)}); a nested "
                                        "operator must be an activation such as dmlops.ActivationRelu().")
    return value


def _sequence(value, path: str, what: str) -> tuple:
    if isinstance(value, (str, bytes, dict)) or not hasattr(value, "__iter__"):
        raise DescriptorError(path, f"expected a list of {what} values; got {type(value).__name__}.")
    return tuple(value)


def _scalar(t: str, value, path: str):
    if t == "FLOAT":
        if _is_number(value):
            return as_float(value, path)
        raise DescriptorError(path, f"expected a number; got {value!r}.")
    if not _is_int(value):
        raise DescriptorError(path, f"expected an integer; got {value!r}.")
    value = int(value)
    lo, hi = (0, _UINT_MAX) if t == "UINT" else (_INT_MIN, _INT_MAX)
    if not lo <= value <= hi:
        raise DescriptorError(path, f"{value} is outside the {t} range [{lo}, {hi}].")
    return value


def as_float(value, path: str) -> float:
    """``float(value)``, or a DescriptorError naming ``path`` for an integer too large for any float (10**400)."""
    try:
        return float(value)
    except OverflowError:
        raise DescriptorError(path, f"{scalar_text(value)} is too large for a float.") from None


def scalar_text(value) -> str:
    """``repr(value)`` for a scalar, but a huge integer as "an integer of N digits" (10**400 would print 401 digits,
    and Python refuses to print one of more than 4,300)."""
    if _is_int(value) and abs(int(value)) >= 10**30:
        return f"an integer of {integer_digits(int(value))} digits"
    return repr(value)


# The smallest magnitude that rounds to an infinity in each float type (round to nearest even): FLOAT32's largest
# finite value plus half its last step, 2**128 - 2**103; FLOAT64's, 2**1024 - 2**970. FLOAT16 keeps dmlops' stricter
# rule: at most the largest finite half itself (65504).
_FLOAT_LIMIT = {DataType.FLOAT16: (65504, True), DataType.FLOAT32: (2**128 - 2**103, False),
                DataType.FLOAT64: (2**1024 - 2**970, False)}


def scalar_fits(value, data_type: DataType) -> bool:
    """Whether a DML_SCALAR_UNION value is representable in ``data_type``: an integer type holds the whole numbers of
    its range; a float type holds NaN, the infinities and every finite value that does not round to an infinity.
    Never raises, whatever the size of a Python int (10**400 fits no type)."""
    if data_type.is_float:
        if isinstance(value, float) and (math.isnan(value) or math.isinf(value)):
            return True
        limit, inclusive = _FLOAT_LIMIT.get(data_type, _FLOAT_LIMIT[DataType.FLOAT64])
        magnitude = abs(value)  # compared exactly with the int limit: a huge int never becomes a float
        return magnitude <= limit if inclusive else magnitude < limit
    if isinstance(value, float):
        if not value.is_integer():  # NaN and the infinities included
            return False
        value = int(value)
    bits = data_type.size_in_bits
    signed = data_type.name.startswith("INT")
    lo, hi = (-(2 ** (bits - 1)), 2 ** (bits - 1) - 1) if signed else (0, 2**bits - 1)
    return lo <= value <= hi


def nested_operators(desc) -> list:
    """The operator descs nested in ``desc`` (its fused activation, a recurrent operator's ActivationDescs), in
    field order."""
    out = []
    for f in desc.schema().user_fields:
        value = getattr(desc, f.py_name)
        if f.type == "OPERATOR_DESC" and value is not None:
            out.append(value)
        elif f.type == "OPERATOR_DESC_ARRAY":
            out.extend(value)
    return out
