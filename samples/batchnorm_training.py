"""Train a small NHWC network with batch normalization through TensorFlow's FusedBatchNormV3 pair, as DirectML
graphs, and the same network in PyTorch from the same initial weights.

    python samples/batchnorm_training.py [--steps 150] [--backend onnxruntime] [--device dml|cuda|cpu]
                                         [--plot batchnorm_training.png]

The task: 6x6 RGB images (NHWC); every pixel is one of four colours (red, green, blue, grey) plus noise,
and the label is the colour that the image's generator favoured (45% of its pixels, the other three 18% each).
Inputs are offset and scaled (4 + 3 * colour), which batch normalization undoes.

The network, one DirectML graph per training step (built with dmlops.compose):

    x [N, H, W, 3] --GEMM over channels (a 1x1 convolution)--> z [N*H*W, 8], which is NHWC
    z read as [N, C, H, W] through NHWC Strides --FusedBatchNormV3 (training; BATCH_NORMALIZATION_TRAINING)--> y
    --RELU--> --REDUCE AVERAGE over H*W (global average pool)--> [N, 8] --GEMM + bias--> logits [N, 4]
    loss = mean cross-entropy (ACTIVATION_LOG_SOFTMAX, MULTIPLY, REDUCE)
    backward: ACTIVATION_SOFTMAX - one-hot, GEMMs, the pooled gradient spread back through zero Strides,
    ACTIVATION_RELU_GRAD, FusedBatchNormGradV3 (BATCH_NORMALIZATION_TRAINING_GRAD) on the forward's
    reserve_space_1/2, GEMM for the convolution weights; ADAM_OPTIMIZER for every parameter.

The running mean and variance follow TF's exponential_avg_factor (0.1) and are used, with is_training=False
(BATCH_NORMALIZATION), to measure accuracy on 1024 held-out images.

PyTorch runs the same network with autograd and F.batch_norm (momentum 0.1), and the Adam update written as
DirectML's ADAM_OPTIMIZER defines it (torch.optim.Adam adds its epsilon after the bias correction, DirectML
before; the curves would differ by that alone). Stated result: test accuracy >= 85% after 150 steps (chance
is 25%; counting the true pixel colours gives 95%), and the two loss curves agree to 1e-4.
"""
from __future__ import annotations

import math
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

import dmlops
from dmlops.compose import Composer
from dmlops.frameworks.tensorflow.batch_norm import compose_fused_batch_norm_grad_v3, compose_fused_batch_norm_v3
from dmlops.apps import arguments, plot_losses

H = W = 6
CIN, CH, K = 3, 8, 4
EPSILON = 1e-3
AVG_FACTOR = 0.1
ADAM = dict(beta1=0.9, beta2=0.999, epsilon=1e-8)
COLOURS = np.array([[1, 0, 0], [0, 1, 0], [0, 0, 1], [0.6, 0.6, 0.6]], np.float32)
PARAMS = ("w1", "gamma", "beta", "w2", "b2")
TARGET_ACCURACY = 0.85


def dataset(n: int, seed: int, favoured: float = 0.45):
    """``n`` NHWC images and labels; see the module docstring."""
    rng = np.random.default_rng(seed)
    labels = rng.integers(0, K, n)
    p = np.full((n, K), (1 - favoured) / (K - 1))
    p[np.arange(n), labels] = favoured
    pixel = (rng.random((n, H * W, 1)) > p.cumsum(1)[:, None, :]).sum(-1)
    x = 4 + 3 * COLOURS[pixel] + rng.normal(0, 0.5, (n, H * W, CIN))
    return x.reshape(n, H, W, CIN).astype(np.float32), labels


def initial_parameters(seed: int = 2) -> dict:
    """Parameters in the shapes the graphs use: w1 [Cin, C], gamma/beta [1, C, 1, 1] (DirectML's per-channel
    shape), w2 [C, K], b2 [1, K]."""
    rng = np.random.default_rng(seed)
    return {"w1": rng.normal(0, 1 / math.sqrt(CIN), (CIN, CH)).astype(np.float32),
            "gamma": np.ones((1, CH, 1, 1), np.float32), "beta": np.zeros((1, CH, 1, 1), np.float32),
            "w2": rng.normal(0, 1 / math.sqrt(CH), (CH, K)).astype(np.float32), "b2": np.zeros((1, K), np.float32)}


def padded(a: np.ndarray) -> np.ndarray:
    """``a`` in the Composer's rank-4 form (leading 1s), so the compiled graph takes it without a copy."""
    return a.reshape((1,) * (4 - a.ndim) + a.shape)


def _features(c: Composer, x, w1, n: int):
    """The 1x1 convolution: GEMM over channels; its [N*H*W, C] output is an NHWC buffer, read as [N, C, H, W]."""
    z = c.gemm(x, w1)
    return z, z.view([n, CH, H, W], [H * W * CH, 1, W * CH, CH])


def _head(c: Composer, y, w2, b2, n: int):
    """RELU, global average pool and the classifier GEMM on the batch-normalized y (an NHWC buffer)."""
    a = c.activation("RELU", y.view([n * H * W, CH]))
    pooled = c.reduce(a.reshape([1, n, H * W, CH]), "AVERAGE", [2]).reshape([n, CH])
    return a, pooled, c.gemm(pooled, w2, b2)


def training_graph(n: int, lr: float):
    """One training step as one DirectML graph (see the module docstring)."""
    c = Composer()
    x, onehot = c.input("x", "FLOAT32", [n * H * W, CIN]), c.input("onehot", "FLOAT32", [n, K])
    p = {"w1": c.input("w1", "FLOAT32", [CIN, CH]), "gamma": c.input("gamma", "FLOAT32", [1, CH, 1, 1]),
         "beta": c.input("beta", "FLOAT32", [1, CH, 1, 1]), "w2": c.input("w2", "FLOAT32", [CH, K]),
         "b2": c.input("b2", "FLOAT32", [1, K])}
    running = [c.input(name, "FLOAT32", [1, CH, 1, 1]) for name in ("running_mean", "running_variance")]
    step = c.input("step", "UINT32", [1, 1])  # ADAM_OPTIMIZER's TrainingStepTensor: UINT32 (DirectML refuses a float)

    z, z_nchw = _features(c, x, p["w1"], n)
    bn = compose_fused_batch_norm_v3(c, z_nchw, p["gamma"], p["beta"], *running, epsilon=EPSILON,
                                     exponential_avg_factor=AVG_FACTOR, is_training=True)
    y = bn.y
    _, pooled, logits = _head(c, y, p["w2"], p["b2"], n)
    loss = c.reduce(c.mul(onehot, c.activation("LOG_SOFTMAX", logits)), "SUM", [2, 3])
    c.output("loss", c.identity(loss, scale=-1.0 / n))

    dlogits = c.identity(c.sub(c.activation("SOFTMAX", logits), onehot), scale=1.0 / n)
    grads = {"w2": c.gemm(pooled, dlogits, trans_a=True), "b2": c.reduce(dlogits, "SUM", [2])}
    dpooled = c.gemm(dlogits, p["w2"], trans_b=True)
    # The average pool's gradient: every pixel gets dpooled / (H*W), read through a zero stride over H*W.
    da = c.identity(dpooled.reshape([1, n, 1, CH]).broadcast([1, n, H * W, CH]), scale=1.0 / (H * W))
    dy = c.op("ActivationReluGrad", {"input_tensor": y.view([n * H * W, CH]),
                                     "input_gradient_tensor": da.reshape([n * H * W, CH])},
              {"output_gradient_tensor": [n * H * W, CH]})["output_gradient_tensor"]
    bgrad = compose_fused_batch_norm_grad_v3(c, dy.view([n, CH, H, W], [H * W * CH, 1, W * CH, CH]), z_nchw,
                                             p["gamma"], bn.reserve_space_1, bn.reserve_space_2, epsilon=EPSILON,
                                             is_training=True)
    grads["gamma"], grads["beta"] = bgrad.scale_backprop, bgrad.offset_backprop
    grads["w1"] = c.gemm(x, bgrad.x_backprop.view([n * H * W, CH]), trans_a=True)  # dz is NHWC, like z

    for name in PARAMS:
        shape = p[name].sizes
        m, v = c.input(f"{name}_m", "FLOAT32", shape), c.input(f"{name}_v", "FLOAT32", shape)
        out = c.op("AdamOptimizer", {"input_parameters_tensor": p[name], "input_first_moment_tensor": m,
                                     "input_second_moment_tensor": v, "gradient_tensor": grads[name].reshape(shape),
                                     "training_step_tensor": step},
                   {"output_parameters_tensor": shape, "output_first_moment_tensor": shape,
                    "output_second_moment_tensor": shape}, learning_rate=lr, **ADAM)
        c.output(name, out["output_parameters_tensor"])
        c.output(f"{name}_m", out["output_first_moment_tensor"])
        c.output(f"{name}_v", out["output_second_moment_tensor"])
    c.output("running_mean", bn.batch_mean)
    c.output("running_variance", bn.batch_variance)
    return c.build()


def inference_graph(n: int):
    """The network with is_training=False (BATCH_NORMALIZATION on the running statistics) → logits."""
    c = Composer()
    x = c.input("x", "FLOAT32", [n * H * W, CIN])
    w1, w2, b2 = (c.input(k, "FLOAT32", s) for k, s in (("w1", [CIN, CH]), ("w2", [CH, K]), ("b2", [1, K])))
    per_channel = [c.input(k, "FLOAT32", [1, CH, 1, 1]) for k in ("gamma", "beta", "running_mean", "running_variance")]
    _, z_nchw = _features(c, x, w1, n)
    bn = compose_fused_batch_norm_v3(c, z_nchw, *per_channel, epsilon=EPSILON, is_training=False)
    c.output("logits", _head(c, bn.y, w2, b2, n)[2])
    return c.build()


@dataclass
class Result:
    """What a run gives: both loss curves, both test accuracies, where it ran."""

    losses: list
    torch_losses: list
    accuracy: float
    torch_accuracy: float
    device: str
    provider: str
    feature_level: str
    seconds: float

    @property
    def max_loss_difference(self) -> float:
        """The largest |dmlops loss - torch loss| over the steps."""
        return float(np.max(np.abs(np.subtract(self.losses, self.torch_losses))))


def train_dmlops(steps: int, lr: float, backend: str, device, x, labels, x_test, labels_test, out):
    """Train through the DirectML graphs; return (losses, test accuracy, compiled training op, level)."""
    n = len(labels)
    graph = training_graph(n, lr)
    level = graph.lowest_feature_level()
    op = dmlops.compile(graph, backend, device=device)
    out(f"dmlops: {len(graph.nodes)}-node training graph (lowest DML_FEATURE_LEVEL {level.short}) on {backend}, "
        f"device {op.device} ({op.provider})")
    state = initial_parameters()
    for name in PARAMS:
        state[f"{name}_m"] = np.zeros_like(state[name])
        state[f"{name}_v"] = np.zeros_like(state[name])
    state["running_mean"] = np.zeros((1, CH, 1, 1), np.float32)
    state["running_variance"] = np.ones((1, CH, 1, 1), np.float32)
    state = {k: padded(v) for k, v in state.items()}
    feed = {"x": padded(x.reshape(-1, CIN)), "onehot": padded(np.eye(K, dtype=np.float32)[labels])}
    losses = []
    for step in range(1, steps + 1):
        result = op({**feed, **state, "step": np.full((1, 1, 1, 1), step, np.uint32)})
        state = {k: result[k] for k in state}
        losses.append(float(result["loss"].ravel()[0]))
    test = dmlops.compile(inference_graph(len(labels_test)), backend, device=device)
    logits = test({"x": padded(x_test.reshape(-1, CIN)),
                   **{k: state[k] for k in PARAMS + ("running_mean", "running_variance")}})
    accuracy = float((np.asarray(logits["logits"]).reshape(-1, K).argmax(1) == labels_test).mean())
    return losses, accuracy, op, level


def train_torch(steps: int, lr: float, x, labels, x_test, labels_test):
    """The same network and updates with PyTorch autograd on the CPU; return (losses, test accuracy)."""
    import torch

    threads = torch.get_num_threads()
    torch.set_num_threads(1)  # tensors this small run slower when split across threads
    try:
        p = {k: torch.tensor(v.reshape(-1) if k in ("gamma", "beta") else v, requires_grad=True)
             for k, v in initial_parameters().items()}
        moments = {k: (torch.zeros_like(v), torch.zeros_like(v)) for k, v in p.items()}
        running_mean, running_var = torch.zeros(CH), torch.ones(CH)

        def logits(images, training):
            z = torch.from_numpy(images) @ p["w1"]  # [N, H, W, C]
            y = torch.nn.functional.batch_norm(z.permute(0, 3, 1, 2), running_mean, running_var, p["gamma"], p["beta"],
                                               training=training, momentum=AVG_FACTOR, eps=EPSILON)
            return torch.relu(y).mean((2, 3)) @ p["w2"] + p["b2"]

        losses, target = [], torch.from_numpy(labels)
        b1, b2 = ADAM["beta1"], ADAM["beta2"]
        for t in range(1, steps + 1):
            loss = torch.nn.functional.cross_entropy(logits(x, True), target)
            grads = torch.autograd.grad(loss, list(p.values()))
            with torch.no_grad():  # DirectML's ADAM_OPTIMIZER formula
                for (k, w), g in zip(p.items(), grads):
                    m, v = moments[k]
                    m.mul_(b1).add_((1 - b1) * g)
                    v.mul_(b2).add_((1 - b2) * g * g)
                    alpha = math.sqrt(1 - b2 ** t) / (1 - b1 ** t)
                    w.sub_(lr * alpha * m / (v.sqrt() + ADAM["epsilon"]))
            losses.append(float(loss.detach()))
        with torch.no_grad():
            accuracy = float((logits(x_test, False).argmax(1).numpy() == labels_test).mean())
        return losses, accuracy
    finally:
        torch.set_num_threads(threads)


def run(steps: int = 150, backend: str = "onnxruntime", device=None, lr: float = 0.03, out=print) -> Result:
    """Train both ways and print the curves side by side; raises DmlOpsError if ``device`` is not available."""
    start = time.perf_counter()
    x, labels = dataset(256, seed=0)
    x_test, labels_test = dataset(1024, seed=1)
    losses, accuracy, op, level = train_dmlops(steps, lr, backend, device, x, labels, x_test, labels_test, out)
    torch_losses, torch_accuracy = train_torch(steps, lr, x, labels, x_test, labels_test)
    out(f"{'step':>5} {'dmlops loss':>12} {'torch loss':>12} {'|difference|':>13}")
    for i, (a, b) in enumerate(zip(losses, torch_losses), 1):
        if i == 1 or i % 10 == 0 or i == steps:
            out(f"{i:>5} {a:>12.6f} {b:>12.6f} {abs(a - b):>13.2e}")
    return Result(losses, torch_losses, accuracy, torch_accuracy, op.device, str(op.provider), level.short,
                  time.perf_counter() - start)


def plot(result: Result, path: Path, out=print) -> None:
    """Write both loss curves to ``path`` (PNG) if matplotlib is installed; say so if it is not."""
    plot_losses(path, {f"dmlops ({result.device}, {result.provider})": result.losses,
                       "PyTorch autograd (cpu)": result.torch_losses},
                xlabel="training step", ylabel="cross-entropy loss",
                title="BN training: FusedBatchNormV3 pair vs PyTorch", log=out)


def main(argv=None, out=print) -> int:
    """The command line; returns the exit code (2 when the requested device is not available, 1 when the stated
    result is not reached)."""
    args = arguments(__doc__, "batchnorm_training", 150, argv)
    try:  # a device that is named but missing is an error, never a silent fallback
        dmlops.compile(inference_graph(1), args.backend, device=args.device)
    except dmlops.DmlOpsError as error:
        out(f"error: {error}")
        return 2
    result = run(args.steps, args.backend, args.device, out=out)
    plot(result, args.plot, out)
    reached = result.accuracy >= TARGET_ACCURACY
    out(f"test accuracy {result.accuracy:.1%} (PyTorch {result.torch_accuracy:.1%}; target >= {TARGET_ACCURACY:.0%}), "
        f"max |loss difference| vs PyTorch {result.max_loss_difference:.1e} over {len(result.losses)} steps; "
        f"ran on {result.device} ({result.provider}), {result.seconds:.1f} s")
    return 0 if reached else 1


if __name__ == "__main__":
    sys.exit(main())
