"""The integer operators on other CPUs: ONNX Runtime picks its integer kernels by CPUID at run time (MLAS), so a
result checked on this machine's AVX-512 VNNI kernels says nothing about an AVX2-only CPU (issue 20: ConvInteger
with an INT8 input and a UINT8 filter was wrong there). dmlops's CPU-provider lowering uses no such kernel
(dmlops/ops/_integer_linear.py); this file checks that on emulated CPUs.

``qemu-x86_64 -cpu MODEL`` (Debian's qemu-user) runs this interpreter with the CPUID of another x86-64 CPU: Haswell
has AVX2 and FMA3 but no AVX-512 or VNNI (the class of the issue's AMD EPYC), Westmere stops at SSE4.2. Under it,
this module's ``sweep`` runs every integer operator's samples and every input / filter DataType pair on the
onnxruntime backend against the NumPy reference (exact integer arithmetic), and also runs the lowering built for
DirectML's provider (MatMulInteger / ConvInteger nodes) on ONNX Runtime's CPU provider, which is what dmlops used
there before: on Haswell that one is wrong, which shows the emulated CPU does take ONNX Runtime's other kernels.
Without qemu-x86_64 (or off x86-64) the emulated runs are skipped; the sweep itself also runs natively.
"""
from __future__ import annotations

import json
import os
import platform
import shutil
import site
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[1]
QEMU = shutil.which("qemu-x86_64")
OPS = ("CONVOLUTION_INTEGER", "QUANTIZED_LINEAR_CONVOLUTION", "MATRIX_MULTIPLY_INTEGER",
       "QUANTIZED_LINEAR_MATRIX_MULTIPLY", "MATRIX_MULTIPLY_INTEGER_TO_FLOAT")
PAIRS = [("UINT8", "UINT8"), ("UINT8", "INT8"), ("INT8", "UINT8"), ("INT8", "INT8")]


def _pair_cases():
    """(name, desc, inputs): a convolution and a matrix product per input / filter DataType pair, full ranges with
    half of the values at the type's extremes (INT8 127 / -128 against UINT8 255: the byte pairs that overflowed)."""
    from dmlops import descs
    from dmlops.types import TensorDesc as T

    rng = np.random.default_rng(20)

    def values(name, shape):
        info = np.iinfo(name.lower())
        v = rng.integers(int(info.min), int(info.max) + 1, shape)
        ends = rng.random(shape) < 0.5
        return np.where(ends, np.where(rng.random(shape) < 0.5, int(info.min), int(info.max)), v).astype(name.lower())

    out = []
    for tx, tw in PAIRS:
        conv = descs.ConvolutionInteger(
            input_tensor=T(tx, [1, 8, 6, 6]), input_zero_point_tensor=T(tx, [1, 1, 1, 1]),
            filter_tensor=T(tw, [4, 8, 3, 3]), filter_zero_point_tensor=T(tw, [1, 4, 1, 1]),
            output_tensor=T("INT32", [1, 4, 6, 6]), strides=[1, 1], dilations=[1, 1], start_padding=[1, 1],
            end_padding=[1, 1], group_count=1)
        out.append((f"conv_{tx}_{tw}", conv, {"InputTensor": values(tx, [1, 8, 6, 6]),
                                              "InputZeroPointTensor": values(tx, [1, 1, 1, 1]),
                                              "FilterTensor": values(tw, [4, 8, 3, 3]),
                                              "FilterZeroPointTensor": values(tw, [1, 4, 1, 1])}))
        mm = descs.MatrixMultiplyInteger(a_tensor=T(tx, [16, 72]), a_zero_point_tensor=None, b_tensor=T(tw, [72, 16]),
                                         b_zero_point_tensor=None, output_tensor=T("INT32", [16, 16]))
        out.append((f"matmul_{tx}_{tw}", mm, {"ATensor": values(tx, [16, 72]), "BTensor": values(tw, [72, 16])}))
    return out


def _cases():
    from dmlops.ops import module
    from dmlops.sample import float16_variant
    from dmlops.types import FeatureLevel

    out = []
    for op in OPS:
        for s in module(op).SAMPLES:
            for variant in (s, float16_variant(s, FeatureLevel.latest())):
                if variant is not None:
                    out.append((f"{op}/{variant.name}", variant.desc, variant.inputs))
    return out + _pair_cases()


def _dml_lowering_on_cpu(desc, inputs) -> np.ndarray:
    """The model dmlops builds for DirectML's provider (ONNX Runtime's integer nodes), run on its CPU provider."""
    import onnxruntime as ort

    from dmlops.backends.onnxruntime import build_model
    from dmlops.graph import GraphDesc

    graph = GraphDesc.single(desc)
    model = build_model(graph, True, "dml")
    session = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    return session.run(None, {n: inputs[n] for n in graph.input_names})[0]


def sweep() -> dict:
    """Every case on the onnxruntime backend against the reference, bit for bit; and how many elements the
    DirectML-provider lowering gets wrong on this CPU's ONNX Runtime kernels."""
    import dmlops

    mismatches = []
    for name, desc, inputs in _cases():
        want = dmlops.run(desc, inputs, backend="reference")["OutputTensor"]
        got = np.asarray(dmlops.run(desc, inputs, backend="onnxruntime")["OutputTensor"])
        if got.dtype != want.dtype or got.tobytes() != want.tobytes():
            mismatches.append(name)
    kernel_errors = {}
    for name, desc, inputs in _pair_cases():
        want = dmlops.run(desc, inputs, backend="reference")["OutputTensor"]
        kernel_errors[name] = int((_dml_lowering_on_cpu(desc, inputs) != want).sum())
    return {"cases": len(_cases()), "mismatches": mismatches, "integer_kernel_errors": kernel_errors}


def test_the_sweep_is_exact_on_this_cpu():
    result = sweep()
    assert result["cases"] > 40 and result["mismatches"] == []


@pytest.mark.skipif(QEMU is None or platform.machine() not in ("x86_64", "AMD64"),
                    reason="qemu-x86_64 (Debian's qemu-user) is not installed, or this is not an x86-64 machine")
@pytest.mark.parametrize("cpu", ["Haswell", "Westmere"])
def test_the_sweep_is_exact_on_an_emulated_cpu(cpu):
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(ROOT)] + site.getsitepackages()), OMP_NUM_THREADS="1")
    run = subprocess.run([QEMU, "-cpu", cpu, os.path.realpath(sys.executable), "-m", "tests.test_integer_cpu_paths"],
                         cwd=ROOT, env=env, capture_output=True, text=True, timeout=900)
    assert run.returncode == 0, run.stderr[-3000:]
    result = json.loads(run.stdout.strip().splitlines()[-1])
    assert result["cases"] > 40 and result["mismatches"] == [], result
    if cpu == "Haswell":  # the emulated CPU takes MLAS's AVX2 kernels: ConvInteger INT8 x UINT8 is wrong there
        assert result["integer_kernel_errors"]["conv_INT8_UINT8"] > 0, result


if __name__ == "__main__":
    print(json.dumps(sweep()))
