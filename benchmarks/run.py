"""Measure what dmlops adds on top of the raw backends, in one run on one machine.

    python -m benchmarks.run            # all cases
    python -m benchmarks.run --quick    # fewer repeats (a smoke run)

For each case: the compiled dmlops call on ONNX Runtime vs ``InferenceSession.run`` on the identical
model (same bytes, same session options, same inputs), and the dmlops torch backend vs a direct torch
call. Ratios > 1 are dmlops's cost. Targets (issue 3): <= 1.15x raw ONNX Runtime for the tiny call,
<= 1.05x for the large ones. Timing assertions stay out of the test suite.
"""
from __future__ import annotations

import argparse
import platform
import statistics
import subprocess
import sys
import time

import numpy as np

import dmlops
from dmlops import TensorDesc


def per_call(fn, budget: float, repeats: int = 5) -> float:
    """Seconds per call: the median over ``repeats`` batches, each batch about ``budget`` seconds long."""
    fn()
    start, n = time.perf_counter(), 0
    while time.perf_counter() - start < budget / 5 or n < 1:
        fn()
        n += 1
    per = (time.perf_counter() - start) / n
    batch = max(1, int(budget / per))
    times = []
    for _ in range(repeats):
        t = time.perf_counter()
        for _ in range(batch):
            fn()
        times.append((time.perf_counter() - t) / batch)
    return statistics.median(times)


def relu_grad(n):
    t = TensorDesc("FLOAT32", [n])
    desc = dmlops.ActivationReluGrad(input_tensor=t, input_gradient_tensor=t, output_gradient_tensor=t)
    rng = np.random.default_rng(0)
    x, dy = rng.standard_normal(n, dtype=np.float32), rng.standard_normal(n, dtype=np.float32)

    def direct(torch, xt, dyt):
        return torch.where(xt > 0, dyt, torch.zeros_like(dyt))

    return desc, {"InputTensor": x, "InputGradientTensor": dy}, direct


def gemm(m, k, n):
    desc = dmlops.Gemm(a_tensor=TensorDesc("FLOAT32", [m, k]), b_tensor=TensorDesc("FLOAT32", [k, n]),
                       output_tensor=TensorDesc("FLOAT32", [m, n]), trans_a="NONE", trans_b="NONE",
                       alpha=1.0, beta=0.0)
    rng = np.random.default_rng(0)
    inputs = {"ATensor": rng.standard_normal((m, k), dtype=np.float32),
              "BTensor": rng.standard_normal((k, n), dtype=np.float32)}

    def direct(torch, a, b):
        return torch.matmul(a, b)

    return desc, inputs, direct


def gru(t, n, i, h):
    desc = dmlops.Gru(input_tensor=TensorDesc("FLOAT32", [1, t, n, i]),
                      weight_tensor=TensorDesc("FLOAT32", [1, 1, 3 * h, i]),
                      recurrence_tensor=TensorDesc("FLOAT32", [1, 1, 3 * h, h]),
                      bias_tensor=TensorDesc("FLOAT32", [1, 1, 1, 6 * h]),
                      output_sequence_tensor=TensorDesc("FLOAT32", [t, 1, n, h]),
                      output_single_tensor=TensorDesc("FLOAT32", [1, 1, n, h]),
                      activation_descs=(dmlops.ActivationSigmoid(), dmlops.ActivationTanh()),
                      direction="FORWARD", linear_before_reset=True)
    rng = np.random.default_rng(0)
    s = 1 / np.sqrt(h)
    inputs = {"InputTensor": rng.standard_normal((1, t, n, i), dtype=np.float32),
              "WeightTensor": (rng.uniform(-s, s, (1, 1, 3 * h, i))).astype(np.float32),
              "RecurrenceTensor": (rng.uniform(-s, s, (1, 1, 3 * h, h))).astype(np.float32),
              "BiasTensor": (rng.uniform(-s, s, (1, 1, 1, 6 * h))).astype(np.float32)}
    cache = {}

    def direct(torch, x, w, r, b):
        # torch.nn.GRU (LinearBeforeReset = true semantics) with the same weights in torch's r, z, n order.
        if "gru" not in cache:
            perm = np.r_[h:2 * h, 0:h, 2 * h:3 * h]
            module = torch.nn.GRU(i, h)
            with torch.no_grad():
                module.weight_ih_l0.copy_(w[0, 0][perm])
                module.weight_hh_l0.copy_(r[0, 0][perm])
                module.bias_ih_l0.copy_(b[0, 0, 0, :3 * h][perm])
                module.bias_hh_l0.copy_(b[0, 0, 0, 3 * h:][perm])
            cache["gru"] = module
        with torch.no_grad():
            return cache["gru"](x[0])

    return desc, inputs, direct


def import_time(repeats: int) -> float:
    """Median seconds for ``import dmlops`` in a fresh interpreter."""
    code = "import time; t = time.perf_counter(); import dmlops; print(time.perf_counter() - t)"
    return statistics.median(float(subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                                                  check=True).stdout) for _ in range(repeats))


def measure(name, desc, inputs, direct, budget):
    import onnxruntime
    import torch

    from dmlops.backends.onnxruntime import largest_tensor, session_config

    op = dmlops.compile(desc, "onnxruntime")
    options, providers = session_config(op.device, onnxruntime, largest_tensor(op.graph))  # dmlops' own options
    raw = onnxruntime.InferenceSession(op.model.SerializeToString(), options, providers=providers)
    names = list(op.output_names)
    t_raw = per_call(lambda: raw.run(names, inputs), budget)
    t_ort = per_call(lambda: op(inputs), budget)
    top = dmlops.compile(desc, "torch")  # the best torch device: dml, cuda or cpu
    device = torch.device(top.provider)
    tensors = [torch.from_numpy(v).to(device) for v in inputs.values()]
    sync = torch.cuda.synchronize if device.type == "cuda" else (lambda: None)  # GPU work is asynchronous
    t_direct = per_call(lambda: (direct(torch, *tensors), sync()), budget)
    torch_inputs = dict(zip(inputs, tensors))
    t_torch = per_call(lambda: (top(torch_inputs), sync()), budget)
    return [name, f"{op.device}/{top.device}", t_raw, t_ort, t_ort / t_raw, t_direct, t_torch, t_torch / t_direct]


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="short timing budgets (a smoke run, noisy)")
    args = ap.parse_args(argv)
    budget = 0.05 if args.quick else 0.4
    cases = [("ACTIVATION_RELU_GRAD 8", *relu_grad(8)), ("ACTIVATION_RELU_GRAD 16M", *relu_grad(16 * 2**20)),
             ("GEMM 1024^3", *gemm(1024, 1024, 1024)), ("GRU T64 N32 I128 H256", *gru(64, 32, 128, 256))]
    import onnxruntime
    import torch

    print(f"# {platform.processor() or platform.machine()}, python {platform.python_version()}, onnxruntime "
          f"{onnxruntime.__version__}, torch {torch.__version__}, {torch.get_num_threads()} torch threads")
    header = ["case", "device (ort/torch)", "ort raw", "dmlops ort", "ratio", "torch direct", "dmlops torch", "ratio"]
    print(" | ".join(header))
    for name, desc, inputs, direct in cases:
        row = measure(name, desc, inputs, direct, budget)
        print(" | ".join([row[0], row[1]] + [_fmt(v) if i % 3 != 2 else f"{v:.3f}x"
                                              for i, v in enumerate(row[2:])]))
    print(f"import dmlops: {import_time(3 if args.quick else 9) * 1e3:.1f} ms (median, fresh interpreter)")
    return 0


def _fmt(seconds: float) -> str:
    return f"{seconds * 1e6:.1f} us" if seconds < 1e-3 else f"{seconds * 1e3:.2f} ms"


if __name__ == "__main__":
    sys.exit(main())
