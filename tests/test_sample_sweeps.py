"""Every sample with other values: every backend must still give the reference's answer.

The samples pin hand-checked values; these sweeps keep each sample's descriptor and put other values into its
inputs (seeded, so a failure reproduces): full-range and edge integers into the integer data inputs, and NaN, +-inf
and -0.0 into a quarter of the float data inputs. Index, length, count, scale, zero-point and state fields keep
the sample's values (random ones are mostly out of range, which every backend refuses by design). ONNX Runtime,
torch on the CPU and torch on the torch-directml double (tests/torch_directml_double.py) must agree with the
reference within the sample's tolerances, or, on the double, refuse a value its int32 carrier cannot hold
(``UnsupportedValue``, by name). These sweeps found the 64-bit MAX_POOLING, UINT16 division, LSTM peephole,
ROI_POOLING / DYNAMIC_QUANTIZE_LINEAR NaN, LRN and convolution infinity disagreements fixed in session 10.
"""
from __future__ import annotations

import warnings

import numpy as np
import pytest

import dmlops
from dmlops.lower import runnable
from dmlops.ops import module
from dmlops.selftest import _close
from tests import torch_directml_double as dd

KEEP = ("indic", "index", "length", "roi", "batch", "axis", "count", "sequence", "k", "scale", "zero", "state",
        "step")
SPECIALS = np.array([np.nan, np.inf, -np.inf, -0.0, 0.0])
OPS = runnable()
CHUNKS = [OPS[i::4] for i in range(4)]


def _data_fields(sample, kinds: str) -> list[str]:
    return [k for k, v in sample.inputs.items() if isinstance(v, np.ndarray) and v.dtype.kind in kinds and v.size
            and not any(word in k.lower() for word in KEEP)]


def _integers(rng, a: np.ndarray) -> np.ndarray:
    info = np.iinfo(a.dtype)
    mode = rng.integers(3)
    if mode == 0:
        return rng.integers(info.min, info.max, size=a.shape, dtype=a.dtype, endpoint=True)
    if mode == 1:
        edges = {info.min, info.min + 1, info.max, info.max - 1, info.max // 2, info.max // 2 + 1, 0, 1}
        edges |= {-1, -2} if info.min < 0 else set()
        return rng.choice(np.array(sorted(edges), dtype=object).astype(a.dtype), size=a.shape)
    return (a.astype(object) + rng.integers(-3, 4, size=a.shape).astype(object)).clip(info.min, info.max).astype(
        a.dtype)


def _specials(rng, a: np.ndarray) -> np.ndarray:
    out = a.copy()
    chosen = rng.random(a.shape) < 0.25
    out[chosen] = rng.choice(SPECIALS, size=int(chosen.sum())).astype(a.dtype)
    return out


def _backends(desc, inputs):
    yield "onnxruntime", lambda: dmlops.run(desc, inputs, backend="onnxruntime")
    yield "torch cpu", lambda: dmlops.run(desc, inputs, backend="torch", device="cpu")

    def on_double():
        with dd.installed():
            return dmlops.run(desc, inputs, backend="torch", device="dml")
    yield "torch-directml double", on_double


def _sweep(ops, kinds: str, change, seed: int, atol: float, rtol: float) -> list[str]:
    rng = np.random.default_rng(seed)
    found = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for op in ops:
            for s in getattr(module(op), "SAMPLES", ()):
                fields = _data_fields(s, kinds)
                if not fields:
                    continue
                for _ in range(2):
                    inputs = dict(s.inputs, **{k: change(rng, s.inputs[k]) for k in fields})
                    try:
                        want = dmlops.run(s.desc, inputs, backend="reference")
                    except dmlops.DmlOpsError:  # e.g. an INT4 value outside its range: refused everywhere
                        continue
                    for name, run in _backends(s.desc, inputs):
                        try:
                            got = run()
                        except dmlops.UnsupportedValue:
                            if name != "torch-directml double":
                                found.append(f"{op} {s.name} on {name}: refused a value")
                            continue
                        if not _close(got, want, max(s.atol, atol), max(s.rtol, rtol)):
                            shown = {k: inputs[k].ravel()[:4].tolist() for k in fields}
                            found.append(f"{op} {s.name} on {name}: {shown}")
    return found


@pytest.mark.parametrize("ops", CHUNKS, ids=[f"chunk{i}" for i in range(len(CHUNKS))])
def test_every_sample_with_other_integers_gives_the_references_answer_everywhere(ops):
    assert _sweep(ops, "iu", _integers, seed=20, atol=0, rtol=0) == []


@pytest.mark.parametrize("ops", CHUNKS, ids=[f"chunk{i}" for i in range(len(CHUNKS))])
def test_every_sample_with_nan_and_infinities_gives_the_references_answer_everywhere(ops):
    # atol / rtol: samples marked exact are exact for their own values; other finite values round differently
    # by an ULP or two (MEAN_VARIANCE_NORMALIZATION, BATCH_NORMALIZATION_TRAINING, ACTIVATION_SOFTMAX).
    assert _sweep(ops, "f", _specials, seed=21, atol=1e-6, rtol=1e-5) == []


def test_the_chunks_cover_every_runnable_operator():
    assert sorted(op for chunk in CHUNKS for op in chunk) == sorted(OPS)
