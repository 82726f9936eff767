"""Every SAMPLE of every runnable operator: reference vs hand-computed outputs, and ONNX Runtime and torch
vs the reference, in FLOAT32 and (where the operator declares it) FLOAT16. Tolerances sit on each
Sample with the reason (``why``)."""
import numpy as np
import pytest

import dmlops
from dmlops.lower import runnable
from dmlops.ops import MODULES, module
from dmlops.sample import float16_variant
from dmlops.types import FeatureLevel

# The operators issue 3 asks to execute on every backend.
REQUIRED = """ACTIVATION_RELU_GRAD GRU ACTIVATION_RELU ACTIVATION_SIGMOID ACTIVATION_TANH ACTIVATION_LEAKY_RELU
ACTIVATION_SOFTMAX ACTIVATION_LOG_SOFTMAX LSTM RNN BATCH_NORMALIZATION BATCH_NORMALIZATION_GRAD
BATCH_NORMALIZATION_TRAINING BATCH_NORMALIZATION_TRAINING_GRAD GEMM CONVOLUTION ELEMENT_WISE_IDENTITY
ELEMENT_WISE_ADD ELEMENT_WISE_ADD1 ELEMENT_WISE_SUBTRACT ELEMENT_WISE_MULTIPLY ELEMENT_WISE_DIVIDE ELEMENT_WISE_MAX
ELEMENT_WISE_MIN ELEMENT_WISE_CLIP ELEMENT_WISE_CLIP_GRAD ELEMENT_WISE_LOG ELEMENT_WISE_EXP ELEMENT_WISE_SQRT
ELEMENT_WISE_RECIP ELEMENT_WISE_POW ELEMENT_WISE_THRESHOLD REDUCE CAST ADAM_OPTIMIZER FILL_VALUE_CONSTANT
RANDOM_GENERATOR""".split()


def _cases():
    for op in MODULES:
        for s in getattr(module(op), "SAMPLES", ()):
            yield pytest.param(s, id=f"{op}-{s.name}")
            variant = float16_variant(s, FeatureLevel.latest())
            if variant is not None:
                yield pytest.param(variant, id=f"{op}-{variant.name}")


CASES = list(_cases())


def _assert_close(actual, expected, sample, what):
    assert actual.shape == expected.shape, what
    if actual.dtype.kind in "iub":
        np.testing.assert_array_equal(actual, expected, err_msg=what)
    else:
        np.testing.assert_allclose(actual.astype(np.float64), expected.astype(np.float64), atol=sample.atol,
                                   rtol=sample.rtol, equal_nan=True, err_msg=f"{what} ({sample.why})")


def _check_outputs(out, sample):
    for name, td in sample.desc.tensors().items():
        if name in out:
            assert out[name].dtype == td.data_type.numpy_dtype, name
            assert out[name].shape == tuple(td.sizes), name


@pytest.mark.parametrize("sample", [c for c in CASES if c.values[0].expected is not None])
def test_reference_matches_hand_computed_outputs(sample):
    out = dmlops.run(sample.desc, sample.inputs, backend="reference")
    _check_outputs(out, sample)
    for name, expected in sample.expected.items():
        _assert_close(out[name], np.asarray(expected), sample, f"{sample.name}: {name}")


@pytest.mark.parametrize("backend", ["onnxruntime", "torch"])
@pytest.mark.parametrize("sample", CASES)
def test_backend_matches_reference(sample, backend):
    want = dmlops.run(sample.desc, sample.inputs, backend="reference")
    got = dmlops.run(sample.desc, sample.inputs, backend=backend)
    _check_outputs(got, sample)
    assert set(got) == set(want)
    for name in want:
        _assert_close(got[name], want[name], sample, f"{sample.name} on {backend}: {name}")


@pytest.mark.parametrize("op", sorted(runnable()))
def test_every_runnable_operator_has_a_hand_computed_sample(op):
    assert any(s.expected for s in module(op).SAMPLES), f"{op} has no SAMPLE with hand-computed outputs"


@pytest.mark.parametrize("op", REQUIRED)
def test_required_operator_runs_on_every_backend(op):
    assert op in runnable(), f"{op} has no reference/to_onnx/to_torch"
