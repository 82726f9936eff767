"""DirectML's own answers (dmlops/data/directml_vectors/, a verbatim copy of the project's reference vectors): loading
the cases and comparing outputs with them. ``dmlops selftest`` and the test suite use them.

A case is a descriptor, its inputs, and either the outputs DirectML computed or the fact that DirectML refused
the descriptor (``rejected``). The README beside the data gives the format and the provenance (DirectML from the
torch-directml 0.2.5.dev240914 Linux wheel on a CPU device, DML_FEATURE_LEVEL_6_2, no FLOAT64).
How closely each operator must match is in dmlops.vector_tolerances.
"""
from __future__ import annotations

import base64
import dataclasses
import functools
import json
from pathlib import Path

import numpy as np

from . import tensors
from .jsonio import from_json

DATA = Path(__file__).resolve().parent / "data" / "directml_vectors"
LEVEL = "6.2"  # the device's highest feature level


def array(a: dict) -> np.ndarray:
    """A vector array: little-endian bytes of ``dtype``, bit-exact."""
    x = np.frombuffer(base64.b64decode(a["data"]), np.dtype(a["dtype"]).newbyteorder("<"))
    return x.astype(a["dtype"]).reshape(a["shape"])


@dataclasses.dataclass(frozen=True)
class Case:
    """One vector case."""

    op: str            # operator type without DML_OPERATOR_
    name: str
    doc: dict          # the case as stored
    note: str

    @property
    def id(self) -> str:
        """``OP-name``, unique over all cases."""
        return f"{self.op}-{self.name}"

    @property
    def rejected(self) -> str | None:
        """How DirectML refused the descriptor (``"E_INVALIDARG at CreateOperator"``), or None when it ran."""
        return self.doc.get("rejected")

    @property
    def float64(self) -> bool:
        """The descriptor has a FLOAT64 tensor (the vectors' device has no FLOAT64: a capability, not a defect)."""
        return "FLOAT64" in json.dumps(self.doc["desc"])

    def desc(self):
        """The descriptor (a DmlOpsError when it does not load)."""
        return from_json(self.doc["desc"])

    def inputs(self) -> dict:
        """The inputs by DML field name, as stored (logical arrays, or 1-D buffers where marked)."""
        return {k: array(v) for k, v in self.doc["inputs"].items()}

    def outputs(self, desc) -> dict:
        """DirectML's outputs as logical arrays (a ``buffer`` output is read through its Strides)."""
        out = {}
        for k, v in self.doc.get("outputs", {}).items():
            a = array(v)
            out[k] = tensors.strided_view(desc.tensors()[k], a) if v.get("buffer") else a
        return out

    def unwritten(self, name: str, shape) -> np.ndarray:
        """A mask of the elements of output ``name`` that DirectML did not write (not to be compared)."""
        mask = np.zeros(int(np.prod(shape)), bool)
        spec = self.doc.get("unwritten", {}).get(name)
        if spec == "all":
            mask[:] = True
        elif spec:
            mask[spec] = True
        return mask.reshape(shape)


@functools.cache
def cases() -> tuple[Case, ...]:
    """Every case of every operator, in file order."""
    out: list[Case] = []
    for path in sorted(DATA.glob("*.json")):
        doc = json.loads(path.read_text())
        op = doc["operator"].removeprefix("DML_OPERATOR_")
        out.extend(Case(op, c["name"], c, c.get("note", "")) for c in doc["cases"])
    return tuple(out)


def ulp_distance(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Units in the last place between two float arrays of one dtype (NaN vs NaN: 0; NaN vs number: huge)."""
    bits = {2: np.int16, 4: np.int32, 8: np.int64}[a.dtype.itemsize]
    ia = a.view(bits).astype(np.int64)
    ib = b.view(bits).astype(np.int64)
    top = np.int64(1) << (8 * a.dtype.itemsize - 1)
    ia = np.where(ia < 0, -(ia + top), ia)  # sign-magnitude to a monotonic integer line
    ib = np.where(ib < 0, -(ib + top), ib)
    d = np.abs(ia - ib)
    both_nan = np.isnan(a) & np.isnan(b)
    one_nan = np.isnan(a) ^ np.isnan(b)
    return np.where(both_nan, 0, np.where(one_nan, np.int64(1) << 40, d))


def mismatches(got: np.ndarray, want: np.ndarray, ulps: int, rtol: float = 0.0, atol: float = 0.0,
               skip: np.ndarray | None = None) -> list[str]:
    """Elements where ``got`` differs from DirectML's ``want``: exactly when ``ulps``, ``rtol`` and ``atol`` are 0
    (the same value with the same sign, so -0.0 must meet -0.0 and +0.0 meet +0.0; any NaN meets any NaN, its
    sign and payload unchecked); otherwise within ``ulps`` ULP or ``atol + rtol * |want|``, where the zeros are
    one value. An element passes if either bound holds; NaN must meet NaN and ±inf the same inf."""
    got = np.asarray(got)
    if got.shape != want.shape or got.dtype != want.dtype:
        return [f"shape/dtype {got.shape} {got.dtype}, DirectML {want.shape} {want.dtype}"]
    if want.dtype.kind == "f":
        d = ulp_distance(got, want)
        ok = d <= ulps
        finite = np.isfinite(want) & np.isfinite(got)
        with np.errstate(invalid="ignore", over="ignore"):
            ok |= finite & (np.abs(got.astype(np.float64) - want.astype(np.float64))
                            <= atol + rtol * np.abs(want.astype(np.float64)))
        if ulps == 0 and rtol == 0 and atol == 0:  # exact: both bounds above put -0.0 and +0.0 at distance 0
            ok &= (np.signbit(got) == np.signbit(want)) | np.isnan(want)
    else:
        ok = got == want
    if skip is not None:
        ok |= skip
    bad = np.argwhere(~ok)
    return [f"{tuple(int(i) for i in idx)}: got {got[tuple(idx)]!r}, DirectML {want[tuple(idx)]!r}" for idx in bad[:5]] + (
        [f"... {len(bad)} elements in all"] if len(bad) > 5 else [])


__all__ = ["Case", "DATA", "LEVEL", "array", "cases", "mismatches", "ulp_distance"]
