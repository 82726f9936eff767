"""A sample never expects what DirectML does not do.

The shared vectors hold DirectML's own outputs (or its refusal) for every dmlops sample DirectML disagreed with,
as ``sample_<name>`` cases. Wherever such a sample still exists with the same descriptor and inputs, its
hand-computed ``expected`` values must be DirectML's outputs (within the operator's vector tolerance), and a
descriptor DirectML refused must not be a sample any more (samples are valid descriptors that run).
"""
import warnings

import numpy as np
import pytest

from dmlops.ops import module
from dmlops.sample import float16_variant
from dmlops.types import FeatureLevel
from dmlops.vector_tolerances import tolerance
from dmlops.vectors import cases, mismatches

SAMPLE_CASES = [c for c in cases() if c.name.startswith("sample_")]


def _samples(op: str) -> dict:
    found = {}
    for s in getattr(module(op), "SAMPLES", ()):
        found[s.name] = s
        variant = float16_variant(s, FeatureLevel.latest())
        if variant is not None:
            found[variant.name] = variant
    return found


def _same_inputs(a: dict, b: dict) -> bool:
    return a.keys() == b.keys() and all(
        np.asarray(a[k]).dtype == np.asarray(b[k]).dtype and np.array_equal(np.asarray(a[k]), np.asarray(b[k]),
                                                                            equal_nan=True) for k in a)


def test_there_are_sample_cases():
    assert len(SAMPLE_CASES) == 118


def test_float16_variants_of_huge_values_give_inf_without_a_warning():
    from dmlops.ops import element_wise_round

    s = next(s for s in element_wise_round.SAMPLES if s.name == "specials_toward_infinity")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        variant = float16_variant(s, FeatureLevel.latest())
    assert variant is not None
    x = variant.inputs["InputTensor"]
    big = np.abs(s.inputs["InputTensor"]) > 65504
    assert big.any() and np.isinf(x[big]).all()


@pytest.mark.parametrize("case", SAMPLE_CASES, ids=lambda c: c.id)
def test_a_sample_expects_what_directml_computed(case):
    sample = _samples(case.op).get(case.name.removeprefix("sample_"))
    if sample is None:
        return  # renamed or removed: nothing left that could expect the wrong thing
    desc = case.desc()
    if sample.desc != desc or not _same_inputs(sample.inputs, case.inputs()):
        return  # changed since DirectML ran it: the vectors say nothing about it
    assert not case.rejected, f"DirectML refused this sample's descriptor ({case.rejected}); it must not be a sample"
    if sample.expected is None:
        return
    tol = tolerance(case.op, case.name)
    for name, want in case.outputs(desc).items():
        if name not in sample.expected:
            continue
        got = np.asarray(sample.expected[name])
        bad = mismatches(got.astype(want.dtype).reshape(want.shape), want, tol.ulps, tol.rtol, tol.atol,
                         skip=case.unwritten(name, want.shape))
        assert not bad, f"{case.op} sample {sample.name}: expected {name} is not DirectML's: " + "; ".join(bad)
