"""DML_OPERATOR_FILL_VALUE_CONSTANT: every element of OutputTensor = Value (no inputs).

Value is a DML_SCALAR_UNION read as ValueDataType, which "must match OutputTensor.DataType" (checked here;
the descriptor cannot express it). A FLOAT16 Value is rounded to the nearest half.
"""
from __future__ import annotations

import numpy as np

from ..errors import Problem
from ..sample import Sample, td


def check(desc, level) -> list[Problem]:
    """ValueDataType must equal OutputTensor.DataType."""
    out = desc.output_tensor
    if out is not None and desc.value_data_type != out.data_type:
        return [Problem(desc.OPERATOR_TYPE, "ValueDataType", "same",
                        f"{desc.value_data_type.name} must match OutputTensor.DataType ({out.data_type.name}).")]
    return []


def _value(desc) -> np.ndarray:
    # A 0-d array of the output's type holding Value (exact for integers; rounded for FLOAT16/FLOAT32).
    return np.asarray(desc.value, dtype=desc.output_tensor.data_type.numpy_dtype)


def reference(desc, x):
    """np.full of OutputTensor's Sizes."""
    return {"OutputTensor": np.full(desc.output_tensor.sizes, _value(desc))}


def to_onnx(desc, g, x):
    """Expand of a scalar constant to OutputTensor's Sizes."""
    return {"OutputTensor": g.node("Expand", [g.const(_value(desc)), g.ints(desc.output_tensor.sizes)])}


def to_torch(desc, torch, x):
    """The NumPy fill as a CPU tensor: with no inputs, lower_torch is not told the compiled device.

    NumPy holds every value exactly (torch.full's scalar conversion of a uint64 above 2**63 varies by version).
    """
    return {"OutputTensor": torch.from_numpy(np.full(desc.output_tensor.sizes, _value(desc)))}


def _samples():
    from ..descs import FillValueConstant

    def sample(name, t, sizes, value, expected_value):
        desc = FillValueConstant(output_tensor=td(t, sizes), value_data_type=t, value=value)
        y = np.full(sizes, expected_value, dtype=np.dtype(t.lower()))
        return Sample(name, desc, {}, {"OutputTensor": y}, atol=0, rtol=0, why="exact", float16=False)

    return [
        # The docs' example: 13.0 in a FLOAT32 {1, 1, 2, 4} tensor.
        sample("docs_example", "FLOAT32", [1, 1, 2, 4], 13.0, 13.0),
        # 0.1 as FLOAT16 is 1638 / 16384 = 0.0999755859375.
        sample("float16", "FLOAT16", [3], 0.1, 0.0999755859375),
        sample("float64", "FLOAT64", [2], 1 + 2**-40, 1 + 2**-40),
        sample("int32", "INT32", [2, 3], -7, -7),
        sample("int64_min", "INT64", [2], -2**63, -2**63),
        sample("uint64_max", "UINT64", [2], 2**64 - 1, 2**64 - 1),
        sample("uint32_max", "UINT32", [4], 2**32 - 1, 2**32 - 1),
        sample("uint16", "UINT16", [2], 65535, 65535),
        sample("int16", "INT16", [2], -32768, -32768),
        sample("int8", "INT8", [4], -128, -128),
        sample("uint8", "UINT8", [1, 4], 255, 255),
        sample("infinity", "FLOAT32", [2], float("-inf"), -np.inf),
    ]


SAMPLES = _samples()
