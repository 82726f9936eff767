"""`dmlops demo`: its training graph against PyTorch autograd + torch.optim.Adam, and the command itself."""
import subprocess
import sys

import numpy as np
import pytest

from dmlops import demo


def torch_training(x, y, state, steps, lr):
    """The same MLP, loss and optimizer in plain PyTorch (autograd), from the same initial weights."""
    import torch

    w1 = torch.tensor(state["w1_param"][0, 0], requires_grad=True)
    b1 = torch.tensor(state["b1_param"][0, 0, 0], requires_grad=True)
    w2 = torch.tensor(state["w2_param"][0, 0], requires_grad=True)
    b2 = torch.tensor(state["b2_param"][0, 0, 0], requires_grad=True)
    opt = torch.optim.Adam([w1, b1, w2, b2], lr=lr, betas=(0.9, 0.999), eps=1e-8)
    xt, yt = torch.tensor(x[0, 0]), torch.tensor(y[0, 0])
    losses = []
    for _ in range(steps):
        opt.zero_grad()
        p = torch.sigmoid(torch.relu(xt @ w1 + b1) @ w2 + b2)
        loss = torch.nn.functional.binary_cross_entropy(p, yt)
        loss.backward()
        opt.step()
        losses.append(loss.item())
    return losses, w1.detach().numpy()


@pytest.mark.parametrize("backend", ["reference", "onnxruntime", "torch"])
def test_the_training_graph_follows_pytorch_autograd_and_adam(backend, monkeypatch):
    n, d, h, lr, steps = 64, 2, 8, 0.05, 8
    import dmlops

    op = dmlops.compile(demo.training_step_graph(n, d, h, lr), backend, feature_level="5.0")
    x, y = demo.dataset(n, d)
    rng = np.random.default_rng(3)
    state = {"w1_param": rng.standard_normal((1, 1, d, h)).astype(np.float32),
             "b1_param": rng.standard_normal((1, 1, 1, h)).astype(np.float32) * 0.1,
             "w2_param": rng.standard_normal((1, 1, h, 1)).astype(np.float32),
             "b2_param": np.zeros((1, 1, 1, 1), np.float32)}
    want_losses, want_w1 = torch_training(x, y, state, steps, lr)
    for name in ("w1", "b1", "w2", "b2"):
        state[f"{name}_m"] = np.zeros_like(state[f"{name}_param"])
        state[f"{name}_v"] = np.zeros_like(state[f"{name}_param"])
    losses = []
    for step in range(1, steps + 1):
        out = op(dict(state, x=x, y=y, step=np.full((1, 1, 1, 1), step, np.uint32),
                      b1_row=state["b1_param"].ravel(), b2_row=state["b2_param"].ravel()))
        state = {k: np.ascontiguousarray(out[k]) for k in state}
        losses.append(float(out["loss"].ravel()[0]))
    # float32 throughout; DirectML's Adam adds Epsilon after the bias correction of the learning rate,
    # torch before it (a 1e-8-scale difference): 1e-4 covers both over 8 steps.
    np.testing.assert_allclose(losses, want_losses, rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(state["w1_param"][0, 0], want_w1, rtol=1e-4, atol=1e-5)


def test_demo_runs_checks_everything_and_the_loss_falls():
    lines = []
    assert demo.main(out=lines.append, steps=30) == 0
    text = "\n".join(lines)
    assert "GRU.WeightTensor: Sizes [1, 1, 96, 8] do not match" in text
    rows = [l for l in lines if l.startswith(("ACTIVATION_RELU_GRAD ", "GRU "))]
    assert {tuple(r.split()[:3]) for r in rows} >= {("GRU", "onnxruntime", "cpu"), ("GRU", "torch", "cpu"),
                                                   ("ACTIVATION_RELU_GRAD", "reference", "cpu")}
    assert all(r.split()[5] == "ok" for r in rows)
    assert ("   177 of 177 operator types run on reference, onnxruntime and torch (dmlops.lower.runnable()); the "
            "native directml backend takes all 177.") in lines
    # Section 4: every adapter case on all three backends, each within its tolerance of PyTorch.
    adapters = [l for l in lines if "max error vs PyTorch" in l]
    places = sum(len(demo.devices(b)) for b in demo.SHOWN)  # 3 here; more with a GPU
    assert len(adapters) == places * len([l for l in lines if l.startswith(("  aclnn.", "  tensorflow."))])
    assert len(adapters) == 3 * places
    assert all(l.rstrip().endswith("ok") for l in adapters)
    assert "1 DirectML node (BATCH_NORMALIZATION_TRAINING_GRAD); valid from DML_FEATURE_LEVEL_4_1" in text
    assert text.rstrip().splitlines()[-1].startswith("all checks passed")


def test_a_directml_device_that_refuses_a_graph_is_a_row_not_a_crash(monkeypatch):
    """torch-directml refuses UINT32 tensors (ADAM's step, GRU's SequenceLengths) at compile time; on a Windows
    machine the demo prints that refusal as the row and goes on. Simulated: a fake "dml" torch device refuses."""
    import dmlops

    real_compile = dmlops.compile

    def compile_(desc, backend, device=None, **kw):
        if device == "dml":
            raise dmlops.DmlOpsError("torch-directml cannot run this safely: simulated")
        return real_compile(desc, backend, device=device, **kw)

    real_devices = demo.devices
    monkeypatch.setattr(demo, "devices", lambda b: ["dml"] + real_devices(b) if b == "torch" else real_devices(b))
    monkeypatch.setattr(dmlops, "compile", compile_)
    lines = []
    assert demo.table(lines.append)
    assert "ADAM_OPTIMIZER         torch        dml     refused: torch-directml cannot run this safely: simulated" in lines
    assert any(l.startswith("ADAM_OPTIMIZER         torch        cpu ") and l.split()[5] == "ok" for l in lines)
    # Anywhere else a refusal is a failure of the demo, said on its row.
    assert not demo.refused(lines.append, "GRU onnxruntime cpu", "cpu", dmlops.DmlOpsError("x"))
    assert lines[-1] == "GRU onnxruntime cpu refused (FAIL): x"


def test_demo_command_rejects_bad_arguments_without_a_traceback():
    result = subprocess.run([sys.executable, "-m", "dmlops", "demo", "--steps", "0"], capture_output=True, text=True)
    assert result.returncode == 2
    assert "argument --steps: expected a positive integer; got '0'" in result.stderr
    assert "Traceback" not in result.stderr
