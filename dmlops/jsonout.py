"""Operator descriptors to JSON, in DxDispatch's model format (the writing half of dmlops.jsonio).

Apart from dmlops.jsonio because dmlops.base.OperatorDesc.to_json uses it while the reading half needs the
generated classes (dmlops.descs), which are built on dmlops.base: this module needs only dmlops.core.
"""
from __future__ import annotations

import json

from .core import OperatorDescCore
from .types import DataType, DmlEnum, DmlFlags, ScaleBias, Size2D, TensorDesc

# DxDispatch reads "TotalTensorSizeInBytes": 0 as "compute it", so a size given as 0 (invalid: validation reports it)
# is written as this string, which dmlops.jsonio reads back as 0 and DxDispatch refuses (it is no number).
EXPLICIT_ZERO = "explicit 0"


def to_json(desc: OperatorDescCore) -> dict:
    """``{"type": "DML_OPERATOR_...", "desc": {...}}`` for an operator descriptor."""
    return {"type": "DML_OPERATOR_" + desc.OPERATOR_TYPE, "desc": _desc_fields(desc)}


def dumps(desc: OperatorDescCore, indent: int | None = 2) -> str:
    """The descriptor as a JSON string."""
    return json.dumps(to_json(desc), indent=indent)


def _desc_fields(desc: OperatorDescCore) -> dict:
    out = {}
    for name, value in desc.dml_fields().items():
        if value is None:
            continue
        out[name] = _value_json(value)
    return out


def _value_json(value):
    if isinstance(value, TensorDesc):
        return _tensor_json(value)
    if isinstance(value, OperatorDescCore):
        return {"Type": "DML_OPERATOR_" + value.OPERATOR_TYPE, "Desc": _desc_fields(value)}
    if isinstance(value, ScaleBias):
        return {"Scale": value.scale, "Bias": value.bias}
    if isinstance(value, Size2D):
        return {"Width": value.width, "Height": value.height}
    if isinstance(value, DataType):
        return value.name
    if isinstance(value, DmlFlags):
        return [value.dml_prefix() + n for n in value.names()]
    if isinstance(value, DmlEnum):
        return value.dml_name
    if isinstance(value, tuple):
        return [_value_json(v) for v in value]
    return value


def _tensor_json(t: TensorDesc) -> dict[str, object]:
    out: dict[str, object] = {"DataType": t.data_type.name, "Sizes": list(t.sizes)}
    if t.strides is not None:
        out["Strides"] = list(t.strides)
    if t.flags:
        out["Flags"] = t.flags.names()
    if t.total_tensor_size_in_bytes != t.minimum_size_in_bytes:
        out["TotalTensorSizeInBytes"] = t.total_tensor_size_in_bytes or EXPLICIT_ZERO
    if t.guaranteed_base_offset_alignment:
        out["GuaranteedBaseOffsetAlignment"] = t.guaranteed_base_offset_alignment
    return out
