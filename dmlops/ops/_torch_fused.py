"""What the lowerings that call one fused torch kernel share (CONVOLUTION, GEMM, GRU, LSTM, RNN; issue 22 item 2).

* ``exact_float32``: cuDNN computes float32 convolutions and RNNs in TF32 on Ampere and newer GPUs unless told not to
  (``torch.backends.cudnn.allow_tf32`` is True by default, unlike cuBLAS's matmul flag); TF32 keeps 10 bits of
  mantissa, far outside the few ULP by which DirectML's float32 vectors are matched. The fused calls run with it off,
  and the flag is restored after. On other devices this does nothing.
* ``fused_activation_``: FusedActivation applied to the OutputTensor an operator has just computed (a tensor no one
  else holds), ReLU in place. The rules are lower.py's (DirectML's signed zeros: -0.0 for negative inputs except in
  GEMM, +0.0 for NaN); an op module that calls it sets ``TORCH_APPLIES_FUSED_ACTIVATION`` so that lower_torch does
  not apply the activation a second time.

torch APIs up to 2.4 only (torch-directml's torch).
"""
from __future__ import annotations

import contextlib

from ..lower import _negative_zero_relu, activation_torch

# Devices whose kernels dmlops has checked in-place masked fills and fused kernels on (torch-directml's are not:
# there the lowerings keep the operations its recorded runs were checked with).
NATIVE = ("cpu", "cuda")


@contextlib.contextmanager
def exact_float32(torch, device):
    """cuDNN without TF32 while the block runs on a CUDA ``device`` (see the module docstring)."""
    cudnn = torch.backends.cudnn
    if device.type != "cuda" or not cudnn.allow_tf32:
        yield
        return
    cudnn.allow_tf32 = False
    try:
        yield
    finally:
        cudnn.allow_tf32 = True


def fused_activation_(desc, torch, y):
    """``desc``'s FusedActivation applied to its freshly computed output ``y`` (in place for a float ReLU on the CPU
    or CUDA: masked fills, no new float tensor); ``y`` itself when there is none."""
    act = getattr(desc, "fused_activation", None)
    if act is None:
        return y
    negative_zero = _negative_zero_relu(desc, act)
    if act.OPERATOR_TYPE == "ACTIVATION_RELU" and y.is_floating_point() and y.device.type in NATIVE:
        negative = y < 0 if negative_zero else None
        y.masked_fill_(~(y > 0), 0.0)  # NaN and -0.0 too: DirectML's max(x, 0) gives +0.0 for both
        if negative is not None:
            y.masked_fill_(negative, -0.0)
        return y
    out = activation_torch(act, torch, y)
    if negative_zero:
        out = torch.where(y < 0, torch.full((), -0.0, dtype=out.dtype, device=out.device), out)
    return out
