"""The benchmark script stays runnable (no timing assertions: benchmarks/ prints ratios, tests do not judge them)."""

import pytest

from benchmarks import run


def _tiny(name):
    return next(c for c in run.cases() if c.name == name)


def test_every_case_of_issue_22_is_measured_with_its_target():
    names = [c.name for c in run.cases()]
    assert names == ["ACTIVATION_RELU_GRAD 8", "ACTIVATION_RELU_GRAD 16M", "GEMM 1024^3",
                     "CONVOLUTION 1x64x56x56 64x3x3", "GRU T64 N32 I128 H256"]
    tiny = _tiny("ACTIVATION_RELU_GRAD 8")
    assert (tiny.ratio, tiny.overhead) == (1.5, 10e-6)
    assert all(c.ratio == 1.1 for c in run.cases()[1:])


@pytest.mark.parametrize("backend", ["onnxruntime", "torch"])
def test_a_tiny_case_gives_a_row_with_ratio_and_target(backend):
    row = run.MEASURE[backend](_tiny("ACTIVATION_RELU_GRAD 8"), "cpu", budget=0.005)
    assert (row.case, row.backend, row.device) == ("ACTIVATION_RELU_GRAD 8", backend, "cpu")
    assert row.t_peer > 0 and row.t_dmlops > 0
    assert row.target == "<= 1.5x, <= +10 us"
    assert row.met == (row.ratio <= 1.5 and row.t_dmlops - row.t_peer <= 10e-6)
    line = run.table([row])[-1]
    assert f"{row.ratio:.2f}x" in line and ("| yes |" in line or "| NO |" in line)


def test_the_peers_compute_what_the_operators_compute():
    import numpy as np
    import torch

    import dmlops

    for case in run.cases():
        if "16M" in case.name or "1024" in case.name:
            continue  # the same peers on bigger inputs
        want = case.direct(torch, *[torch.from_numpy(v) for v in case.inputs.values()])
        want = want[0] if isinstance(want, tuple) else want
        got = dmlops.run(case.desc, case.inputs, backend="torch")
        out = next(iter(got.values()))
        np.testing.assert_allclose(np.asarray(out).reshape(-1), want.detach().numpy().reshape(-1), rtol=2e-4, atol=2e-5)


def test_a_backend_that_cannot_run_here_is_one_line_and_exit_1(capsys):
    assert run.main(["--quick", "--backend", "directml", "--case", "RELU_GRAD 8"]) == 1
    out = capsys.readouterr().out
    assert "ACTIVATION_RELU_GRAD 8 on directml:dml:0: dml:0: no such DirectML adapter" in out


def test_paired_times_the_two_in_alternating_batches():
    calls = []
    t_a, t_b = run.paired(lambda: calls.append("a"), lambda: calls.append("b"), budget=0.002, repeats=3)
    assert t_a > 0 and t_b > 0
    runs = [c for i, c in enumerate(calls) if i == 0 or calls[i - 1] != c]  # the order of the batches
    assert runs[-6:] == ["a", "b"] * 3 and calls.count("a") == calls.count("b")
