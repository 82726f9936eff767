"""The torch dtype of each DirectML DataType (its own module so that the torch backend and the modules it imports can
all use it without an import cycle)."""
from __future__ import annotations

from ..errors import DmlOpsError
from ..types import DataType


def torch_dtype(torch, data_type: DataType):
    """The torch dtype of a DataType, or an error where torch has none."""
    name = {"FLOAT32": "float32", "FLOAT16": "float16", "FLOAT64": "float64", "UINT8": "uint8", "INT8": "int8",
            "INT16": "int16", "INT32": "int32", "INT64": "int64", "UINT16": "uint16", "UINT32": "uint32",
            "UINT64": "uint64", "INT4": "int8", "UINT4": "uint8"}.get(data_type.name)  # 4-bit: DataType.numpy_dtype
    if name is None or not hasattr(torch, name):
        raise DmlOpsError(f"torch: DataType {data_type.name} has no torch dtype in torch {torch.__version__}.")
    return getattr(torch, name)
