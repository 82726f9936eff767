"""DIAGONAL_MATRIX's integer Value (issue 20) against plain Python integer arithmetic, on every backend.

DirectML's rule (dmlops/ops/diagonal_matrix.py): Value, a float32, is truncated toward zero into a 32-bit register
(INT32 for signed types, UINT32 for unsigned ones; saturated there, NaN 0) and an 8- or 16-bit output keeps the low
bits: DirectML's sample_int8_saturates gives 44 for Value 300 in INT8. 64-bit outputs saturate to their own range.
"""
import math

import numpy as np
import pytest

import dmlops
from dmlops.types import TensorDesc

BACKENDS = ("reference", "onnxruntime", "torch")
TYPES = ("INT8", "INT16", "INT32", "INT64", "UINT8", "UINT16", "UINT32", "UINT64")
VALUES = (300.0, -200.7, 127.9, -129.0, 40000.0, 65535.0, 70000.5, -1.0, 3e9, -3e9, 1e30, -1e30, math.nan, 0.0)


def python_value(value: float, data_type: str) -> int:
    """The stored integer, computed with Python integers from the rule above."""
    width, signed = int(data_type.removeprefix("U").removeprefix("INT")), not data_type.startswith("U")
    v = float(np.float32(value))
    if math.isnan(v):
        return 0
    bits = 64 if width == 64 else 32
    lo, hi = (-(2 ** (bits - 1)), 2 ** (bits - 1) - 1) if signed else (0, 2**bits - 1)
    n = min(max(math.trunc(v) if math.isfinite(v) else (hi if v > 0 else lo), lo), hi)
    n %= 2**width  # the low bits
    return n - 2**width if signed and n >= 2 ** (width - 1) else n


def test_the_rule_gives_directml_s_answer():
    from dmlops.vectors import cases

    case = next(c for c in cases() if c.id == "DIAGONAL_MATRIX-sample_int8_saturates")
    desc = case.desc()
    want = case.outputs(desc)["OutputTensor"]
    assert python_value(desc.value, "INT8") == want[0, 0] == 44


@pytest.mark.parametrize("data_type", TYPES)
def test_integer_value_is_truncated_saturated_in_32_bits_and_wrapped(data_type):
    dtype = np.dtype(data_type.lower())
    for value in VALUES:
        desc = dmlops.DiagonalMatrix(output_tensor=TensorDesc(data_type, [2, 3]), offset=1, value=value)
        want = np.zeros((2, 3), dtype)
        want[0, 1] = want[1, 2] = python_value(value, data_type)
        for backend in BACKENDS:
            got = np.asarray(dmlops.run(desc, {}, backend=backend)["OutputTensor"])
            assert got.dtype == dtype, backend
            np.testing.assert_array_equal(got, want, err_msg=f"{data_type} Value {value} on {backend}")


def test_examples_by_hand():
    assert [python_value(v, "INT8") for v in (300, -200.7, 127.9, -129)] == [44, 56, 127, 127]
    assert [python_value(v, "UINT8") for v in (300, -1, 1e30)] == [44, 0, 255]
    assert [python_value(v, "INT16") for v in (40000, 70000.5)] == [-25536, 4464]
    assert [python_value(v, "INT32") for v in (3e9, -3e9)] == [2**31 - 1, -2**31]
    assert [python_value(v, "UINT64") for v in (1e30, -5)] == [2**64 - 1, 0]
