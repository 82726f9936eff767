"""The benchmark script stays runnable (no timing assertions: benchmarks/ prints ratios, tests do not judge them)."""
from benchmarks import run


def test_benchmark_measures_a_tiny_case():
    row = run.measure("tiny", *run.relu_grad(8), budget=0.005)
    import dmlops

    devices = f'{dmlops.compile(run.relu_grad(8)[0], "onnxruntime").device}/{dmlops.compile(run.relu_grad(8)[0], "torch").device}'
    assert row[0] == "tiny" and row[1] == devices  # "cpu/cpu" here, "cpu/cuda:0" with CUDA torch
    assert all(v > 0 for v in row[2:])
