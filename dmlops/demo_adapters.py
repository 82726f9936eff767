"""Section 4 of ``dmlops demo``: the framework adapters (dmlops.frameworks) as DirectML graphs, on every backend
and device available, checked against PyTorch's own kernels and autograd (the independent oracle).

Each case prints the DirectML graph it builds (node count, operator types, lowest feature level) and one row per
backend and device with the largest error against PyTorch. Without torch installed the section says so and
compares with the NumPy reference backend instead.
"""
from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Any, Callable

import numpy as np

from .demo_common import SHOWN, devices, max_error, refused
from .errors import DmlOpsError


@dataclass
class Case:
    """One adapter call: ``run(backend, device)`` its outputs, ``graph()`` its AdapterGraph, ``oracle()`` the same
    outputs from PyTorch (None without torch), within ``atol``/``rtol`` (``why`` says where they come from)."""

    label: str
    run: Callable
    graph: Callable
    oracle: Callable
    atol: float
    rtol: float
    why: str


def _torch():
    try:
        import torch
    except ImportError:
        return None
    return torch


def bce_case(rng) -> Case:
    """aclnnBinaryCrossEntropyBackward, float16 in (computed in float32 as Ascend does), target broadcast."""
    from .frameworks import aclnn

    x = rng.uniform(0.02, 0.98, (4, 6)).astype(np.float16)
    y = (rng.uniform(size=(1, 6)) > 0.5).astype(np.float16)
    g = np.ones((), np.float16)

    def oracle():
        torch = _torch()
        t = [torch.from_numpy(np.broadcast_to(a, x.shape).astype(np.float32)) for a in (g, x, y)]
        return [torch.ops.aten.binary_cross_entropy_backward(*t, None, 1).numpy().astype(np.float16)]

    return Case("aclnn.BinaryCrossEntropyBackward  float16, mean, target broadcast [1, 6] -> [4, 6]",
                lambda b, d: [aclnn.binary_cross_entropy_backward(g, x, y, backend=b, device=d)],
                lambda: aclnn.binary_cross_entropy_backward(g, x, y, return_graph=True), oracle,
                atol=0, rtol=1e-3, why="one float16 rounding of the float32 result")


def batch_norm_case(rng) -> Case:
    """FusedBatchNormGradV3, NHWC, training: BATCH_NORMALIZATION_TRAINING_GRAD read through NHWC strides."""
    from .frameworks import tensorflow as tf

    n, h, w, c = 4, 3, 3, 5
    x = rng.standard_normal((n, h, w, c)).astype(np.float32)
    dy = rng.standard_normal((n, h, w, c)).astype(np.float32)
    scale = rng.uniform(0.5, 1.5, c).astype(np.float32)
    mean, var = x.mean((0, 1, 2)), x.var((0, 1, 2))  # what FusedBatchNormV3 saves: batch mean, biased variance
    args = (dy, x, scale, mean, var, np.zeros(0, np.float32))

    def oracle():
        torch = _torch()
        nchw = [torch.from_numpy(a.transpose(0, 3, 1, 2).copy()) for a in (dy, x)]
        invstd = torch.from_numpy(1 / np.sqrt(var + np.float32(1e-4)))
        dx, dscale, doffset = torch.ops.aten.native_batch_norm_backward(
            nchw[0], nchw[1], torch.from_numpy(scale), None, None, torch.from_numpy(mean), invstd, True, 1e-4,
            [True, True, True])
        return [dx.numpy().transpose(0, 2, 3, 1), dscale.numpy(), doffset.numpy()]

    return Case("tensorflow.FusedBatchNormGradV3   float32, NHWC, is_training",
                lambda b, d: list(tf.fused_batch_norm_grad_v3(*args, backend=b, device=d)[:3]),
                lambda: tf.fused_batch_norm_grad_v3(*args, return_graph=True), oracle,
                atol=2e-5, rtol=1e-5, why="float32 reductions over 36 elements in another order")


def gru_case(rng) -> Case:
    """CudnnRNNBackpropV3 for a bidirectional GRU over ragged sequences: the backward that DirectML lacks,
    composed from GEMM, element-wise, SLICE and JOIN; checked against autograd of torch.nn.GRU on packed
    sequences with the same weights."""
    from .frameworks import tensorflow as tf

    t, n, i, h = 5, 3, 4, 6
    shape: dict[str, Any] = dict(rnn_mode="gru", num_layers=1, num_units=h, input_size=i, direction="bidirectional")
    attrs = dict(rnn_mode="gru", direction="bidirectional")
    x = rng.uniform(-1, 1, (t, n, i)).astype(np.float32)
    h0 = rng.uniform(-1, 1, (2, n, h)).astype(np.float32)
    c0 = np.zeros((2, n, h), np.float32)
    params = rng.uniform(-0.5, 0.5, tf.params_size(**shape)).astype(np.float32)
    lengths = np.array([5, 2, 4], np.int32)
    dy = rng.uniform(-1, 1, (t, n, 2 * h)).astype(np.float32)
    dh = rng.uniform(-1, 1, (2, n, h)).astype(np.float32)
    forward = tf.cudnn_rnn_v3(x, h0, c0, params, lengths, **attrs, backend="reference")

    def args(fwd):
        return (x, h0, c0, params, lengths, fwd.output, fwd.output_h, fwd.output_c, dy, dh, c0,
                fwd.reserve_space, fwd.host_reserved)

    def run(backend, device):
        fwd = tf.cudnn_rnn_v3(x, h0, c0, params, lengths, **attrs, backend=backend, device=device)
        grads = tf.cudnn_rnn_backprop_v3(*args(fwd), **attrs, backend=backend, device=device)
        return [fwd.output, grads.input_backprop, grads.input_h_backprop, grads.params_backprop]

    def oracle():
        torch = _torch()
        from torch.nn.utils.rnn import pack_padded_sequence, pad_packed_sequence

        gru = torch.nn.GRU(i, h, bidirectional=True).double()
        gru.load_state_dict({k: v.double() for k, v in tf.params_to_torch(params, **shape).items()})
        xt = torch.from_numpy(x.astype(np.float64)).requires_grad_(True)
        ht = torch.from_numpy(h0.astype(np.float64)).requires_grad_(True)
        packed = pack_padded_sequence(xt, torch.from_numpy(lengths.astype(np.int64)), enforce_sorted=False)
        y, hn = gru(packed, ht)
        y = pad_packed_sequence(y, total_length=t)[0]
        (y * torch.from_numpy(dy.astype(np.float64))).sum().add((hn * torch.from_numpy(dh.astype(np.float64))).sum()).backward()
        weights = [p.grad for p in gru.parameters()]
        state = {k: g for k, g in zip(gru.state_dict(), weights)}
        return [y.detach().numpy(), xt.grad.numpy(), ht.grad.numpy(), tf.params_from_torch(state)]

    return Case("tensorflow.CudnnRNNBackpropV3     float32, GRU, bidirectional, sequence_lengths [5, 2, 4]",
                run, lambda: tf.cudnn_rnn_backprop_v3(*args(forward), **attrs, return_graph=True), oracle,
                atol=1e-5, rtol=1e-5, why="float32 GEMMs and recurrences against torch in float64")


def cases(rng) -> list[Case]:
    """The adapter calls the demo shows."""
    return [bce_case(rng), batch_norm_case(rng), gru_case(rng)]


def section(out) -> bool:
    """Print section 4; return True when every row is within its tolerance."""
    torch = _torch()
    ok = True
    for case in cases(np.random.default_rng(0)):
        plan = case.graph()
        kinds = Counter(n.OPERATOR_TYPE for n in plan.graph.nodes)
        out(f"  {case.label}")
        count = len(plan.graph.nodes)
        out(f"    {count} DirectML node{'s' if count > 1 else ''} ({', '.join(f'{k} x{v}' if v > 1 else k for k, v in kinds.items())}); "
            f"valid from {plan.lowest_feature_level.dml_name}")
        want = case.oracle() if torch is not None else case.run("reference", None)
        against = "PyTorch" if torch is not None else "the reference (torch not installed)"
        for backend in SHOWN:
            for device in devices(backend):
                try:
                    got = case.run(backend, device)
                except DmlOpsError as e:
                    ok &= refused(out, f"    {backend:<12} {device:<7}", device, e)
                    continue
                err = max(max_error({0: g}, {0: w}) for g, w in zip(got, want))
                passed = all(np.allclose(np.asarray(g, np.float64), np.asarray(w, np.float64), atol=case.atol,
                                         rtol=case.rtol, equal_nan=True) for g, w in zip(got, want))
                ok &= passed
                out(f"    {backend:<12} {device:<7} max error vs {against} {err:.2e}  {'ok' if passed else 'FAIL'}")
    return ok
