"""MULTIHEAD_ATTENTION and MULTIHEAD_ATTENTION1, written once over three small op sets (NumPy, ONNX, torch).

The steps are the docs' (``[Add Bias to query/key/value] -> GEMM(Query, Transposed(Key)) * Scale -> [Add
RelativePositionBias] -> [Add Mask] -> Softmax -> GEMM(SoftmaxResult, Value)``), in float32 (lower.py hands FLOAT16
in as float32). :func:`attention` reads every size from the descriptor (check() has already held the tensors to
them), so the three lowerings build the same static graph:

1. Query, key and value as [batch, heads, sequence, headSize]: a QueryTensor [.., B, S, H * D] is split into heads;
   a stacked tensor [B, S, H, n, D] is sliced on its fourth dimension (0 query, 1 key, 2 value of
   StackedQueryKeyValueTensor; 0 key, 1 value of StackedKeyValueTensor). BiasTensor [q | k | v] is added to the new
   query, key and value (not to PastKey / PastValue).
2. Key and value sequences: PastKeyTensor ++ key (the docs' concatenation), which is also OutputPresentKeyTensor;
   the same for values. MULTIHEAD_ATTENTION1 with a PastSequenceLengthsTensor writes the new keys into the cache
   instead (see :func:`_cache`).
3. Grouped heads (MULTIHEAD_ATTENTION1): query head n reads key/value head n // (QueryHeadCount /
   KeyValueHeadCount), ONNX Runtime's GroupQueryAttention convention; written as one GEMM per key/value head over
   its group's queries stacked, so no key or value is copied.
4. Scores = (Q x K^T + RelativePositionBias) * Scale (DirectML scales the bias too, unlike the docs' order), then
   the mask, then DirectML's softmax (ACTIVATION_SOFTMAX's steps and NaN rules), then x V, heads merged back into
   [B, S, H * Dv].
5. FLOAT16: DirectML stores its intermediates in float16 (toward zero, as every FLOAT16 store): the query, key and
   value after the bias, the scores before the softmax, the softmax's sum and its quotients. Computed in float32
   with those stores, every FLOAT16 vector is bit exact; without them a row of scores near MaskFilterValue (which
   float16 resolves to 8) gives 5.4 where DirectML gives 3.006 (sample_boolean_all_zero_row_float16).

The masks, as DirectML computes them (dmlops/ops/multihead_attention.py names the vectors):

* BOOLEAN: (1 - mask) * MaskFilterValue is added to each score (so 1 adds nothing, 0 adds MaskFilterValue and any
  other value its multiple: 7 adds -6 * MaskFilterValue).
* The length types (KEY_SEQUENCE_LENGTH, KEY_SEQUENCE_END_START, KEY_QUERY_SEQUENCE_LENGTH_START_END): the scores
  of the keys outside are set to MaskFilterValue, except in a row that keeps no key at all, which is left unmasked.
* KEY_QUERY_SEQUENCE_LENGTH_START_END [keyLength (B) | queryStart (B) | queryEnd | keyStart (B) | keyEnd]: key j of
  batch b is kept when j < keyLength[b] and keyStart[b] <= b * T + j < keyStart[b + 1] (keyStart[B] = keyEnd; T the
  total key length): ONNX Runtime's cumulative offsets over the batch's tokens laid end to end. The query offsets
  are not read (no vector shows an effect of them).
"""
from __future__ import annotations

import numpy as np

from . import _elementwise as ew
from ._opset import ONNX, NumPy, Torch
from .activation_softmax import softmax, softmax_onnx, softmax_torch

STACK_INDEX = {"StackedQueryKeyTensor": {"q": 0, "k": 1}, "StackedKeyValueTensor": {"k": 0, "v": 1},
               "StackedQueryKeyValueTensor": {"q": 0, "k": 1, "v": 2}}


def _sizes(desc, name):
    t = desc.tensors().get(name)
    return None if t is None else list(t.sizes)


def geometry(desc) -> dict:
    """Every size the lowering needs, from the descriptor (names as the docs')."""
    hq = getattr(desc, "query_head_count", None) or desc.head_count
    hkv = getattr(desc, "key_value_head_count", None) or desc.head_count
    given = {n for n, t in desc.tensors().items() if t is not None}
    q_src = next(n for n in ("QueryTensor", "StackedQueryKeyTensor", "StackedQueryKeyValueTensor") if n in given)
    q = _sizes(desc, q_src)
    if q_src == "QueryTensor":
        batch, seq, head = q[-3], q[-2], q[-1] // hq
    else:
        batch, seq, head = q[0], q[1], q[4]
    k_src = next((n for n in ("KeyTensor", "StackedQueryKeyTensor", "StackedKeyValueTensor",
                              "StackedQueryKeyValueTensor") if n in given), None)
    kv_seq = 0 if k_src is None else (_sizes(desc, k_src)[-2] if k_src == "KeyTensor" else _sizes(desc, k_src)[1])
    v_src = next((n for n in ("ValueTensor", "StackedKeyValueTensor", "StackedQueryKeyValueTensor") if n in given),
                 None)
    if v_src == "ValueTensor":
        value_head = _sizes(desc, v_src)[-1] // hkv
    elif v_src is not None:
        value_head = head
    else:
        value_head = _sizes(desc, "PastValueTensor")[-1]
    past = next((_sizes(desc, n)[-2] for n in ("PastKeyTensor", "PastValueTensor") if n in given), 0)
    present = next((_sizes(desc, n)[-2] for n in ("OutputPresentKeyTensor", "OutputPresentValueTensor")
                    if n in given), None)
    return dict(hq=hq, hkv=hkv, batch=batch, seq=seq, head=head, value_head=value_head, kv_seq=kv_seq, past=past,
                total=past + kv_seq, present=present, q_src=q_src, k_src=k_src, v_src=v_src,
                lengths="PastSequenceLengthsTensor" in given)


# ---------------------------------------------------------------------------------------------------- op sets
# dmlops/ops/_opset.py's, with attention's own: DirectML's softmax steps, and the reference's GEMM.
class NumpyOps(NumPy):
    """The reference: GEMMs accumulated in float64 and rounded to float32 once, the rest in float32."""

    def store16(self, v):
        """``v`` stored in a FLOAT16 tensor (toward zero), back in float32."""
        return ew.float16_toward_zero(v).astype(np.float32)

    def matmul(self, a, b):
        """a @ b accumulated in float64, rounded to float32 once."""
        return np.matmul(a.astype(np.float64), b.astype(np.float64)).astype(np.float32)

    def softmax(self, v):
        """ACTIVATION_SOFTMAX's steps over the last axis."""
        return softmax(v, (-1,))

    def softmax16(self, v):
        """The softmax of FLOAT16 attention: the sum and the quotients stored in float16 (module docstring)."""
        with np.errstate(invalid="ignore", over="ignore"):
            m = np.max(np.where(np.isnan(v), np.float32(-np.inf), v), axis=-1, keepdims=True)
            e = np.exp(v - m)
            return self.store16(e / self.store16(np.sum(e, axis=-1, keepdims=True, dtype=np.float32)))


class OnnxOps(ONNX):
    """ONNX nodes ONNX Runtime's DirectML provider registers; constants in the dtype of value ``like``."""

    def __init__(self, g, like: str):
        super().__init__(g, g.dtype(like))

    def store16(self, v):
        """``v`` stored in a FLOAT16 tensor (toward zero), back in float32."""
        return ew.onnx_float16_toward_zero(self.g, v)

    def softmax(self, v):
        """ACTIVATION_SOFTMAX's steps over the last axis."""
        return softmax_onnx(self.g, v, (-1,), log=False)

    def softmax16(self, v):
        """The softmax of FLOAT16 attention: the sum and the quotients stored in float16 (module docstring)."""
        g = self.g
        skip = g.node("Where", [g.node("IsNaN", [v], dtype=np.bool_), self.const(-np.inf), v], dtype=np.float32)
        e = g.node("Exp", [g.node("Sub", [v, g.node("ReduceMax", [skip, g.ints([-1])], keepdims=1)])])
        total = self.store16(g.node("ReduceSum", [e, g.ints([-1])], keepdims=1))
        return self.store16(g.node("Div", [e, total]))


class TorchOps(Torch):
    """torch ops torch-directml registers; constants on the device and in the dtype of tensor ``like``."""

    def __init__(self, torch, like):
        super().__init__(torch, like.device, str(like.dtype).removeprefix("torch."))

    def store16(self, v):
        """``v`` stored in a FLOAT16 tensor (toward zero), back in float32."""
        return ew.torch_float16_toward_zero(self.torch, v)

    def softmax(self, v):
        """ACTIVATION_SOFTMAX's steps over the last axis."""
        return softmax_torch(self.torch, v, (-1,), log=False)

    def softmax16(self, v):
        """The softmax of FLOAT16 attention: the sum and the quotients stored in float16 (module docstring)."""
        torch = self.torch
        m = torch.amax(torch.where(torch.isnan(v), torch.full_like(v, -np.inf), v), dim=-1, keepdim=True)
        e = torch.exp(v - m)
        return self.store16(e / self.store16(e.sum(dim=-1, keepdim=True)))


# ---------------------------------------------------------------------------------------------------- the steps
def _heads(ops, v, batch, seq, heads, size):
    """[.., B, S, H * size] -> [B, H, S, size]."""
    return ops.transpose(ops.reshape(v, [batch, seq, heads, size]), [0, 2, 1, 3])


def _stacked(ops, v, index, batch, seq, heads, size):
    """Slice ``index`` of a [B, S, H, n, size] stacked tensor -> [B, H, S, size]."""
    return _heads(ops, ops.slice(v, 3, index, index + 1), batch, seq, heads, size)


def _mask(ops, desc, x, geo, scores):
    """``scores`` [B, H, S, T] with MaskTensor applied as DirectML applies each MaskType (module docstring)."""
    kind = desc.mask_type.name
    mask = x.get("MaskTensor")
    if kind == "NONE" or mask is None:
        return scores
    b, t = geo["batch"], geo["total"]
    filter_value = np.float32(desc.mask_filter_value)
    if kind == "BOOLEAN":
        m = ops.cast(ops.reshape(mask, [b, geo["hq"], geo["seq"], t]), np.float32)
        return ops.add(scores, ops.mul(ops.sub(ops.const(np.float32(1)), m), ops.const(filter_value)))
    positions = ops.const(np.arange(t, dtype=np.int32).reshape(1, t), dtype=np.int32)
    if kind == "KEY_SEQUENCE_LENGTH":
        keep = ops.lt(positions, ops.reshape(mask, [b, 1]))
    elif kind == "KEY_SEQUENCE_END_START":
        rows = ops.reshape(mask, [2, b])
        end = ops.reshape(ops.slice(rows, 0, 0, 1), [b, 1])
        start = ops.reshape(ops.slice(rows, 0, 1, 2), [b, 1])
        keep = ops.land(ops.le(start, positions), ops.lt(positions, end))
    else:  # KEY_QUERY_SEQUENCE_LENGTH_START_END
        flat = ops.reshape(mask, [3 * b + 2])
        lengths = ops.reshape(ops.slice(flat, 0, 0, b), [b, 1])
        first = ops.reshape(ops.slice(flat, 0, 2 * b + 1, 3 * b + 1), [b, 1])  # keyStart[b]
        after = ops.reshape(ops.slice(flat, 0, 2 * b + 2, 3 * b + 2), [b, 1])  # keyStart[b + 1], keyEnd
        token = ops.const((np.arange(b, dtype=np.int32).reshape(b, 1) * t + np.arange(t, dtype=np.int32)),
                          dtype=np.int32)  # b * T + j
        keep = ops.land(ops.lt(positions, lengths), ops.land(ops.le(first, token), ops.lt(token, after)))
    # a row that keeps no key is left unmasked (DirectML's answer: vector sample_key_length_zero_row)
    kept = ops.reduce_sum(ops.cast(keep, np.float32), [1])  # [B]
    keep = ops.lor(keep, ops.reshape(ops.eq(kept, ops.const(np.float32(0))), [b, 1]))
    return ops.where(ops.reshape(keep, [b, 1, 1, t]), scores, ops.const(filter_value))


def _cache(ops, past, new, lengths, geo, size, length):
    """MULTIHEAD_ATTENTION1's key/value cache [B, Hkv, ``length``, size]: PastKey (zeros where absent or shorter) with
    the new entries written at positions lengths[b] .. lengths[b] + keyValueSequenceLength - 1."""
    b, h, n = geo["batch"], geo["hkv"], geo["kv_seq"]
    parts = [] if past is None else [ops.slice(past, 2, 0, min(geo["past"], length))]
    have = min(geo["past"], length) if past is not None else 0
    if have < length:
        parts.append(ops.const(np.zeros([b, h, length - have, size], np.float32)))
    base = ops.concat(parts, 2)
    if n == 0:
        return base
    positions = ops.const(np.arange(length, dtype=np.int64).reshape(1, 1, length, 1), dtype=np.int64)
    offset = ops.sub(positions, lengths)  # [B, 1, length, 1]: the new entry each position takes
    inside = ops.land(ops.le(ops.const(np.zeros(1, np.int64), dtype=np.int64), offset),
                             ops.lt(offset, ops.const(np.full(1, n, np.int64), dtype=np.int64)))
    idx = ops.clip(offset, 0, n - 1)
    shape = [b, h, length, size]
    picked = ops.gather(new, idx, 2, shape)
    return ops.where(inside, picked, base)


def attention(ops, desc, x) -> dict:
    """Every output of MULTIHEAD_ATTENTION(1) in ``ops`` (module docstring)."""
    geo = geometry(desc)
    b, s, hq, hkv, d, dv = geo["batch"], geo["seq"], geo["hq"], geo["hkv"], geo["head"], geo["value_head"]
    n, t = geo["kv_seq"], geo["total"]

    # 1. Query, key, value as [B, H, S, D].
    qs = geo["q_src"]
    q = (_heads(ops, x[qs], b, s, hq, d) if qs == "QueryTensor"
         else _stacked(ops, x[qs], STACK_INDEX[qs]["q"], b, s, hq, d))
    k = v = None
    if geo["k_src"] == "KeyTensor":
        k = _heads(ops, x["KeyTensor"], b, n, hkv, d)
    elif geo["k_src"] is not None:
        k = _stacked(ops, x[geo["k_src"]], STACK_INDEX[geo["k_src"]]["k"], b, n, hkv, d)
    if geo["v_src"] == "ValueTensor":
        v = _heads(ops, x["ValueTensor"], b, n, hkv, dv)
    elif geo["v_src"] is not None:
        v = _stacked(ops, x[geo["v_src"]], STACK_INDEX[geo["v_src"]]["v"], b, n, hkv, dv)
    half = desc.output_tensor.data_type.name == "FLOAT16"
    if x.get("BiasTensor") is not None:
        bias = ops.reshape(x["BiasTensor"], [hq * d + hkv * d + hkv * dv])

        def part(v, start, heads, size):
            v = ops.add(v, ops.reshape(ops.slice(bias, 0, start, start + heads * size), [1, heads, 1, size]))
            return ops.store16(v) if half else v

        q = part(q, 0, hq, d)
        if k is not None:
            k = part(k, hq * d, hkv, d)
        if v is not None:
            v = part(v, hq * d + hkv * d, hkv, dv)

    # 2. The key and value sequences (and the present outputs).
    past_k, past_v = x.get("PastKeyTensor"), x.get("PastValueTensor")
    past_k = None if past_k is None else ops.reshape(past_k, [b, hkv, geo["past"], d])
    past_v = None if past_v is None else ops.reshape(past_v, [b, hkv, geo["past"], dv])
    causal = None
    if geo["lengths"]:
        lengths = ops.reshape(ops.cast(x["PastSequenceLengthsTensor"], np.int64), [b, 1, 1, 1])
        length = max(t, geo["present"] or 0)
        cache_k, cache_v = (_cache(ops, past_k, k, lengths, geo, d, length),
                            _cache(ops, past_v, v, lengths, geo, dv, length))
        keys, values = ops.slice(cache_k, 2, 0, t), ops.slice(cache_v, 2, 0, t)
        present_k = None if geo["present"] is None else ops.slice(cache_k, 2, 0, geo["present"])
        present_v = None if geo["present"] is None else ops.slice(cache_v, 2, 0, geo["present"])
        # Query i sits at position lengths[b] + (kvSeq - S) + i: it sees the keys up to there (causal, as
        # GroupQueryAttention), which also hides the cache beyond lengths[b] + kvSeq.
        key_pos = ops.const(np.arange(t, dtype=np.int64).reshape(1, 1, 1, t), dtype=np.int64)
        query_pos = ops.const((np.arange(s, dtype=np.int64) + (n - s)).reshape(1, 1, s, 1), dtype=np.int64)
        causal = ops.le(ops.sub(key_pos, query_pos), lengths)
    else:
        keys = ops.concat([p for p in (past_k, k) if p is not None], 2)
        values = ops.concat([p for p in (past_v, v) if p is not None], 2)
        present_k, present_v = keys, values

    # 3./4. Scores per key/value head over its group of query heads, masks, softmax, x V.
    g = hq // hkv
    q_grouped = ops.reshape(q, [b, hkv, g * s, d])
    scores = ops.reshape(ops.matmul(q_grouped, ops.transpose(keys, [0, 1, 3, 2])), [b, hq, s, t])
    if x.get("RelativePositionBiasTensor") is not None:
        scores = ops.add(scores, ops.reshape(x["RelativePositionBiasTensor"], [b, hq, s, t]))
    scores = ops.mul(scores, desc.scale)
    scores = _mask(ops, desc, x, geo, scores)
    if causal is not None:
        scores = ops.where(causal, scores, ops.const(np.float32(desc.mask_filter_value)))
    probs = ops.softmax16(ops.store16(scores)) if half else ops.softmax(scores)
    probs = ops.reshape(probs, [b, hkv, g * s, t])
    out = ops.reshape(ops.matmul(probs, values), [b, hq, s, dv])
    out = ops.transpose(out, [0, 2, 1, 3])
    result = {"OutputTensor": ops.reshape(out, _sizes(desc, "OutputTensor"))}
    for name, value in (("OutputPresentKeyTensor", present_k), ("OutputPresentValueTensor", present_v)):
        if _sizes(desc, name) is not None:
            result[name] = ops.reshape(value, _sizes(desc, name))
    return result


def reference(desc, x):
    """NumPy: GEMMs in float64 rounded to float32, softmax in float32 (DirectML's steps)."""
    return attention(NumpyOps(), desc, x)


def to_onnx(desc, g, x):
    like = next(v for k, v in x.items() if v is not None and k != "MaskTensor")
    return attention(OnnxOps(g, like), desc, x)


def to_torch(desc, torch, x):
    like = next(v for k, v in x.items() if v is not None and k != "MaskTensor")
    return attention(TorchOps(torch, like), desc, x)
