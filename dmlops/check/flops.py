"""A rough FLOP count per node, for the share of a model's work that runs on DirectML.

Multiply-adds count 2 (convolutions, matrix products, recurrent gates); pools count a window per output;
reductions and normalizations their input elements; everything else (element-wise math and data movement) its
output elements. Symbolic or unknown dimensions count as 1, so a dynamic batch counts as one sample.
"""
from __future__ import annotations

import math
from typing import Sequence

from .report import TensorInfo


def numel(t: TensorInfo | None) -> int:
    """Elements of a tensor, with unknown dimensions as 1 (0 when the rank is unknown)."""
    if t is None or t.shape is None:
        return 0
    return math.prod(d if isinstance(d, int) and d >= 0 else 1 for d in t.shape)


def _dim(t: TensorInfo | None, axis: int) -> int:
    if t is None or t.shape is None or not t.shape:
        return 1
    try:
        d = t.shape[axis]
    except IndexError:
        return 1
    return d if isinstance(d, int) and d > 0 else 1


def _attr_ints(node, name: str) -> list[int]:
    for a in node.attribute:
        if a.name == name:
            return list(a.ints)
    return []


def estimate(node, ins: Sequence[TensorInfo | None], outs: Sequence[TensorInfo | None]) -> int:
    """The estimated FLOPs of ``node`` (an ONNX NodeProto) from its inputs' and outputs' shapes."""
    op = node.op_type
    x = ins[0] if ins else None
    y = outs[0] if outs else None
    if op in ("Conv", "ConvInteger", "QLinearConv", "NhwcConv", "DmlFusedConv") and len(ins) > 1:
        w = ins[1] if op != "QLinearConv" else (ins[3] if len(ins) > 3 else None)
        per_output = _dim(w, 1) * math.prod(_dim(w, k) for k in range(2, w.rank or 2)) if w is not None else 1
        return 2 * numel(y) * per_output
    if op in ("ConvTranspose", "DmlFusedConvTranspose") and len(ins) > 1:
        w = ins[1]
        per_input = _dim(w, 1) * math.prod(_dim(w, k) for k in range(2, (w.rank if w else 2) or 2))
        return 2 * numel(x) * per_input
    if op in ("Gemm", "DmlFusedGemm"):
        trans_a = any(a.name == "transA" and a.i for a in node.attribute)
        k = _dim(x, 0 if trans_a else -1)
        return 2 * numel(y) * k
    if op in ("MatMul", "MatMulInteger", "FusedMatMul", "DmlFusedMatMul", "QLinearMatMul", "MatMulIntegerToFloat"):
        return 2 * numel(y) * _dim(x, -1)
    if op in ("LSTM", "GRU", "RNN") and len(ins) > 2:
        gates = {"LSTM": 4, "GRU": 3, "RNN": 1}[op]
        seq, batch, inputs = _dim(x, 0), _dim(x, 1), _dim(x, 2)
        hidden = _dim(ins[2], 2)
        directions = _dim(ins[1], 0)
        return 2 * seq * batch * directions * gates * hidden * (inputs + hidden)
    if op in ("MaxPool", "AveragePool", "LpPool"):
        return numel(y) * max(1, math.prod(_attr_ints(node, "kernel_shape")))
    if op.startswith("Global") or op.startswith("Reduce") or op in (
            "Softmax", "LogSoftmax", "Hardmax", "BatchNormalization", "InstanceNormalization", "LayerNormalization",
            "MeanVarianceNormalization", "LpNormalization", "LRN", "ArgMax", "ArgMin", "CumSum", "TopK"):
        return max(numel(x), numel(y))
    return max(numel(y), 1)
