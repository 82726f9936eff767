"""The benchmark script stays runnable (no timing assertions: benchmarks/ prints ratios, tests do not judge them)."""
from benchmarks import run


def test_benchmark_measures_a_tiny_case():
    row = run.measure("tiny", *run.relu_grad(8), budget=0.005)
    assert row[0] == "tiny" and row[1] == "cpu"
    assert all(v > 0 for v in row[2:])
