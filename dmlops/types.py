"""DirectML's basic types: data types, feature levels, tensor flags and DML_BUFFER_TENSOR_DESC.

NumPy is imported only when a NumPy mapping is asked for, so ``import dmlops`` stays light.
"""
from __future__ import annotations

import enum
import math
import numbers
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from .errors import DescriptorError


def integer_digits(value: int) -> int:
    """The number of decimal digits of ``abs(value)``, without str() (Python refuses to print an int of more than
    4,300 digits, and printing 10**400 only to count it is waste)."""
    value = abs(value)
    digits = max(1, int(value.bit_length() * 0.30102999566398120))  # log10(2): exact or one short
    return digits + 1 if value >= 10**digits else digits


class DmlEnum(enum.IntEnum):
    """An IntEnum mirroring a DirectML enum; members are named without the DML prefix."""

    @classmethod
    def dml_prefix(cls) -> str:  # overridden by every concrete enum
        raise NotImplementedError

    @property
    def dml_name(self) -> str:
        """The full DirectML name, e.g. ``DML_REDUCE_FUNCTION_SUM``."""
        return self.dml_prefix() + self.name

    def __str__(self) -> str:
        return self.dml_name

    @classmethod
    def parse(cls, value, path: str = ""):
        """Accept a member, its integer value, its short name (``SUM``) or full name (``DML_REDUCE_FUNCTION_SUM``)."""
        if isinstance(value, cls):
            return value
        if isinstance(value, bool):
            pass
        elif isinstance(value, int):
            try:
                return cls(value)
            except ValueError:
                pass
        elif isinstance(value, str):
            name = value[len(cls.dml_prefix()):] if value.startswith(cls.dml_prefix()) else value
            if name in cls.__members__:
                return cls.__members__[name]
        allowed = ", ".join(m.name for m in cls)
        raise DescriptorError(path, f"{value!r} is not a {cls.dml_prefix().rstrip('_')} value (allowed: {allowed}).")


class DmlFlags(enum.IntFlag):
    """An IntFlag mirroring a DirectML flags enum."""

    @classmethod
    def dml_prefix(cls) -> str:
        raise NotImplementedError

    @classmethod
    def parse(cls, value, path: str = ""):
        """Accept a member, an int, a name, or a list of names (OR'd together), short or full."""
        if isinstance(value, cls):
            return value
        if isinstance(value, int) and not isinstance(value, bool):
            if value & ~sum(m.value for m in cls) == 0:
                return cls(value)
        elif isinstance(value, str):
            name = value[len(cls.dml_prefix()):] if value.startswith(cls.dml_prefix()) else value
            if name in cls.__members__:
                return cls.__members__[name]
        elif isinstance(value, (list, tuple)):
            result = cls(0)
            for item in value:
                name = item[len(cls.dml_prefix()):] if isinstance(item, str) and item.startswith(cls.dml_prefix()) else item
                if not isinstance(name, str) or name not in cls.__members__:
                    break
                result |= cls.__members__[name]
            else:
                return result
        allowed = ", ".join(cls.__members__)
        raise DescriptorError(path, f"{value!r} is not a {cls.dml_prefix().rstrip('_')} value (allowed: {allowed}).")

    def names(self) -> list[str]:
        """Short names of the set flags (``["NONE"]`` when none is set)."""
        return [name for name, m in type(self).__members__.items() if m.value and m in self] or ["NONE"]


class DataType(DmlEnum):
    """DML_TENSOR_DATA_TYPE."""

    UNKNOWN = 0
    FLOAT32 = 1
    FLOAT16 = 2
    UINT32 = 3
    UINT16 = 4
    UINT8 = 5
    INT32 = 6
    INT16 = 7
    INT8 = 8
    FLOAT64 = 9
    UINT64 = 10
    INT64 = 11
    UINT4 = 12
    INT4 = 13

    @classmethod
    def dml_prefix(cls) -> str:
        return "DML_TENSOR_DATA_TYPE_"

    @property
    def size_in_bits(self) -> int:
        """Bits per element (4 for UINT4/INT4, which DirectML packs two to a byte)."""
        return _BITS[self]

    @property
    def is_float(self) -> bool:
        """True for FLOAT16/32/64."""
        return self in (DataType.FLOAT16, DataType.FLOAT32, DataType.FLOAT64)

    @property
    def numpy_dtype(self):
        """The ``numpy.dtype`` that holds this type's values; raises DescriptorError for UNKNOWN.

        NumPy has no 4-bit types: UINT4 / INT4 values travel one per element in uint8 / int8 arrays (0 to 15 /
        -8 to 7; ``dmlops.tensors`` refuses other values and packs two to a byte where DirectML's memory is read
        or written)."""
        import numpy as np

        name = _FOUR_BIT_CARRIERS.get(self.name) or _NUMPY_NAMES.get(self.name)
        if name is None:
            raise DescriptorError("", f"{self.name} has no NumPy dtype.")
        return np.dtype(name)

    @property
    def four_bit_range(self) -> tuple[int, int] | None:
        """(lowest, highest) value of UINT4 / INT4; None for every other type."""
        return {"UINT4": (0, 15), "INT4": (-8, 7)}.get(self.name)

    @classmethod
    def from_numpy(cls, dtype) -> "DataType":
        """The DataType of a NumPy dtype (or anything ``numpy.dtype()`` accepts)."""
        import numpy as np

        name = np.dtype(dtype).name
        for member, np_name in _NUMPY_NAMES.items():
            if np_name == name:
                return cls[member]
        raise DescriptorError("", f"NumPy dtype {name} has no DirectML data type (supported: {', '.join(_NUMPY_NAMES.values())}).")


_BITS = {
    DataType.UNKNOWN: 0, DataType.FLOAT32: 32, DataType.FLOAT16: 16, DataType.UINT32: 32, DataType.UINT16: 16,
    DataType.UINT8: 8, DataType.INT32: 32, DataType.INT16: 16, DataType.INT8: 8, DataType.FLOAT64: 64,
    DataType.UINT64: 64, DataType.INT64: 64, DataType.UINT4: 4, DataType.INT4: 4,
}
_NUMPY_NAMES = {
    "FLOAT32": "float32", "FLOAT16": "float16", "FLOAT64": "float64", "UINT8": "uint8", "UINT16": "uint16",
    "UINT32": "uint32", "UINT64": "uint64", "INT8": "int8", "INT16": "int16", "INT32": "int32", "INT64": "int64",
}
_FOUR_BIT_CARRIERS = {"UINT4": "uint8", "INT4": "int8"}


class FeatureLevel(DmlEnum):
    """DML_FEATURE_LEVEL, ordered. ``FeatureLevel.parse`` takes "5.1", "5_1", "DML_FEATURE_LEVEL_5_1" or 0x5100."""

    FL_1_0 = 0x1000
    FL_2_0 = 0x2000
    FL_2_1 = 0x2100
    FL_3_0 = 0x3000
    FL_3_1 = 0x3100
    FL_4_0 = 0x4000
    FL_4_1 = 0x4100
    FL_5_0 = 0x5000
    FL_5_1 = 0x5100
    FL_5_2 = 0x5200
    FL_6_0 = 0x6000
    FL_6_1 = 0x6100
    FL_6_2 = 0x6200
    FL_6_3 = 0x6300
    FL_6_4 = 0x6400

    @classmethod
    def dml_prefix(cls) -> str:
        return "DML_FEATURE_LEVEL_"

    @property
    def dml_name(self) -> str:
        return "DML_FEATURE_LEVEL_" + self.name[3:]

    @property
    def short(self) -> str:
        """``"5.1"``."""
        return self.name[3:].replace("_", ".")

    @classmethod
    def parse(cls, value, path: str = "") -> "FeatureLevel":
        if isinstance(value, cls):
            return value
        if isinstance(value, int) and not isinstance(value, bool):
            try:
                return cls(value)
            except ValueError:
                pass
        elif isinstance(value, str):
            text = value.strip()
            m = re.fullmatch(r"(?:DML_FEATURE_LEVEL_)?(\d+)[._](\d+)", text, flags=re.I)
            if m:
                name = f"FL_{int(m.group(1))}_{int(m.group(2))}"
                if name in cls.__members__:
                    return cls.__members__[name]
            elif re.fullmatch(r"0x[0-9a-fA-F]+", text):
                return cls.parse(int(text, 16), path)
        allowed = ", ".join(m.short for m in cls)
        raise DescriptorError(path, f"{value!r} is not a DirectML feature level (known: {allowed}).")

    @classmethod
    def latest(cls) -> "FeatureLevel":
        """The highest feature level dmlops knows (DML_FEATURE_LEVEL_6_4)."""
        return max(cls)


class TensorFlags(DmlFlags):
    """DML_TENSOR_FLAGS."""

    NONE = 0
    OWNED_BY_DML = 1

    @classmethod
    def dml_prefix(cls) -> str:
        return "DML_TENSOR_FLAG_"


# DML_TENSOR_DIMENSION_COUNT_MAX (5) holds below DML_FEATURE_LEVEL_3_0, DML_TENSOR_DIMENSION_COUNT_MAX1 (8) from it.
DIMENSION_COUNT_MAX = 5
DIMENSION_COUNT_MAX1 = 8
MAX_BUFFER_BYTES = 2**32  # a D3D12 buffer cannot exceed 4 GiB
MAX_ELEMENTS = 2**32 - 1  # "may not exceed (2^32 - 1) elements" (DML_BUFFER_TENSOR_DESC docs)


def max_dimension_count(level: FeatureLevel) -> int:
    """DML_TENSOR_DIMENSION_COUNT_MAX (5) below DML_FEATURE_LEVEL_3_0, DML_TENSOR_DIMENSION_COUNT_MAX1 (8) from it."""
    return DIMENSION_COUNT_MAX1 if level >= FeatureLevel.FL_3_0 else DIMENSION_COUNT_MAX


def _uint(value, path: str, what: str) -> int:
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):  # ints and NumPy integers, not floats
        raise DescriptorError(path, f"{what} must be an unsigned integer; got {value!r}.")
    value = int(value)
    if not 0 <= value < 2**64:
        raise DescriptorError(path, f"{what} must be an unsigned integer; got {value}.")
    return value


def _uint_tuple(values, path: str, what: str) -> tuple[int, ...]:
    if isinstance(values, (str, bytes)) or not hasattr(values, "__iter__"):
        raise DescriptorError(path, f"{what} must be a list of unsigned integers; got {values!r}.")
    return tuple(_uint(v, f"{path}[{i}]" if path else "", what) for i, v in enumerate(values))


# init=False: the constructor takes more than the fields hold (a DataType by name, Sizes as any sequence,
# TotalTensorSizeInBytes None = computed), and the fields have their normalized types.
@dataclass(frozen=True, init=False)
class TensorDesc:
    """DML_BUFFER_TENSOR_DESC (wrapped in a DML_TENSOR_DESC of type BUFFER).

    ``strides=None`` means packed. ``total_tensor_size_in_bytes=None`` is replaced by the
    DMLCalcBufferTensorSize result; give it only to describe a larger buffer (padding).
    """

    data_type: DataType
    sizes: tuple[int, ...]
    strides: tuple[int, ...] | None
    flags: TensorFlags
    total_tensor_size_in_bytes: int
    guaranteed_base_offset_alignment: int

    def __init__(self, data_type: DataType | str | int, sizes: Iterable[int], strides: Iterable[int] | None = None,
                 flags: TensorFlags | str | int | Sequence[str] = TensorFlags.NONE,
                 total_tensor_size_in_bytes: int | None = None, guaranteed_base_offset_alignment: int = 0) -> None:
        set_ = object.__setattr__
        set_(self, "data_type", DataType.parse(data_type, "DataType"))
        set_(self, "sizes", _uint_tuple(sizes, "Sizes", "Sizes"))
        set_(self, "strides", None if strides is None else _uint_tuple(strides, "Strides", "Strides"))
        set_(self, "flags", TensorFlags.parse(flags, "Flags"))
        set_(self, "guaranteed_base_offset_alignment",
             _uint(guaranteed_base_offset_alignment, "GuaranteedBaseOffsetAlignment", "GuaranteedBaseOffsetAlignment"))
        if total_tensor_size_in_bytes is None:
            set_(self, "total_tensor_size_in_bytes", self.minimum_size_in_bytes)
        else:
            set_(self, "total_tensor_size_in_bytes",
                 _uint(total_tensor_size_in_bytes, "TotalTensorSizeInBytes", "TotalTensorSizeInBytes"))

    @property
    def dimension_count(self) -> int:
        """DimensionCount, derived from Sizes."""
        return len(self.sizes)

    @property
    def element_count(self) -> int:
        """Number of logical elements (product of Sizes)."""
        return math.prod(self.sizes)

    @property
    def packed_strides(self) -> tuple[int, ...]:
        """The strides of a packed tensor of these Sizes."""
        strides, step = [], 1
        for size in reversed(self.sizes):
            strides.append(step)
            step *= size
        return tuple(reversed(strides))

    @property
    def minimum_size_in_bytes(self) -> int:
        """DMLCalcBufferTensorSize: bytes spanned by the last element, rounded up to 4.

        4-bit types are packed two per byte (the docs' listing returns 0 for them; dmlops counts
        ceil(elements / 2) bytes, as the DML_TENSOR_DATA_TYPE page describes the packing).
        """
        if not self.sizes or min(self.sizes) == 0:
            return 0
        if self.strides is None or len(self.strides) != len(self.sizes):
            elements = math.prod(self.sizes)
        else:
            elements = sum((s - 1) * st for s, st in zip(self.sizes, self.strides)) + 1
        size = (elements * self.data_type.size_in_bits + 7) // 8
        return (size + 3) & ~3

    def problems(self, level: FeatureLevel, kind: str = "input") -> list[tuple[str, str]]:
        """The buffer-tensor rules of the DML_BUFFER_TENSOR_DESC page at ``level``, as (rule, message) pairs."""
        out = []
        n = len(self.sizes)
        limit = max_dimension_count(level)
        if self.data_type == DataType.UNKNOWN:
            out.append(("data_type", "DataType UNKNOWN is not a valid tensor data type."))
        if self.data_type in (DataType.UINT4, DataType.INT4) and level < FeatureLevel.FL_6_3:
            out.append(("data_type", f"DataType {self.data_type.name} was introduced in DML_FEATURE_LEVEL_6_3; "
                                     f"the target is {level.dml_name}."))
        if n == 0:
            out.append(("dimension_count", "Sizes is empty; DimensionCount must be at least 1."))
        elif n > limit:
            hint = ("; DML_FEATURE_LEVEL_3_0 allows up to 8 (DML_TENSOR_DIMENSION_COUNT_MAX1)"
                    if n <= DIMENSION_COUNT_MAX1 else "")
            name = "DML_TENSOR_DIMENSION_COUNT_MAX1" if limit == DIMENSION_COUNT_MAX1 else "DML_TENSOR_DIMENSION_COUNT_MAX"
            out.append(("dimension_count", f"{n} dimensions exceed {name} ({limit}) at {level.dml_name}{hint}."))
        if any(s == 0 for s in self.sizes):
            out.append(("sizes", f"Sizes {list(self.sizes)} contain 0; every size must be at least 1."))
        if self.strides is not None and len(self.strides) != n:
            out.append(("strides", f"Strides has {len(self.strides)} values but Sizes has {n}; they must match."))
        if n and all(self.sizes) and self.element_count > MAX_ELEMENTS:
            out.append(("size", f"{self.element_count} elements exceed the limit of 2^32 - 1 elements."))
        minimum = self.minimum_size_in_bytes
        total = self.total_tensor_size_in_bytes
        if total < minimum:
            out.append(("size", f"TotalTensorSizeInBytes {total} is smaller than the {minimum} bytes that Sizes "
                                f"{list(self.sizes)} and Strides {list(self.strides or self.packed_strides)} need."))
        if total % 4:
            out.append(("size", f"TotalTensorSizeInBytes {total} is not a multiple of 4 (DirectML binds DWORD-aligned buffers)."))
        if total > MAX_BUFFER_BYTES:
            out.append(("size", f"TotalTensorSizeInBytes {total} exceeds 4 GiB ({MAX_BUFFER_BYTES} bytes), "
                                "the largest D3D12 buffer."))
        align = self.guaranteed_base_offset_alignment
        element_bytes = max(1, self.data_type.size_in_bits // 8)
        if align and (align & (align - 1) or align < element_bytes):
            out.append(("alignment", f"GuaranteedBaseOffsetAlignment {align} must be 0 or a power of two of at least "
                                     f"the element size ({element_bytes} bytes)."))
        if TensorFlags.OWNED_BY_DML in self.flags and kind != "input":
            out.append(("flags", "DML_TENSOR_FLAG_OWNED_BY_DML can only be used on input tensors."))
        if kind == "output" and self.strides is not None and len(self.strides) == len(self.sizes) and any(
                st == 0 and n > 1 for n, st in zip(self.sizes, self.strides)):
            out.append(("strides", f"Strides {list(self.strides)} broadcast (zero stride); an output's elements "
                                   "cannot share memory."))
        return out


@dataclass(frozen=True)
class ScaleBias:
    """DML_SCALE_BIAS: ``output = Scale * input + Bias`` applied to an element-wise operator's input."""

    scale: float = 1.0
    bias: float = 0.0

    def __post_init__(self):
        for name in ("scale", "bias"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, numbers.Real):
                raise DescriptorError(name.capitalize(), f"must be a number; got {value!r}.")
            try:
                object.__setattr__(self, name, float(value))
            except OverflowError:
                raise DescriptorError(name.capitalize(), f"an integer of {integer_digits(int(value))} digits is too large "
                                                         "for a float.") from None


@dataclass(frozen=True)
class Size2D:
    """DML_SIZE_2D."""

    width: int
    height: int

    def __post_init__(self):
        object.__setattr__(self, "width", _uint(self.width, "Width", "Width"))
        object.__setattr__(self, "height", _uint(self.height, "Height", "Height"))


__all__ = [
    "DataType", "FeatureLevel", "TensorFlags", "TensorDesc", "ScaleBias", "Size2D", "DmlEnum", "DmlFlags",
    "max_dimension_count", "integer_digits",
]
