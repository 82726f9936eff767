"""Hand-made examples of each operator (an op module's ``SAMPLES``), shared by the tests, the docs and the demo.

A Sample is a descriptor, its inputs by DML name, and (for at least one sample per operator) the
outputs computed by hand. ``atol``/``rtol`` bound backend-vs-reference differences; ``why`` says
where the tolerance comes from. ``float16`` variants are derived: every FLOAT32 tensor becomes
FLOAT16 when the operator's support tier declares FLOAT16 for it.
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import TypedDict

import numpy as np

from .types import DataType, TensorDesc


@dataclass(frozen=True)
class Sample:
    """One example of an operator."""

    name: str
    desc: object
    inputs: dict
    expected: dict | None = None  # outputs by DML name, computed by hand (None: reference only)
    atol: float = 1e-5
    rtol: float = 1e-5
    why: str = "float32 rounding in a different evaluation order"
    float16_atol: float = 2e-3
    float16_rtol: float = 2e-3
    float16: bool = True  # derive a FLOAT16 variant when the tiers declare FLOAT16
    extra: dict = field(default_factory=dict)


class SampleOptions(TypedDict, total=False):
    """Sample's tolerance fields, for a shared ``**options`` (``EXACT: SampleOptions = dict(atol=0, ...)``)."""

    atol: float
    rtol: float
    why: str
    float16_atol: float
    float16_rtol: float
    float16: bool


def _swap(value, old: DataType, new: DataType):
    if isinstance(value, TensorDesc) and value.data_type == old:
        # None: recompute TotalTensorSizeInBytes (TensorDesc.__init__ takes None; mypy checks replace() against the field type)
        return dataclasses.replace(value, data_type=new, total_tensor_size_in_bytes=None)  # type: ignore[arg-type]
    if isinstance(value, tuple) and value and isinstance(value[0], TensorDesc):
        return tuple(_swap(v, old, new) for v in value)
    return value


def with_data_type(desc, old: DataType, new: DataType):
    """``desc`` with every ``old`` tensor turned into ``new`` (TotalTensorSizeInBytes recomputed)."""
    changes = {f.py_name: _swap(getattr(desc, f.py_name), old, new) for f in desc.schema().fields if f.is_tensor}
    return desc.replace(**changes)


def float16_variant(sample: Sample, level) -> Sample | None:
    """The FLOAT16 version of a FLOAT32 sample, or None when the operator does not declare FLOAT16 there."""
    if not sample.float16:
        return None
    desc = with_data_type(sample.desc, DataType.FLOAT32, DataType.FLOAT16)
    if desc == sample.desc or desc.problems(level):
        return None
    with np.errstate(over="ignore"):  # values beyond float16's range become +-inf, as a FLOAT16 tensor holds them
        inputs = {k: (v.astype(np.float16) if isinstance(v, np.ndarray) and v.dtype == np.float32 else v)
                  for k, v in sample.inputs.items()}
    return dataclasses.replace(sample, name=sample.name + "_float16", desc=desc, inputs=inputs, expected=None,
                               atol=sample.float16_atol, rtol=sample.float16_rtol,
                               why="float16 has an 11-bit significand (relative step 9.8e-4)")


def td(data_type: str, sizes, strides=None) -> TensorDesc:
    """Shorthand for samples: ``td("FLOAT32", [2, 3])``."""
    return TensorDesc(data_type, sizes, strides)
