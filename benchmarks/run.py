"""Measure what dmlops adds on top of the framework it runs on, in one run on one machine.

    python -m benchmarks.run                       # every case on the CPU, both lowering backends
    python -m benchmarks.run --quick               # short budgets (a smoke run, noisy)
    python -m benchmarks.run --device cuda         # the same table on CUDA (torch and ONNX Runtime's CUDA provider)
    python -m benchmarks.run --backend directml    # the native backend on dml:0 against DirectML called directly
    python -m benchmarks.run --backend directml --fake-directml   # dmlops's own cost per call, through the fake
    python -m benchmarks.run --case GRU            # only the cases whose name contains GRU

Each row times a compiled dmlops operator against its peer, in the same process and on the same inputs: for
``onnxruntime``, ``InferenceSession.run`` on the identical model (same bytes, same session options); for
``torch``, the framework's own call (``torch.where``, ``torch.mm``, ``F.conv2d``, ``nn.GRU``); for ``directml``,
the compiled DirectML program called without dmlops's checks. The ratio is dmlops over the peer, and the target
beside it is issue 22's. On onnxruntime and torch the two are timed in alternating batches (``paired``), so that
other processes' load falls on both alike; the load average before and after says how quiet the machine was. Timing
assertions stay out of the test suite: this script prints, it does not judge.

``--fake-directml`` runs the native backend against tests/fake_directml.py (no DirectML needed; the repository root
must be on sys.path, as it is with ``python -m``), with dispatches that check everything and compute nothing, and
prints what one steady call of each compiled operator costs dmlops itself (issue 22, item 4): its Python time per
call (the call's wall time less the time spent inside the fake's COM methods, ``fake.seconds``; the ctypes crossings
into the fake stay in it, so it errs high), the COM calls per call, the host copies (one per input into the mapped
upload buffer, one per output into a new array) and the host bytes allocated beyond the outputs (tracemalloc: an
intermediate copy would show there).
"""
from __future__ import annotations

import argparse
import os
import platform
import statistics
import subprocess
import sys
import time
from dataclasses import dataclass
from typing import Callable

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


def paired(peer, ours, budget: float, repeats: int = 9) -> tuple[float, float]:
    """Seconds per call of ``peer`` and of ``ours``, timed in alternating batches (about ``budget`` * 5 / ``repeats``
    seconds each, the time ``per_call`` spends), so that a change in the machine's load (other processes on shared
    cores) falls on both: the medians of each."""
    peer(), ours()
    start, n = time.perf_counter(), 0
    while time.perf_counter() - start < budget / 5 or n < 1:
        peer(), ours()
        n += 1
    per = (time.perf_counter() - start) / n / 2
    batch = max(1, int(budget * 5 / repeats / per))
    times: tuple[list[float], list[float]] = ([], [])
    for _ in range(repeats):
        for fn, out in ((peer, times[0]), (ours, times[1])):
            t = time.perf_counter()
            for _ in range(batch):
                fn()
            out.append((time.perf_counter() - t) / batch)
    return statistics.median(times[0]), statistics.median(times[1])


@dataclass(frozen=True)
class Case:
    """A descriptor, its inputs by DML name, the framework's own torch call on the same tensors
    (``direct(torch, *tensors)``), and the issue's targets: ``ratio`` (dmlops / peer) and, for tiny calls,
    ``overhead`` (seconds of Python dmlops may add above the framework)."""

    name: str
    peer: str
    desc: object
    inputs: dict
    direct: Callable
    ratio: float
    overhead: float | None = None
    bytes_moved: int = 0  # for bandwidth: bytes read and written by one call


def relu_grad(n: int) -> tuple:
    """ACTIVATION_RELU_GRAD of ``n`` elements and ``torch.where`` (what torch's own threshold_backward is)."""
    t = TensorDesc("FLOAT32", [n])
    desc = dmlops.ActivationReluGrad(input_tensor=t, input_gradient_tensor=t, output_gradient_tensor=t)
    rng = np.random.default_rng(0)
    x, dy = rng.standard_normal(n, dtype=np.float32), rng.standard_normal(n, dtype=np.float32)

    def direct(torch, xt, dyt):
        return torch.where(xt > 0, dyt, torch.zeros_like(dyt))

    return desc, {"InputTensor": x, "InputGradientTensor": dy}, direct


def gemm(m: int, k: int, n: int) -> tuple:
    """GEMM m x k by k x n and ``torch.matmul``."""
    desc = dmlops.Gemm(a_tensor=TensorDesc("FLOAT32", [m, k]), b_tensor=TensorDesc("FLOAT32", [k, n]),
                       output_tensor=TensorDesc("FLOAT32", [m, n]), trans_a="NONE", trans_b="NONE",
                       alpha=1.0, beta=0.0)
    rng = np.random.default_rng(0)
    inputs = {"ATensor": rng.standard_normal((m, k), dtype=np.float32),
              "BTensor": rng.standard_normal((k, n), dtype=np.float32)}

    def direct(torch, a, b):
        return torch.matmul(a, b)

    return desc, inputs, direct


def convolution(n: int, c: int, hw: int, m: int, k: int) -> tuple:
    """A FORWARD cross-correlation with 'same' padding and bias, and ``torch.nn.functional.conv2d``."""
    pad = k // 2
    desc = dmlops.Convolution(
        input_tensor=TensorDesc("FLOAT32", [n, c, hw, hw]), filter_tensor=TensorDesc("FLOAT32", [m, c, k, k]),
        bias_tensor=TensorDesc("FLOAT32", [1, m, 1, 1]), output_tensor=TensorDesc("FLOAT32", [n, m, hw, hw]),
        mode="CROSS_CORRELATION", direction="FORWARD", strides=(1, 1), dilations=(1, 1), start_padding=(pad, pad),
        end_padding=(pad, pad), output_padding=(0, 0), group_count=1)
    rng = np.random.default_rng(0)
    inputs = {"InputTensor": rng.standard_normal((n, c, hw, hw), dtype=np.float32),
              "FilterTensor": rng.standard_normal((m, c, k, k), dtype=np.float32) / (c * k * k),
              "BiasTensor": rng.standard_normal((1, m, 1, 1), dtype=np.float32)}

    def direct(torch, x, w, b):
        return torch.nn.functional.conv2d(x, w, b.reshape(-1), padding=pad)

    return desc, inputs, direct


def gru(t: int, n: int, i: int, h: int) -> tuple:
    """A forward GRU (LinearBeforeReset, sigmoid/tanh) and ``torch.nn.GRU`` with the same weights."""
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
    cache: dict = {}

    def direct(torch, x, w, r, b):
        # torch.nn.GRU (LinearBeforeReset = true semantics) with the same weights in torch's r, z, n order.
        if "gru" not in cache:
            perm = torch.as_tensor(np.r_[h:2 * h, 0:h, 2 * h:3 * h], device=x.device)
            module = torch.nn.GRU(i, h).to(x.device)
            with torch.no_grad():
                module.weight_ih_l0.copy_(w[0, 0][perm])
                module.weight_hh_l0.copy_(r[0, 0][perm])
                module.bias_ih_l0.copy_(b[0, 0, 0, :3 * h][perm])
                module.bias_hh_l0.copy_(b[0, 0, 0, 3 * h:][perm])
            cache["gru"] = module
        with torch.no_grad():
            return cache["gru"](x[0])

    return desc, inputs, direct


def cases() -> list[Case]:
    """Issue 22's cases and targets."""
    big = 16 * 2**20
    return [
        Case("ACTIVATION_RELU_GRAD 8", "torch.where", *relu_grad(8), ratio=1.5, overhead=10e-6),
        Case("ACTIVATION_RELU_GRAD 16M", "torch.where", *relu_grad(big), ratio=1.1, bytes_moved=3 * 4 * big),
        Case("GEMM 1024^3", "torch.matmul", *gemm(1024, 1024, 1024), ratio=1.1),
        Case("CONVOLUTION 1x64x56x56 64x3x3", "F.conv2d", *convolution(1, 64, 56, 64, 3), ratio=1.1),
        Case("GRU T64 N32 I128 H256", "torch.nn.GRU", *gru(64, 32, 128, 256), ratio=1.1),
    ]


@dataclass
class Row:
    """One measured line of the table."""

    case: str
    backend: str
    device: str
    peer: str
    t_peer: float
    t_dmlops: float
    target: str
    met: bool
    extra: str = ""

    @property
    def ratio(self) -> float:
        return self.t_dmlops / self.t_peer


def _met(case: Case, t_peer: float, t_dmlops: float) -> tuple[str, bool]:
    target = f"<= {case.ratio:g}x"
    met = t_dmlops <= case.ratio * t_peer
    if case.overhead is not None:
        target += f", <= +{case.overhead * 1e6:g} us"
        met = met and t_dmlops - t_peer <= case.overhead
    return target, met


def measure_onnxruntime(case: Case, device: str, budget: float) -> Row:
    """The compiled operator on ONNX Runtime against ``InferenceSession.run`` on the identical model."""
    import onnxruntime

    from dmlops.backends.onnxruntime import largest_tensor, session_config

    op = dmlops.compile(case.desc, "onnxruntime", device=device)
    options, providers = session_config(op.device, onnxruntime, largest_tensor(op.graph))  # dmlops' own options
    raw = onnxruntime.InferenceSession(op.model.SerializeToString(), options, providers=providers)
    names = list(op.output_names)
    t_raw, t_ort = paired(lambda: raw.run(names, case.inputs), lambda: op(case.inputs), budget)
    return Row(case.name, "onnxruntime", op.device, "InferenceSession.run", t_raw, t_ort, *_met(case, t_raw, t_ort))


def measure_torch(case: Case, device: str, budget: float) -> Row:
    """The compiled operator on torch against the framework's own call, on the same device tensors."""
    import torch

    op = dmlops.compile(case.desc, "torch", device=device)
    dev = torch.device(op.provider)
    tensors = [torch.from_numpy(v).to(dev) for v in case.inputs.values()]
    sync = torch.cuda.synchronize if dev.type == "cuda" else (lambda: None)  # GPU work is asynchronous
    feed = dict(zip(case.inputs, tensors))
    t_direct, t_op = paired(lambda: (case.direct(torch, *tensors), sync()), lambda: (op(feed), sync()), budget)
    extra = ""
    if case.bytes_moved and dev.type == "cuda":
        copy = torch.empty(case.bytes_moved // 8, dtype=torch.float32, device=dev)
        out = torch.empty_like(copy)
        t_copy = per_call(lambda: (out.copy_(copy), sync()), budget)  # reads and writes bytes_moved / 2 each way
        peak = case.bytes_moved * 2 / 3 / t_copy
        extra = f"{case.bytes_moved / t_op / 1e9:.0f} GB/s = {case.bytes_moved / t_op / peak:.0%} of copy bandwidth " \
                f"(target >= 80%)"
    elif case.bytes_moved:
        extra = f"{case.bytes_moved / t_op / 1e9:.1f} GB/s"
    return Row(case.name, "torch", op.device, case.peer, t_direct, t_op, *_met(case, t_direct, t_op), extra)


def measure_directml(case: Case, device: str, budget: float) -> Row:
    """The compiled operator on the native backend against its DirectML program called directly (what dmlops
    itself adds: input checks, conversions, output wrapping)."""
    op = dmlops.compile(case.desc, "directml", device=device)
    from dmlops import tensors as T

    program = op._runner
    feed = [T.numpy_input(td, case.inputs[n], n) for n, td in zip(op.input_names, op._in_descs)]
    t_raw = per_call(lambda: program(feed), budget)
    t_op = per_call(lambda: op(case.inputs), budget)
    return Row(case.name, "directml", op.device, "Program(inputs)", t_raw, t_op, *_met(case, t_raw, t_op))


MEASURE = {"onnxruntime": measure_onnxruntime, "torch": measure_torch, "directml": measure_directml}


# ------------------------------------------------------------------------------------- directml through the fake

PYTHON_PER_CALL = 50e-6  # issue 22, item 4: at most this much of dmlops's own Python per call


def fake_cases() -> list[Case]:
    """Issue 22's cases, and two tiny ones of item 4: an ELEMENT_WISE_ADD and a TOP_K (two outputs, two dtypes)."""
    t = TensorDesc("FLOAT32", [8])
    rng = np.random.default_rng(0)
    add = dmlops.ElementWiseAdd(a_tensor=t, b_tensor=t, output_tensor=t)
    top_k = dmlops.TopK(input_tensor=TensorDesc("FLOAT32", [1, 1, 3, 5]),
                        output_value_tensor=TensorDesc("FLOAT32", [1, 1, 3, 2]),
                        output_index_tensor=TensorDesc("UINT32", [1, 1, 3, 2]), axis=3, k=2)
    extra = [Case("ELEMENT_WISE_ADD 8", "-", add, {"ATensor": rng.standard_normal(8, dtype=np.float32),
                                                   "BTensor": rng.standard_normal(8, dtype=np.float32)},
                  lambda torch, *t: None, ratio=1.0, overhead=PYTHON_PER_CALL),
             Case("TOP_K 3x5 k=2 (2 outputs)", "-", top_k,
                  {"InputTensor": rng.standard_normal((1, 1, 3, 5), dtype=np.float32)},
                  lambda torch, *t: None, ratio=1.0, overhead=PYTHON_PER_CALL)]
    return extra + cases()


@dataclass
class FakeRow:
    """One compiled operator's steady call through the fake: dmlops's Python seconds, the fake's seconds, the COM
    calls (names, in order), host copies and the host bytes allocated beyond the outputs."""

    case: str
    python: float
    fake: float
    com: list
    copies_in: int
    copies_out: int
    output_bytes: int
    extra_bytes: int
    tiny: bool

    @property
    def met(self) -> bool | None:
        return self.python <= PYTHON_PER_CALL if self.tiny else None


def per_call_less(fn, budget: float, spent: Callable[[], float], repeats: int = 5) -> tuple[float, float]:
    """(seconds per call less what ``spent()`` grew by, ``spent``'s growth per call): medians over ``repeats``
    batches of about ``budget`` seconds each (as ``per_call``)."""
    fn()
    start, n = time.perf_counter(), 0
    while time.perf_counter() - start < budget / 5 or n < 1:
        fn()
        n += 1
    batch = max(1, int(budget / ((time.perf_counter() - start) / n)))
    rest, inside = [], []
    for _ in range(repeats):
        s0, t = spent(), time.perf_counter()
        for _ in range(batch):
            fn()
        total, s = (time.perf_counter() - t) / batch, (spent() - s0) / batch
        rest.append(total - s)
        inside.append(s)
    return statistics.median(rest), statistics.median(inside)


def measure_fake_directml(case: Case, fake, budget: float) -> FakeRow:
    """One compiled operator through the installed fake: see the module docstring."""
    import tracemalloc

    op = dmlops.compile(case.desc, "directml")
    feed = case.inputs
    op(feed)
    start = len(fake.calls)
    op(feed)
    com = [name for name, _ in fake.calls[start:]]
    python, inside = per_call_less(lambda: op(feed), budget, lambda: fake.seconds)
    tracemalloc.start()
    try:
        op(feed)
        before = tracemalloc.get_traced_memory()[0]
        tracemalloc.reset_peak()
        out = op(feed)
        after, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    output_bytes = sum(np.asarray(v).nbytes for v in out.values())
    # beyond the outputs: what stayed allocated besides them, and what came and went during the call
    extra = max(after - before - output_bytes, 0) + (peak - after)
    return FakeRow(case.name, python, inside, com, len(op.input_names), len(op.output_names), output_bytes, extra,
                   case.overhead is not None)


def crossing_cost(budget: float) -> float:
    """Seconds of one ctypes call into the fake and back, less the fake's own time in it (ID3D12Fence::
    GetCompletedValue through the queue's looked-up function): the part of dmlops's figure that is the crossing."""
    from dmlops.backends.directml import runtime
    from tests import fake_directml

    q = runtime.queue(0)
    fake = fake_directml._KEEP[-1]
    return per_call_less(lambda: q._completed(q._fence_address), budget, lambda: fake.seconds)[0]


def fake_table(rows: list[FakeRow]) -> list[str]:
    """The fake-directml rows as Markdown table lines."""
    lines = ["| case | dmlops Python / call | fake / call | COM calls / call | host copies / call | host bytes beyond "
             "the outputs | target | met |", "|---|---|---|---|---|---|---|---|"]
    for r in rows:
        met = "-" if r.met is None else ("yes" if r.met else "NO")
        target = f"<= {PYTHON_PER_CALL * 1e6:g} us" if r.tiny else "- (copy-bound)"
        lines.append(f"| {r.case} | {_fmt(r.python)} | {_fmt(r.fake)} | {len(r.com)} | {r.copies_in} in + "
                     f"{r.copies_out} out | {r.extra_bytes} B | {target} | {met} |")
    return lines


def main_fake_directml(selected: list[Case], budget: float) -> int:
    """``--fake-directml``: the native backend's own cost per call, through tests/fake_directml.py."""
    import pytest

    from dmlops import compiled
    from dmlops.backends.directml import runtime
    from tests import fake_directml

    if not fake_directml.SUPPORTED:
        print(f"--fake-directml: {fake_directml.WHY_UNSUPPORTED}")
        return 1
    print(f"# {platform.machine()} {os.cpu_count()} CPUs, python {platform.python_version()}, numpy "
          f"{np.__version__}; the native backend through tests/fake_directml.py (dispatches compute nothing; "
          f"nothing here runs DirectML); load average before: {_load()}")
    mp = pytest.MonkeyPatch()
    try:
        fake = fake_directml.install(mp, compute=False)
        rows = [measure_fake_directml(case, fake, budget) for case in selected]
        crossing = crossing_cost(budget)
        calls = sorted({" ".join(r.com) for r in rows})
    finally:
        compiled.clear_cache()
        runtime.release_queues()
        fake_directml._release_devices()
        mp.undo()
    print("\n".join(fake_table(rows)))
    print("COM calls of one call: " + "; ".join(c.replace("ID3D12CommandQueue::", "").replace("ID3D12Fence::", "")
                                                for c in calls))
    print(f"one ctypes crossing into the fake and back: {_fmt(crossing)} (counted in dmlops's Python above, once per "
          "COM call; a call into a real DLL crosses only one way)")
    print(f"load average after: {_load()}")
    return 0


def compile_time(backend: str, device: str | None) -> float:
    """Seconds for the first ``dmlops.compile`` of a GEMM in a fresh interpreter (imports included)."""
    code = ("import time, dmlops; from benchmarks.run import gemm; d = gemm(64, 64, 64)[0]; "
            f"t = time.perf_counter(); dmlops.compile(d, {backend!r}, device={device!r}); "
            "print(time.perf_counter() - t)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                         cwd=os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    return float(out.stdout.split()[-1])


def import_time(repeats: int) -> float:
    """Median seconds for ``import dmlops`` in a fresh interpreter."""
    code = "import time; t = time.perf_counter(); import dmlops; print(time.perf_counter() - t)"
    return statistics.median(float(subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                                                  check=True).stdout) for _ in range(repeats))


def _fmt(seconds: float) -> str:
    return f"{seconds * 1e6:.1f} us" if seconds < 1e-3 else f"{seconds * 1e3:.2f} ms"


def _load() -> str:
    try:
        return " ".join(f"{v:.2f}" for v in os.getloadavg())
    except OSError:
        return "unknown"


def table(rows: list[Row]) -> list[str]:
    """The rows as Markdown table lines."""
    lines = ["| case | backend | device | peer | peer time | dmlops | ratio | target | met |",
             "|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        extra = f" ({r.extra})" if r.extra else ""
        lines.append(f"| {r.case} | {r.backend} | {r.device} | {r.peer} | {_fmt(r.t_peer)} | {_fmt(r.t_dmlops)}"
                     f"{extra} | {r.ratio:.2f}x | {r.target} | {'yes' if r.met else 'NO'} |")
    return lines


def main(argv=None) -> int:
    """The command line; prints the table and returns 0 (1 when a backend asked for cannot run here)."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="short timing budgets (a smoke run, noisy)")
    ap.add_argument("--device", default="cpu", help="cpu (default), cuda[:N] or dml[:N] for the lowering backends")
    ap.add_argument("--backend", action="append", choices=sorted(MEASURE),
                    help="measure only this backend (repeatable; default: onnxruntime and torch)")
    ap.add_argument("--case", help="only cases whose name contains this text")
    ap.add_argument("--fake-directml", action="store_true",
                    help="with --backend directml: dmlops's own cost per call (Python time, COM calls, host copies) "
                         "through tests/fake_directml.py, which needs no DirectML")
    args = ap.parse_args(argv)
    budget = 0.05 if args.quick else 0.4
    if args.fake_directml:
        if args.backend != ["directml"]:
            ap.error("--fake-directml measures the native backend: use it with --backend directml")
        return main_fake_directml([c for c in fake_cases() if args.case is None or args.case.lower() in c.name.lower()],
                                  budget)
    backends = args.backend or ["onnxruntime", "torch"]
    device = "dml:0" if backends == ["directml"] and args.device == "cpu" else args.device
    selected = [c for c in cases() if args.case is None or args.case.lower() in c.name.lower()]
    import onnxruntime
    import torch

    print(f"# {platform.machine()} {os.cpu_count()} CPUs, python {platform.python_version()}, onnxruntime "
          f"{onnxruntime.__version__}, torch {torch.__version__} ({torch.get_num_threads()} threads); "
          f"load average before: {_load()}")
    rows = []
    for case in selected:
        for backend in backends:
            try:
                rows.append(MEASURE[backend](case, device, budget))
            except dmlops.DmlOpsError as e:
                print(f"{case.name} on {backend}:{device}: {e}")
                return 1
    print("\n".join(table(rows)))
    for backend in (b for b in backends if b != "directml"):
        print(f"first compile of a GEMM, {backend} on {device}, fresh process: {compile_time(backend, device):.2f} s")
    print(f"import dmlops: {import_time(3 if args.quick else 9) * 1e3:.1f} ms (median, fresh interpreter)")
    print(f"load average after: {_load()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
