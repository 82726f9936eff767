"""DirectML's own answers judge the validator and every backend (dmlops/data/directml_vectors/).

* every case DirectML ran is valid at its feature level (6.2), and every descriptor DirectML refused is refused by
  ``dmlops.problems`` (FLOAT64 refusals are the vectors' device lacking FLOAT64, not a descriptor defect);
* every backend (reference, onnxruntime, torch) reproduces DirectML's outputs for every runnable operator, exactly
  unless dmlops/vector_tolerances.py gives a bound and its reason.
"""
import filecmp
from pathlib import Path

import numpy as np
import pytest

import dmlops
from dmlops.lower import runnable
from dmlops.vector_tolerances import tolerance
from dmlops.vectors import DATA, LEVEL, cases, mismatches

SHARED = Path(__file__).resolve().parents[2] / "shared" / "reference" / "directml_vectors"

# Vector cases whose descriptor is not the operator's struct (the generator wrote ELEMENT_WISE_POW with the
# ATensor/BTensor fields of a binary operator): dmlops must refuse to load them, naming the field.
MALFORMED = {
    "ELEMENT_WISE_POW-edge_nan_signed_zero": "$.desc.ATensor: unknown field for ELEMENT_WISE_POW",
    "ELEMENT_WISE_POW-edge_nan_signed_zero_float16": "$.desc.ATensor: unknown field for ELEMENT_WISE_POW",
}

ALL = [c for c in cases() if c.id not in MALFORMED]
REFUSED = [c for c in ALL if c.rejected and not c.float64]
RAN = [c for c in ALL if not c.rejected]
RUNNABLE = set(runnable())
EXECUTED = [c for c in RAN if c.op in RUNNABLE]


@pytest.mark.skipif(not SHARED.is_dir(), reason="../shared/reference/directml_vectors is not present")
def test_the_packaged_copy_is_verbatim():
    names = sorted(p.name for p in SHARED.iterdir())
    assert names == sorted(p.name for p in DATA.iterdir())
    match, mismatch, errors = filecmp.cmpfiles(SHARED, DATA, names, shallow=False)
    assert (mismatch, errors) == ([], [])


# Runnable operators DirectML's answers do not cover, with the reason; their oracles are named.
WITHOUT_VECTORS = {
    "FOLD": "DML_FEATURE_LEVEL_6_4; the vectors' device stops at 6.2 (tests/test_oracle_generators_fold.py: torch's "
            "fold, ONNX Col2Im and the docs' examples)",
    "UNFOLD": "DML_FEATURE_LEVEL_6_4, as FOLD (torch's unfold and the docs' examples)",
    "MULTIHEAD_ATTENTION1": "DML_FEATURE_LEVEL_6_3 (tests/test_oracle_attention.py)",
    "MEAN_VARIANCE_NORMALIZATION2": "DML_FEATURE_LEVEL_6_3 (tests/test_oracle_normalization.py)",
    "RESAMPLE3": "DML_FEATURE_LEVEL_6_4 (tests/test_oracle_resample.py)",
    "QUANTIZE": "DML_FEATURE_LEVEL_6_3 (tests/test_oracle_quantize.py)",
    "DEQUANTIZE": "DML_FEATURE_LEVEL_6_3 (tests/test_oracle_quantize.py)",
    "ELEMENT_WISE_QUANTIZED_LINEAR_ADD": "no vector was recorded (tests/test_oracle_quantize.py)",
    "ROI_ALIGN_GRAD": "no vector was recorded (tests/test_oracle_roi.py: torch autograd)",
    "MATRIX_MULTIPLY_INTEGER": "no vector was recorded (tests/test_oracle_integer_linear.py)",
    "QUANTIZED_LINEAR_MATRIX_MULTIPLY": "no vector was recorded (tests/test_oracle_integer_linear.py)",
    "CONVOLUTION_INTEGER": "no vector was recorded (tests/test_oracle_integer_linear.py)",
    "QUANTIZED_LINEAR_CONVOLUTION": "no vector was recorded (tests/test_oracle_integer_linear.py)",
    "QUANTIZED_LINEAR_AVERAGE_POOLING": "no vector was recorded (tests/test_oracle_integer_linear.py)",
}


def test_the_vectors_cover_the_runnable_operators():
    assert len(cases()) > 1300
    covered = {c.op for c in EXECUTED}
    missing = RUNNABLE - covered - set(WITHOUT_VECTORS)
    assert not missing, f"runnable operators without a DirectML case: {sorted(missing)}"
    assert not covered & set(WITHOUT_VECTORS), "an operator listed WITHOUT_VECTORS has vectors now"


@pytest.mark.parametrize("case_id,message", sorted(MALFORMED.items()))
def test_malformed_vector_descriptors_are_refused_by_name(case_id, message):
    case = next(c for c in cases() if c.id == case_id)
    with pytest.raises(dmlops.DmlOpsError, match=message.replace("$", r"\$").replace(".", r"\.")):
        case.desc()


@pytest.mark.parametrize("case", REFUSED, ids=lambda c: c.id)
def test_descriptors_directml_refused_are_invalid(case):
    found = dmlops.problems(case.desc(), LEVEL)
    assert found, f"DirectML refused this descriptor ({case.rejected}); dmlops accepts it. {case.note}"
    for p in found:  # the project's message shape: the operator, the field, a sentence
        assert str(p).startswith(case.op), str(p)
        assert str(p).endswith("."), str(p)


@pytest.mark.parametrize("case", RAN, ids=lambda c: c.id)
def test_descriptors_directml_ran_are_valid(case):
    assert dmlops.problems(case.desc(), LEVEL) == []


@pytest.mark.parametrize("backend", ["reference", "onnxruntime", "torch"])
@pytest.mark.parametrize("case", EXECUTED, ids=lambda c: c.id)
def test_backend_reproduces_directml(case, backend):
    desc = case.desc()
    got = dmlops.run(desc, case.inputs(), backend=backend, feature_level=LEVEL)
    tol = tolerance(case.op, case.name)
    for name, want in case.outputs(desc).items():
        bad = mismatches(np.asarray(got[name]), want, tol.ulps, tol.rtol, tol.atol,
                         skip=case.unwritten(name, want.shape))
        assert not bad, f"{name} on {backend} differs from DirectML ({tol.why}): " + "; ".join(bad)


@pytest.mark.parametrize("dtype", [np.float32, np.float16])
def test_exact_comparison_checks_the_sign_of_zero(dtype):
    want = np.array([-0.0, 0.0, np.nan, -np.nan, 1.0], dtype)
    assert mismatches(want.copy(), want, 0) == []
    assert mismatches(np.array([0.0, 0.0, -np.nan, np.nan, 1.0], dtype), want, 0) != []  # +0 for -0
    assert mismatches(np.array([-0.0, -0.0, np.nan, np.nan, 1.0], dtype), want, 0) != []  # -0 for +0
    assert mismatches(np.array([-0.0, 0.0, -np.nan, np.nan, 1.0], dtype), want, 0) == []  # any NaN meets NaN
    assert mismatches(np.array([0.0, -0.0, np.nan, np.nan, 1.0], dtype), want, 1) == []  # a bound: one zero
