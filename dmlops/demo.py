"""``dmlops demo``: the seed descriptors, one validation failure explained, every backend and device checked
against the reference, and a small classifier trained entirely through DirectML descriptors.

Nothing here claims DirectML: the table names the device each row ran on, and DirectML rows appear
only where onnxruntime-directml or torch-directml is installed (Windows with a DirectX 12 GPU).
"""
from __future__ import annotations

import time

import numpy as np

import dmlops
from dmlops import GraphBuilder, ScaleBias, TensorDesc
from dmlops.demo_common import SHOWN, devices, max_error, refused
from dmlops.errors import DmlOpsError

# Operators whose SAMPLES the table runs: the two DirectML seeds, then what the training loop uses.
TABLE_OPS = ["ACTIVATION_RELU_GRAD", "GRU", "GEMM", "ACTIVATION_RELU", "ACTIVATION_SIGMOID", "ELEMENT_WISE_SUBTRACT",
             "REDUCE", "ADAM_OPTIMIZER"]


def native_devices() -> str:
    """The native DirectML adapters as text, or "none" and where to learn why."""
    from .backends.directml import adapters

    found = adapters.devices()
    if found:
        return ", ".join(f"{a.device} {a.name}" + (f" ({a.feature_level.dml_name})" if a.feature_level else
                                                   " (no DirectML device)") for a in found)
    return "none ('dmlops devices' says where dmlops looked)"


def bad_gru():
    """A GRU whose WeightTensor was built for an input size of 8 while the input has 16 features."""
    f32 = "FLOAT32"
    return dmlops.Gru(input_tensor=TensorDesc(f32, [1, 4, 2, 16]), weight_tensor=TensorDesc(f32, [1, 1, 96, 8]),
                      recurrence_tensor=TensorDesc(f32, [1, 1, 96, 32]),
                      output_sequence_tensor=TensorDesc(f32, [4, 1, 2, 32]),
                      activation_descs=(dmlops.ActivationSigmoid(), dmlops.ActivationTanh()), direction="FORWARD",
                      linear_before_reset=False)


def table(out) -> bool:
    """Run each sample (FLOAT16 variants included) on every backend and device; print one row per (operator,
    backend, device) with the largest error against the reference and whether every sample is within its
    tolerance (``Sample.atol``/``rtol``); return True if all are."""
    from .ops import module
    from .sample import float16_variant

    ok = True
    out(f"{'operator':<22} {'backend':<12} {'device':<7} {'samples':>7} {'max error':>10} {'check':>6} "
        f"{'time/call':>10}")
    for op_type in TABLE_OPS:
        samples = list(module(op_type).SAMPLES)
        samples += [v for v in (float16_variant(s, dmlops.FeatureLevel.latest()) for s in samples) if v]
        wants = [dmlops.run(s.desc, s.inputs, backend="reference") for s in samples]
        for backend in SHOWN:
            for device in devices(backend):
                worst, passed, seconds = 0.0, True, 0.0
                try:
                    ops = [dmlops.compile(s.desc, backend, device=device) for s in samples]
                except DmlOpsError as e:
                    ok &= refused(out, f"{op_type:<22} {backend:<12} {device:<7}", device, e)
                    continue
                for op, s, want in zip(ops, samples, wants):
                    op(s.inputs)  # the first call warms the session up; time the second
                    t = time.perf_counter()
                    got = op(s.inputs)
                    seconds += time.perf_counter() - t
                    err = max_error(got, want)
                    worst = max(worst, err)
                    passed &= all(np.allclose(np.asarray(got[n], np.float64), np.asarray(w, np.float64),
                                              atol=s.atol, rtol=s.rtol, equal_nan=True) for n, w in want.items())
                ok &= passed
                out(f"{op_type:<22} {backend:<12} {device:<7} {len(samples):>7} {worst:>10.2e} "
                    f"{'ok' if passed else 'FAIL':>6} {seconds / len(samples) * 1e3:>8.3f}ms")
    return ok


def coverage() -> str:
    """One line: how many of the operator types have lowerings (reference, onnxruntime, torch) and run natively."""
    from .lower import runnable
    from .ops import MODULES

    return (f"   {len(runnable())} of {len(MODULES)} operator types run on reference, onnxruntime and torch "
            f"(dmlops.lower.runnable()); the native directml backend takes all {len(MODULES)}.")


# --- training ----------------------------------------------------------------------------------------------
def training_step_graph(n: int, d: int, h: int, lr: float):
    """One Adam step of a d-h-1 MLP with a sigmoid output and binary cross-entropy, as ONE DirectML graph.

    Forward: z1 = X W1 + b1 (b1 read through zero strides), a1 = relu(z1), z2 = a1 W2 + b2, p = sigmoid(z2).
    Loss gradient from element-wise operators: dL/dz2 = (p - y) / n. Backward with GEMM transposes,
    REDUCE SUM for bias gradients, ACTIVATION_RELU_GRAD; then ADAM_OPTIMIZER for each parameter.
    The loss itself: mean(-(y log p + (1 - y) log(1 - p))) with CLIP, LOG, MULTIPLY, ADD and REDUCE.
    """
    f = "FLOAT32"

    def t(*sizes, strides=None):
        return TensorDesc(f, [1, 1, *sizes], None if strides is None else [0, 0, *strides])

    def gemm(a, b_, out, c=None, trans_a="NONE", trans_b="NONE"):
        return dmlops.Gemm(a_tensor=a, b_tensor=b_, c_tensor=c, output_tensor=out, trans_a=trans_a, trans_b=trans_b,
                           alpha=1.0, beta=1.0)

    b = GraphBuilder()
    x, y = b.input("x"), b.input("y")
    # W1 and W2 feed both a GEMM and their ADAM node; the biases feed GEMM as broadcast rows (zero strides),
    # a different TensorDesc than ADAM's, so they come in twice: as a row buffer and as the parameter.
    w1, w2 = b.input("w1_param"), b.input("w2_param")
    b1_row, b2_row = b.input("b1_row"), b.input("b2_row")
    z1 = b.add(gemm(t(n, d), t(d, h), t(n, h), c=t(n, h, strides=[0, 1])), a_tensor=x, b_tensor=w1, c_tensor=b1_row)
    a1 = b.add(dmlops.ActivationRelu(input_tensor=t(n, h), output_tensor=t(n, h)), input_tensor=z1.output_tensor)
    z2 = b.add(gemm(t(n, h), t(h, 1), t(n, 1), c=t(n, 1, strides=[0, 1])), a_tensor=a1.output_tensor, b_tensor=w2, c_tensor=b2_row)
    p = b.add(dmlops.ActivationSigmoid(input_tensor=t(n, 1), output_tensor=t(n, 1)), input_tensor=z2.output_tensor)
    diff = b.add(dmlops.ElementWiseSubtract(a_tensor=t(n, 1), b_tensor=t(n, 1), output_tensor=t(n, 1)),
                 a_tensor=p.output_tensor, b_tensor=y)
    dz2 = b.add(dmlops.ElementWiseIdentity(input_tensor=t(n, 1), output_tensor=t(n, 1),
                                           scale_bias=ScaleBias(1.0 / n, 0.0)), input_tensor=diff.output_tensor)
    dw2 = b.add(gemm(t(n, h), t(n, 1), t(h, 1), trans_a="TRANSPOSE"),
                a_tensor=a1.output_tensor, b_tensor=dz2.output_tensor)
    db2 = b.add(dmlops.Reduce(input_tensor=t(n, 1), output_tensor=t(1, 1), function="SUM", axes=[2]),
                input_tensor=dz2.output_tensor)
    da1 = b.add(gemm(t(n, 1), t(h, 1), t(n, h), trans_b="TRANSPOSE"),
                a_tensor=dz2.output_tensor, b_tensor=w2)
    dz1 = b.add(dmlops.ActivationReluGrad(input_tensor=t(n, h), input_gradient_tensor=t(n, h),
                                          output_gradient_tensor=t(n, h)),
                input_tensor=z1.output_tensor, input_gradient_tensor=da1.output_tensor)
    dw1 = b.add(gemm(t(n, d), t(n, h), t(d, h), trans_a="TRANSPOSE"),
                a_tensor=x, b_tensor=dz1.output_gradient_tensor)
    db1 = b.add(dmlops.Reduce(input_tensor=t(n, h), output_tensor=t(1, h), function="SUM", axes=[2]),
                input_tensor=dz1.output_gradient_tensor)
    step = b.input("step")
    for name, shape, grad in (("w1", (d, h), dw1), ("b1", (1, h), db1), ("w2", (h, 1), dw2), ("b2", (1, 1), db2)):
        param = {"w1": w1, "w2": w2}.get(name) or b.input(f"{name}_param")
        m, v = b.input(f"{name}_m"), b.input(f"{name}_v")
        adam = b.add(dmlops.AdamOptimizer(
            input_parameters_tensor=t(*shape), input_first_moment_tensor=t(*shape),
            input_second_moment_tensor=t(*shape), gradient_tensor=t(*shape),
            training_step_tensor=TensorDesc("UINT32", [1, 1, 1, 1]),  # UINT32: DirectML refuses a float step
            output_parameters_tensor=t(*shape), output_first_moment_tensor=t(*shape),
            output_second_moment_tensor=t(*shape), learning_rate=lr, beta1=0.9, beta2=0.999, epsilon=1e-8),
            input_parameters_tensor=param, input_first_moment_tensor=m, input_second_moment_tensor=v,
            gradient_tensor=grad.output_tensor,
            training_step_tensor=step)
        b.output(f"{name}_param", adam.output_parameters_tensor)
        b.output(f"{name}_m", adam.output_first_moment_tensor)
        b.output(f"{name}_v", adam.output_second_moment_tensor)
    # Loss: -(y log p + (1 - y) log(1 - p)), averaged by REDUCE AVERAGE; p is clipped to [1e-6, 1 - 1e-6] first
    # so that a saturated sigmoid gives a large loss instead of 0 * log(0) = NaN.
    pc = b.add(dmlops.ElementWiseClip(input_tensor=t(n, 1), output_tensor=t(n, 1), min=1e-6, max=1 - 1e-6),
               input_tensor=p.output_tensor)
    log_p = b.add(dmlops.ElementWiseLog(input_tensor=t(n, 1), output_tensor=t(n, 1)), input_tensor=pc.output_tensor)
    log_q = b.add(dmlops.ElementWiseLog(input_tensor=t(n, 1), output_tensor=t(n, 1), scale_bias=ScaleBias(-1.0, 1.0)),
                  input_tensor=pc.output_tensor)
    one_minus_y = b.add(dmlops.ElementWiseIdentity(input_tensor=t(n, 1), output_tensor=t(n, 1),
                                                   scale_bias=ScaleBias(-1.0, 1.0)), input_tensor=y)
    term1 = b.add(dmlops.ElementWiseMultiply(a_tensor=t(n, 1), b_tensor=t(n, 1), output_tensor=t(n, 1)),
                  a_tensor=y, b_tensor=log_p.output_tensor)
    term0 = b.add(dmlops.ElementWiseMultiply(a_tensor=t(n, 1), b_tensor=t(n, 1), output_tensor=t(n, 1)),
                  a_tensor=one_minus_y.output_tensor, b_tensor=log_q.output_tensor)
    total = b.add(dmlops.ElementWiseAdd(a_tensor=t(n, 1), b_tensor=t(n, 1), output_tensor=t(n, 1)),
                  a_tensor=term1.output_tensor, b_tensor=term0.output_tensor)
    loss = b.add(dmlops.Reduce(input_tensor=t(n, 1), output_tensor=t(1, 1), function="AVERAGE", axes=[2]),
                 input_tensor=total.output_tensor)
    neg = b.add(dmlops.ElementWiseIdentity(input_tensor=t(1, 1), output_tensor=t(1, 1), scale_bias=ScaleBias(-1.0, 0.0)),
                input_tensor=loss.output_tensor)
    b.output("loss", neg.output_tensor)
    b.output("p", p.output_tensor)
    return b.build()


def dataset(n: int, d: int, seed: int = 0):
    """Two interleaved classes: y = 1 where x0 * x1 > 0 (XOR-like quadrants, not linearly separable)."""
    rng = np.random.default_rng(seed)
    x = rng.uniform(-1, 1, (n, d)).astype(np.float32)
    y = (x[:, 0] * x[:, 1] > 0).astype(np.float32)
    return x.reshape(1, 1, n, d), y.reshape(1, 1, n, 1)


def train(out, backend: str, device: str | None, steps: int = 60, n: int = 256, d: int = 2, h: int = 16,
          lr: float = 0.05, seed: int = 0) -> tuple[list[float], float]:
    """Train the MLP for ``steps`` Adam steps; return the losses and the final training accuracy."""
    graph = training_step_graph(n, d, h, lr)
    op = dmlops.compile(graph, backend, device=device, feature_level="5.0")
    out("  dmlops check of its ONNX model: " + dmlops.check_model(op.model, feature_level="5.0").headline())
    x, y = dataset(n, d, seed)
    rng = np.random.default_rng(seed + 1)
    state = {"w1_param": (rng.standard_normal((1, 1, d, h)) * np.sqrt(2 / d)).astype(np.float32),
             "b1_param": np.zeros((1, 1, 1, h), np.float32),
             "w2_param": (rng.standard_normal((1, 1, h, 1)) * np.sqrt(1 / h)).astype(np.float32),
             "b2_param": np.zeros((1, 1, 1, 1), np.float32)}
    for name in ("w1", "b1", "w2", "b2"):
        state[f"{name}_m"] = np.zeros_like(state[f"{name}_param"])
        state[f"{name}_v"] = np.zeros_like(state[f"{name}_param"])
    losses = []
    out(f"training a {d}-{h}-1 classifier on {n} points with {backend} on {op.device} ({op.provider}), "
        f"one {len(graph.nodes)}-node graph per step")
    p = None
    for step in range(1, steps + 1):
        feed = dict(state, x=x, y=y, step=np.full((1, 1, 1, 1), step, np.uint32),
                    b1_row=state["b1_param"].ravel(), b2_row=state["b2_param"].ravel())
        result = op(feed)
        for key in state:
            state[key] = np.ascontiguousarray(result[key])
        losses.append(float(result["loss"].ravel()[0]))
        p = result["p"]
        if step == 1 or step % 10 == 0:
            out(f"  step {step:3d}  loss {losses[-1]:.4f}")
    assert p is not None  # steps >= 1
    accuracy = float(((p.ravel() > 0.5) == (y.ravel() > 0.5)).mean())
    return losses, accuracy


def main(out=print, steps: int = 60) -> int:
    """The whole demo; returns a process exit code (0 when every check passed)."""
    start = time.perf_counter()
    out("== 1. Validation before execution: a GRU with a bad WeightTensor, targeted at DML_FEATURE_LEVEL_1_0")
    for p in bad_gru().problems("1.0"):
        out(f"  - {p}")
    out("")
    out("== 2. Every backend and device available here, checked against the NumPy reference")
    out("   (devices: " + "; ".join(f"{b}: {', '.join(devices(b)) or 'not installed'}" for b in ("onnxruntime", "torch")) +
        f"; directml (native): {native_devices()}. DirectML appears with onnxruntime-directml or torch-directml on "
        "Windows, and natively where DirectML's libraries load: Windows, or WSL with DMLOPS_* set.)")
    ok = table(out)
    out(coverage())
    out("")
    out("== 3. Training through DirectML descriptors only (GEMM, RELU, SIGMOID, RELU_GRAD, SUBTRACT, IDENTITY, REDUCE, "
        "ADAM_OPTIMIZER; the loss with CLIP, LOG, MULTIPLY, ADD)")
    losses, accuracy = train(out, "onnxruntime", None, steps=steps)
    falling = losses[-1] < 0.5 * losses[0]
    out(f"  loss {losses[0]:.4f} -> {losses[-1]:.4f}; training accuracy {accuracy:.1%}")
    ok &= falling
    out("")
    out("== 4. Framework ops as DirectML graphs (dmlops.frameworks), checked against PyTorch's kernels and autograd")
    from .demo_adapters import section

    ok &= section(out)
    out("   (samples/train_mlp_bce.py, samples/batchnorm_training.py and samples/train_gru.py train with them.)")
    out("")
    out(f"{'all checks passed' if ok else 'SOME CHECKS FAILED'} in {time.perf_counter() - start:.1f} s")
    return 0 if ok else 1
