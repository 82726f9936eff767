"""DML_OPERATOR_GEMM: shape rules the descriptor file cannot express.

ATensor is {BatchCount, ChannelCount, M, K} ({.., K, M} with TransA = TRANSPOSE), BTensor
{BatchCount, ChannelCount, K, N} ({.., N, K} with TransB), OutputTensor {BatchCount, ChannelCount,
M, N}; the leading dimensions are optional from DML_FEATURE_LEVEL_4_0 (2 to 4 dimensions; a 3-D
tensor is read as {ChannelCount, .., ..}, DirectML's right-aligned convention). ATensor defines
BatchCount, ChannelCount, M and K; BTensor defines N. CTensor must have OutputTensor's Sizes, which
the generic validator already checks, as it checks data types and ranks.

Math (docs): Output = FusedActivation(Alpha * op(A) x op(B) + Beta * C), one matrix product per
leading (BatchCount, ChannelCount) index. C has OutputTensor's Sizes; a C that is broadcast (a bias
row, say) is expressed with zero Strides, which the framework has already applied. Beta is ignored
when C is absent. FusedActivation is applied by dmlops.lower (by to_torch itself on torch, in place:
ops/_torch_fused.py). ONNX Gemm is 2-D only, so
the ONNX lowering uses MatMul (which batches over leading dimensions) and scales explicitly.
"""
from __future__ import annotations

import numpy as np

from ..errors import Problem
from ..sample import Sample, td
from ..validation import shape_problem, tensor
from . import _torch_fused
from ._shapes import sizes

LEADING = {2: [], 3: ["ChannelCount"], 4: ["BatchCount", "ChannelCount"]}


def _formula(rank: int, last: list[str]) -> str:
    return "{" + ", ".join(LEADING[rank] + last) + "}"


def check(desc, level) -> list[Problem]:
    """BTensor's batch dimensions and K follow ATensor; OutputTensor is {.., M, N}."""
    out: list[Problem] = []
    a = sizes(tensor(desc, "ATensor"))
    if a is None or len(a) not in LEADING:
        return out
    rank = len(a)
    lead = a[:-2]
    m, k = (a[-1], a[-2]) if desc.trans_a.name == "TRANSPOSE" else (a[-2], a[-1])
    b = sizes(tensor(desc, "BTensor"), rank)
    if b is None:
        return out
    trans_b = desc.trans_b.name == "TRANSPOSE"
    n = b[-2] if trans_b else b[-1]
    expected_b = lead + ([n, k] if trans_b else [k, n])
    if b != expected_b:
        out.append(shape_problem(desc, "BTensor", b, _formula(rank, ["N", "K"] if trans_b else ["K", "N"]), expected_b))
    output = sizes(tensor(desc, "OutputTensor"), rank)
    if output is not None and output != lead + [m, n]:
        out.append(shape_problem(desc, "OutputTensor", output, _formula(rank, ["M", "N"]), lead + [m, n]))
    return out


def _transposed(desc, name: str) -> bool:
    return getattr(desc, "trans_a" if name == "ATensor" else "trans_b").name == "TRANSPOSE"


def reference(desc, x):
    """Alpha * op(A) @ op(B) (+ Beta * C) in float64."""
    a, b = (x[n].astype(np.float64) for n in ("ATensor", "BTensor"))
    if _transposed(desc, "ATensor"):
        a = np.swapaxes(a, -1, -2)
    if _transposed(desc, "BTensor"):
        b = np.swapaxes(b, -1, -2)
    y = desc.alpha * np.matmul(a, b)
    if x["CTensor"] is not None:
        y = y + desc.beta * x["CTensor"].astype(np.float64)
    return {"OutputTensor": y}


def to_onnx(desc, g, x):
    """Transpose (where asked), MatMul, Mul by Alpha, Add Beta * C."""
    def operand(name):
        v = x[name]
        if not _transposed(desc, name):
            return v
        rank = len(tensor(desc, name).sizes)
        perm = list(range(rank - 2)) + [rank - 1, rank - 2]
        return g.node("Transpose", [v], perm=perm)

    y = g.node("MatMul", [operand("ATensor"), operand("BTensor")])
    if desc.alpha != 1.0:
        y = g.node("Mul", [y, g.scalar(desc.alpha, y)])
    c = x["CTensor"]
    if c is not None:
        if desc.beta != 1.0:
            c = g.node("Mul", [c, g.scalar(desc.beta, c)])
        y = g.node("Add", [y, c])
    return {"OutputTensor": y}


TORCH_APPLIES_FUSED_ACTIVATION = True  # lower_torch leaves FusedActivation to to_torch (_torch_fused)


def to_torch(desc, torch, x):
    """One BLAS call computing Alpha * op(A) x op(B) + Beta * C, the transposes as strides: torch.addmm (2-D) or
    torch.baddbmm (3-D and 4-D, the leading dimensions flattened into views) with C, torch.matmul without it (Alpha
    through addmm / baddbmm on a 0-d zero with beta 0 on the CPU and CUDA; a product in place elsewhere); then
    FusedActivation in place. With C and Beta 0, Beta * C is still added, as DirectML's formula (and the reference)
    has it: a NaN or infinity in C gives NaN, where a BLAS call with beta 0 would never read C."""
    a, b, c = x["ATensor"], x["BTensor"], x["CTensor"]
    if _transposed(desc, "ATensor"):
        a = a.transpose(-1, -2)
    if _transposed(desc, "BTensor"):
        b = b.transpose(-1, -2)
    alpha, beta = float(desc.alpha), float(desc.beta)
    if c is not None and beta != 0:
        y = _blas(torch, c, a, b, beta, alpha)
    elif alpha == 1 or a.device.type not in _torch_fused.NATIVE:
        y = torch.matmul(a, b)
        if alpha != 1:
            y.mul_(alpha)
    else:
        y = _blas(torch, torch.zeros((), dtype=a.dtype, device=a.device), a, b, 0.0, alpha)
    if c is not None and beta == 0:
        y = y + beta * c
    return {"OutputTensor": _torch_fused.fused_activation_(desc, torch, y)}


def _blas(torch, c, a, b, beta: float, alpha: float):
    """beta * c + alpha * (a @ b) in one torch.addmm or torch.baddbmm (leading dimensions flattened)."""
    lead = list(a.shape[:-2])
    if not lead:
        return torch.addmm(c, a, b, beta=beta, alpha=alpha)
    m, k, n = a.shape[-2], a.shape[-1], b.shape[-1]
    c3 = c if c.dim() == 0 else c.reshape(-1, m, n)
    return torch.baddbmm(c3, a.reshape(-1, m, k), b.reshape(-1, k, n), beta=beta, alpha=alpha).reshape(lead + [m, n])


def _gemm(a, b, out, c=None, strides_c=None, trans_a="NONE", trans_b="NONE", alpha=1.0, beta=1.0, act=None,
          strides_a=None):
    from ..descs import Gemm

    return Gemm(a_tensor=td("FLOAT32", a, strides_a), b_tensor=td("FLOAT32", b),
                c_tensor=None if c is None else td("FLOAT32", c, strides_c), output_tensor=td("FLOAT32", out),
                trans_a=trans_a, trans_b=trans_b, alpha=alpha, beta=beta, fused_activation=act)


def _samples():
    from ..descs import ActivationRelu

    rng = np.random.default_rng(7)

    def r(*shape):
        return rng.uniform(-1, 1, shape).astype(np.float32)

    a23 = np.array([[1, 2, 3], [4, 5, 6]], np.float32)
    b32 = np.array([[1, 0], [0, 1], [1, 1]], np.float32)
    return [
        # By hand: row i of A times the columns of B: [1+3, 2+3], [4+6, 5+6].
        Sample("matrix_2d", _gemm([2, 3], [3, 2], [2, 2]), {"ATensor": a23, "BTensor": b32},
               {"OutputTensor": np.array([[4, 5], [10, 11]], np.float32)}, why="small integers: exact",
               atol=0, rtol=0, float16_atol=0, float16_rtol=0),
        # By hand: A is stored transposed ({K, M} = A23.T); 2 * [[4, 5], [10, 11]] + 0.5 * [[2, 4], [6, 8]].
        Sample("trans_a_alpha_beta_c",
               _gemm([3, 2], [3, 2], [2, 2], c=[2, 2], trans_a="TRANSPOSE", alpha=2.0, beta=0.5),
               {"ATensor": a23.T.copy(), "BTensor": b32, "CTensor": np.array([[2, 4], [6, 8]], np.float32)},
               {"OutputTensor": np.array([[9, 12], [23, 26]], np.float32)}, why="small integers: exact",
               atol=0, rtol=0, float16_atol=0, float16_rtol=0),
        # By hand, fused ReLU: A = [[1, -1]], B = [[1, 2, -3], [2, 1, -1]] gives [[-1, 1, -2]] -> [[0, 1, 0]];
        # the second channel (A = [[2, 0]]) gives [[2, 4, -6]] -> [[2, 4, 0]].
        Sample("channels_3d_fused_relu", _gemm([2, 1, 2], [2, 2, 3], [2, 1, 3], act=ActivationRelu()),
               {"ATensor": np.array([[[1, -1]], [[2, 0]]], np.float32),
                "BTensor": np.array([[[1, 2, -3], [2, 1, -1]]] * 2, np.float32)},
               {"OutputTensor": np.array([[[0, 1, 0]], [[2, 4, 0]]], np.float32)}, why="small integers: exact",
               atol=0, rtol=0, float16_atol=0, float16_rtol=0),
        # 4-D, TransB, and C read through zero strides: one bias row of N values for every batch, channel and row.
        Sample("batch_4d_trans_b_broadcast_c",
               _gemm([2, 3, 4, 5], [2, 3, 6, 5], [2, 3, 4, 6], c=[2, 3, 4, 6], strides_c=[0, 0, 0, 1],
                     trans_b="TRANSPOSE", alpha=0.5, beta=-2.0),
               {"ATensor": r(2, 3, 4, 5), "BTensor": r(2, 3, 6, 5), "CTensor": r(6)}),
        Sample("both_transposed_beta_ignored_without_c",
               _gemm([2, 7, 3], [2, 4, 7], [2, 3, 4], trans_a="TRANSPOSE", trans_b="TRANSPOSE", beta=5.0),
               {"ATensor": r(2, 7, 3), "BTensor": r(2, 4, 7)}),
        # A read column-major through strides (a {M, K} = {3, 4} matrix stored K-major).
        Sample("strided_a", _gemm([3, 4], [4, 2], [3, 2], strides_a=[1, 3]),
               {"ATensor": r(3, 4), "BTensor": r(4, 2)}),
    ]


SAMPLES = _samples()
