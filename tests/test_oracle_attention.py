"""B17 attention: MULTIHEAD_ATTENTION and MULTIHEAD_ATTENTION1 against independent oracles, on every backend.

* ONNX's Attention node cases (opset 23; onnx.backend.test.case.node.attention): 3-D and 4-D layouts, grouped heads,
  scale, value head sizes, float and boolean attn_mask, causal, past and present key/value. The float mask is
  RelativePositionBias divided by the scale (DirectML scales the bias with the scores), the boolean mask DirectML's
  BOOLEAN type (MaskFilterValue -10000 added, where ONNX writes -inf: the same softmax for a row with a kept key),
  is_causal a BOOLEAN lower triangle.
* torch on the CPU: F.scaled_dot_product_attention (with repeat_interleave for grouped heads and is_causal for
  MULTIHEAD_ATTENTION1's prompt step) and nn.MultiheadAttention (in-projection bias as BiasTensor,
  key_padding_mask as KEY_SEQUENCE_LENGTH).
* The refusals this batch adds to check().
"""
from __future__ import annotations

import numpy as np
import pytest
import torch

import dmlops
from dmlops.descs import MultiheadAttention, MultiheadAttention1
from dmlops.types import TensorDesc
from tests.onnx_node_cases import attribute, generated

BACKENDS = ["reference", "onnxruntime", "torch"]


def t(*sizes, data_type="FLOAT32"):
    return TensorDesc(data_type, list(sizes))


def run_all(desc, inputs):
    return {b: dmlops.run(desc, inputs, backend=b) for b in BACKENDS}


# ------------------------------------------------------------------------------------ ONNX Attention node cases
SKIP_WORDS = ("softcap", "bf16", "nonpad", "window", "fullymasked", "nan_robustness", "qk_matmul_output_mode",
              "padded_kv")
CASES = generated(["attention"])
NAMES = sorted(n for n in CASES if not any(w in n for w in SKIP_WORDS))


def _to_dml(case):
    """(desc, inputs, expected) of an ONNX Attention node case."""
    node, ins = case.node, dict(zip([n for n in case.node.input if n], case.inputs))
    q, k, v = ins["Q"], ins["K"], ins["V"]
    dt = "FLOAT16" if q.dtype == np.float16 else "FLOAT32"
    if q.ndim == 3:
        hq, hkv = attribute(node, "q_num_heads"), attribute(node, "kv_num_heads")
        b, s, _ = q.shape
        n = k.shape[1]
        d = q.shape[2] // hq
        dv = v.shape[2] // hkv
        q3, k3, v3 = q, k, v
    else:
        b, hq, s, d = q.shape
        hkv, n, dv = k.shape[1], k.shape[2], v.shape[3]
        q3 = q.transpose(0, 2, 1, 3).reshape(b, s, hq * d)
        k3 = k.transpose(0, 2, 1, 3).reshape(b, n, hkv * d)
        v3 = v.transpose(0, 2, 1, 3).reshape(b, n, hkv * dv)
    past = ins.get("past_key")
    p = 0 if past is None else past.shape[2]
    total = p + n
    fields = dict(query_tensor=t(b, s, hq * d, data_type=dt), key_tensor=t(b, n, hkv * d, data_type=dt),
                  value_tensor=t(b, n, hkv * dv, data_type=dt), output_tensor=t(b, s, hq * dv, data_type=dt),
                  scale=float(attribute(node, "scale", 1 / np.sqrt(d))), mask_filter_value=-10000.0,
                  mask_type="NONE")
    inputs = {"QueryTensor": q3, "KeyTensor": k3, "ValueTensor": v3}
    if past is not None:
        fields.update(past_key_tensor=t(b, hkv, p, d, data_type=dt), past_value_tensor=t(b, hkv, p, dv, data_type=dt))
        inputs.update(PastKeyTensor=past, PastValueTensor=ins["past_value"])
    outs = dict(zip(case.node.output, case.outputs))
    expected = {"OutputTensor": outs["Y"] if q.ndim == 3 else outs["Y"].transpose(0, 2, 1, 3).reshape(b, s, hq * dv)}
    if outs.get("present_key") is not None and "present_key" in node.output[1:3]:
        fields.update(output_present_key_tensor=t(b, hkv, total, d, data_type=dt),
                      output_present_value_tensor=t(b, hkv, total, dv, data_type=dt))
        expected.update(OutputPresentKeyTensor=outs["present_key"], OutputPresentValueTensor=outs["present_value"])
    keep = np.ones((b, hq, s, total), bool)
    boolean = False
    mask = ins.get("attn_mask")
    if mask is not None and mask.dtype == np.bool_:
        keep &= np.broadcast_to(mask, keep.shape)
        boolean = True
    elif mask is not None:
        # ONNX adds the float mask after the scale; DirectML scales RelativePositionBias with the scores
        # ((Q x K^T + bias) * Scale, vector MULTIHEAD_ATTENTION-sample_two_heads_all_optional): the mask / scale
        fields["relative_position_bias_tensor"] = t(b, hq, s, total, data_type=dt)
        bias = np.broadcast_to(mask, (b, hq, s, total)).astype(np.float64) / fields["scale"]
        inputs["RelativePositionBiasTensor"] = np.ascontiguousarray(bias.astype(mask.dtype))
    if attribute(node, "is_causal", 0):
        keep &= np.tril(np.ones((s, total), bool), k=p)  # ONNX's causal diagonal is offset by the past length
        boolean = True
    if boolean:
        fields.update(mask_tensor=t(b, hq, s, total, data_type="INT32"), mask_type="BOOLEAN")
        inputs["MaskTensor"] = keep.astype(np.int32)
    if hq == hkv:
        desc = MultiheadAttention(head_count=hq, **fields)
    else:
        desc = MultiheadAttention1(query_head_count=hq, key_value_head_count=hkv, **fields)
    return desc, inputs, expected


@pytest.mark.parametrize("name", NAMES)
def test_onnx_attention_node_cases(name):
    desc, inputs, expected = _to_dml(CASES[name])
    tol = 3e-3 if desc.output_tensor.data_type.name == "FLOAT16" else 2e-5
    for backend, out in run_all(desc, inputs).items():
        for field, want in expected.items():
            np.testing.assert_allclose(out[field].astype(np.float64), want.astype(np.float64), atol=tol, rtol=tol,
                                       err_msg=f"{name} on {backend}: {field}")


def test_the_node_cases_cover_what_the_batch_needs():
    assert len(NAMES) >= 40
    for word in ("gqa", "past_and_present", "attn_mask_bool", "causal", "scaled", "diff_heads", "3d", "fp16"):
        assert any(word in n for n in NAMES), word


# ------------------------------------------------------------------------------------ torch
def _rand(*shape, seed=0):
    return np.random.default_rng(seed + sum(shape)).standard_normal(shape).astype(np.float32)


def _sdpa(q, k, v, mask=None, scale=None, causal=False):
    """torch's SDPA on [B, H, S, D] NumPy arrays (grouped heads through repeat_interleave)."""
    qt, kt, vt = (torch.from_numpy(a) for a in (q, k, v))
    group = qt.shape[1] // kt.shape[1]
    kt, vt = kt.repeat_interleave(group, dim=1), vt.repeat_interleave(group, dim=1)
    m = None if mask is None else torch.from_numpy(mask)
    return torch.nn.functional.scaled_dot_product_attention(qt, kt, vt, attn_mask=m, scale=scale,
                                                            is_causal=causal).numpy()


def _merge(y):
    b, h, s, d = y.shape
    return y.transpose(0, 2, 1, 3).reshape(b, s, h * d)


@pytest.mark.parametrize("hq,hkv", [(2, 2), (4, 2), (3, 1)])
def test_torch_sdpa_grouped_with_past(hq, hkv):
    b, s, n, p, d, dv = 2, 3, 4, 2, 4, 5
    q, k, v = _rand(b, hq, s, d), _rand(b, hkv, n, d, seed=1), _rand(b, hkv, n, dv, seed=2)
    pk, pv = _rand(b, hkv, p, d, seed=3), _rand(b, hkv, p, dv, seed=4)
    cls = MultiheadAttention if hq == hkv else MultiheadAttention1
    heads = dict(head_count=hq) if hq == hkv else dict(query_head_count=hq, key_value_head_count=hkv)
    desc = cls(query_tensor=t(b, s, hq * d), key_tensor=t(b, n, hkv * d), value_tensor=t(b, n, hkv * dv),
               past_key_tensor=t(b, hkv, p, d), past_value_tensor=t(b, hkv, p, dv), output_tensor=t(b, s, hq * dv),
               output_present_key_tensor=t(b, hkv, p + n, d), scale=0.3, mask_filter_value=-10000.0,
               mask_type="NONE", **heads)
    inputs = {"QueryTensor": _merge(q), "KeyTensor": _merge(k), "ValueTensor": _merge(v), "PastKeyTensor": pk,
              "PastValueTensor": pv}
    keys, values = np.concatenate([pk, k], 2), np.concatenate([pv, v], 2)
    want = _merge(_sdpa(q, keys, values, scale=0.3))
    for backend, out in run_all(desc, inputs).items():
        np.testing.assert_allclose(out["OutputTensor"], want, atol=2e-6, rtol=2e-5, err_msg=backend)
        np.testing.assert_array_equal(out["OutputPresentKeyTensor"], keys, err_msg=backend)


def test_torch_sdpa_causal_prompt_is_mha1_with_zero_past_lengths():
    b, s, hq, hkv, d = 2, 5, 4, 2, 3
    q, k, v = _rand(b, hq, s, d), _rand(b, hkv, s, d, seed=1), _rand(b, hkv, s, d, seed=2)
    desc = MultiheadAttention1(query_tensor=t(b, s, hq * d), key_tensor=t(b, s, hkv * d),
                               value_tensor=t(b, s, hkv * d), past_sequence_lengths_tensor=t(b),
                               output_tensor=t(b, s, hq * d), output_present_key_tensor=t(b, hkv, 8, d),
                               scale=float(1 / np.sqrt(d)), mask_filter_value=-10000.0, query_head_count=hq,
                               key_value_head_count=hkv, mask_type="NONE")
    inputs = {"QueryTensor": _merge(q), "KeyTensor": _merge(k), "ValueTensor": _merge(v),
              "PastSequenceLengthsTensor": np.zeros(b, np.float32)}
    want = _merge(_sdpa(q, k, v, causal=True))
    present = np.concatenate([k, np.zeros((b, hkv, 3, d), np.float32)], 2)
    for backend, out in run_all(desc, inputs).items():
        np.testing.assert_allclose(out["OutputTensor"], want, atol=2e-6, rtol=2e-5, err_msg=backend)
        np.testing.assert_array_equal(out["OutputPresentKeyTensor"], present, err_msg=backend)


def test_torch_sdpa_decode_step_reads_the_cache_up_to_each_length():
    b, hq, hkv, d, cache = 2, 2, 1, 4, 6
    lengths = [2, 5]
    q, k, v = _rand(b, hq, 1, d), _rand(b, hkv, 1, d, seed=1), _rand(b, hkv, 1, d, seed=2)
    pk, pv = _rand(b, hkv, cache, d, seed=3), _rand(b, hkv, cache, d, seed=4)
    desc = MultiheadAttention1(query_tensor=t(b, 1, hq * d), key_tensor=t(b, 1, hkv * d),
                               value_tensor=t(b, 1, hkv * d), past_key_tensor=t(b, hkv, cache, d),
                               past_value_tensor=t(b, hkv, cache, d), past_sequence_lengths_tensor=t(b),
                               output_tensor=t(b, 1, hq * d), output_present_value_tensor=t(b, hkv, cache, d),
                               scale=0.5, mask_filter_value=-10000.0, query_head_count=hq, key_value_head_count=hkv,
                               mask_type="NONE")
    inputs = {"QueryTensor": _merge(q), "KeyTensor": _merge(k), "ValueTensor": _merge(v), "PastKeyTensor": pk,
              "PastValueTensor": pv, "PastSequenceLengthsTensor": np.array(lengths, np.float32)}
    want, present = [], pv.copy()
    for i, length in enumerate(lengths):
        keys = np.concatenate([pk[i:i + 1, :, :length], k[i:i + 1]], 2)
        values = np.concatenate([pv[i:i + 1, :, :length], v[i:i + 1]], 2)
        want.append(_sdpa(q[i:i + 1], keys, values, scale=0.5))
        present[i, :, length] = v[i, :, 0]
    want = _merge(np.concatenate(want))
    for backend, out in run_all(desc, inputs).items():
        np.testing.assert_allclose(out["OutputTensor"], want, atol=2e-6, rtol=2e-5, err_msg=backend)
        np.testing.assert_array_equal(out["OutputPresentValueTensor"], present, err_msg=backend)


def test_torch_multihead_attention_module_with_bias_and_key_padding():
    torch.manual_seed(0)
    embed, heads, b, s, n = 8, 2, 2, 3, 4
    mha = torch.nn.MultiheadAttention(embed, heads, batch_first=True, bias=True)
    with torch.no_grad():
        mha.in_proj_bias.uniform_(-1, 1)
    x, mem = torch.randn(b, s, embed), torch.randn(b, n, embed)
    lengths = [2, 4]
    pad = torch.tensor([[j >= length for j in range(n)] for length in lengths])
    with torch.no_grad():
        want, _ = mha(x, mem, mem, key_padding_mask=pad, need_weights=False)
        wq, wk, wv = mha.in_proj_weight.chunk(3)
        inputs = {"QueryTensor": (x @ wq.T).numpy(), "KeyTensor": (mem @ wk.T).numpy(),
                  "ValueTensor": (mem @ wv.T).numpy(), "BiasTensor": mha.in_proj_bias.numpy(),
                  "MaskTensor": np.array([lengths], np.int32)}
    desc = MultiheadAttention(query_tensor=t(b, s, embed), key_tensor=t(b, n, embed), value_tensor=t(b, n, embed),
                              bias_tensor=t(3 * embed), mask_tensor=t(1, b, data_type="INT32"),
                              output_tensor=t(b, s, embed), scale=float(1 / np.sqrt(embed // heads)),
                              mask_filter_value=-10000.0, head_count=heads, mask_type="KEY_SEQUENCE_LENGTH")
    for backend, out in run_all(desc, inputs).items():
        with torch.no_grad():
            got = mha.out_proj(torch.from_numpy(out["OutputTensor"])).numpy()
        np.testing.assert_allclose(got, want.numpy(), atol=3e-6, rtol=2e-5, err_msg=backend)


@pytest.mark.parametrize("layout", ["StackedQueryKeyValueTensor", "StackedQueryKeyTensor", "StackedKeyValueTensor"])
def test_stacked_layouts_are_the_unstacked_tensors(layout):
    b, s, h, d = 2, 3, 2, 4
    q, k, v = _rand(b, s, h, d), _rand(b, s, h, d, seed=1), _rand(b, s, h, d, seed=2)
    common = dict(output_tensor=t(b, s, h * d), scale=0.5, mask_filter_value=-10000.0, head_count=h,
                  mask_type="NONE", bias_tensor=t(3 * h * d))
    bias = _rand(3 * h * d, seed=5)
    plain = MultiheadAttention(query_tensor=t(b, s, h * d), key_tensor=t(b, s, h * d), value_tensor=t(b, s, h * d),
                               **common)
    want = dmlops.run(plain, {"QueryTensor": q.reshape(b, s, -1), "KeyTensor": k.reshape(b, s, -1),
                              "ValueTensor": v.reshape(b, s, -1), "BiasTensor": bias}, backend="reference")
    if layout == "StackedQueryKeyValueTensor":
        fields, inputs = dict(stacked_query_key_value_tensor=t(b, s, h, 3, d)), {layout: np.stack([q, k, v], 3)}
    elif layout == "StackedQueryKeyTensor":
        fields = dict(stacked_query_key_tensor=t(b, s, h, 2, d), value_tensor=t(b, s, h * d))
        inputs = {layout: np.stack([q, k], 3), "ValueTensor": v.reshape(b, s, -1)}
    else:
        fields = dict(query_tensor=t(b, s, h * d), stacked_key_value_tensor=t(b, s, h, 2, d))
        inputs = {"QueryTensor": q.reshape(b, s, -1), layout: np.stack([k, v], 3)}
    desc = MultiheadAttention(**fields, **common)
    for backend, out in run_all(desc, {**inputs, "BiasTensor": bias}).items():
        np.testing.assert_allclose(out["OutputTensor"], want["OutputTensor"], atol=2e-6, rtol=2e-5, err_msg=backend)


# ------------------------------------------------------------------------------------ refusals
def messages(desc):
    return [str(p) for p in dmlops.problems(desc, "6.4")]


def test_past_key_and_value_come_together():
    base = dict(query_tensor=t(1, 2, 4), key_tensor=t(1, 3, 4), value_tensor=t(1, 3, 4), output_tensor=t(1, 2, 4),
                scale=1.0, mask_filter_value=-10000.0, head_count=2, mask_type="NONE")
    found = messages(MultiheadAttention(past_key_tensor=t(1, 2, 5, 2), **base))
    assert "MULTIHEAD_ATTENTION.PastValueTensor: is missing while PastKeyTensor is given; the past key and value " \
           "come together." in found
    found = messages(MultiheadAttention(**{**base, "key_tensor": None}, past_key_tensor=t(1, 2, 5, 2),
                                        past_value_tensor=t(1, 2, 5, 2)))
    assert found[0] == ("MULTIHEAD_ATTENTION.KeyTensor: is missing while a new value is given; the key and value "
                        "sequences must have the same length.")
    with pytest.raises(dmlops.DmlOpsError, match="PastValueTensor: is missing while PastKeyTensor is given"):
        dmlops.run(MultiheadAttention(past_key_tensor=t(1, 2, 5, 2), **base), {}, backend="reference")


def _mask_desc(kind, sizes, batch=2, cls=MultiheadAttention, **heads):
    heads = heads or dict(head_count=1)
    return cls(query_tensor=t(batch, 1, 1), key_tensor=t(batch, 3, 1), value_tensor=t(batch, 3, 1),
               output_tensor=t(batch, 1, 1), mask_tensor=t(*sizes, data_type="INT32"), mask_type=kind, scale=1.0,
               mask_filter_value=-10000.0, **heads)


@pytest.mark.parametrize("kind,sizes,layout", [
    ("KEY_SEQUENCE_END_START", [1], r"\{2, batchSize\} = \[2, 2\]"),
    ("KEY_SEQUENCE_END_START", [2], r"\{2, batchSize\} = \[2, 2\]"),
    ("KEY_SEQUENCE_LENGTH", [2], r"\{1, batchSize\} = \[1, 2\]"),
    ("BOOLEAN", [1, 3], r"\{batchSize, headCount, sequenceLength, pastSequenceLength \+ keyValueSequenceLength\} = "
                        r"\[2, 1, 1, 3\]"),
])
def test_a_mask_with_fewer_dimensions_than_its_type_is_refused(kind, sizes, layout):
    """The tiers allow 1 to 5 dimensions for any MaskType; a KEY_SEQUENCE_END_START mask of Sizes [1] used to pass
    problems() and crash every backend in a reshape."""
    desc = _mask_desc(kind, sizes)
    found = messages(desc)
    assert len(found) == 1
    assert found[0].startswith(f"MULTIHEAD_ATTENTION.MaskTensor: Sizes {sizes} do not match ")
    zeros = {"QueryTensor": np.zeros((2, 1, 1), np.float32), "KeyTensor": np.zeros((2, 3, 1), np.float32),
             "ValueTensor": np.zeros((2, 3, 1), np.float32), "MaskTensor": np.zeros(sizes, np.int32)}
    for backend in BACKENDS:
        with pytest.raises(dmlops.DmlOpsError,
                           match=r"MULTIHEAD_ATTENTION\.MaskTensor: Sizes .* do not match " + layout):
            dmlops.run(desc, zeros, backend=backend)
    one = _mask_desc(kind, sizes, cls=MultiheadAttention1, query_head_count=1, key_value_head_count=1)
    found = messages(one)
    assert len(found) == 1 and found[0].startswith(f"MULTIHEAD_ATTENTION1.MaskTensor: Sizes {sizes} do not match ")


@pytest.mark.parametrize("kind,sizes", [("KEY_SEQUENCE_END_START", [2, 2]), ("KEY_SEQUENCE_END_START", [1, 1, 2, 2]),
                                        ("KEY_SEQUENCE_LENGTH", [1, 2]), ("KEY_QUERY_SEQUENCE_LENGTH_START_END", [8]),
                                        ("BOOLEAN", [2, 1, 1, 3])])
def test_masks_of_their_layout_are_valid(kind, sizes):
    assert messages(_mask_desc(kind, sizes)) == []


def _hand(mask_type, mask, q=(0.0, 0.0), keys=((1, 2, 3), (4, 5, 6)), values=((3, 6, 12), (-3, 0, 9))):
    """Outputs of a 2-batch, 1-query, 3-key, headSize-1 attention with ``mask`` on every backend."""
    mask = np.asarray(mask, np.int32)
    desc = _mask_desc(mask_type, list(mask.shape))
    inputs = {"QueryTensor": np.array(q, np.float32).reshape(2, 1, 1),
              "KeyTensor": np.array(keys, np.float32).reshape(2, 3, 1),
              "ValueTensor": np.array(values, np.float32).reshape(2, 3, 1), "MaskTensor": mask}
    return {b: out["OutputTensor"].ravel() for b, out in run_all(desc, inputs).items()}


def test_length_masks_leave_a_row_without_keys_unmasked():
    """DirectML's answer (vector MULTIHEAD_ATTENTION-sample_key_length_zero_row): a length of 0 gives the plain
    softmax, not the mean that setting every score to MaskFilterValue would give. Scores q . k with q = 1:
    batch 0 [1, 2, 3] (length 0: softmax of all three), batch 1 [4, 5, 6] (length 2: keys 4, 5 only)."""
    def softmax_mean(scores, values):
        e = np.exp(np.array(scores, np.float64) - max(scores))
        return float(e @ np.array(values, np.float64) / e.sum())

    want = [softmax_mean([1, 2, 3], [3, 6, 12]), softmax_mean([4, 5], [-3, 0])]
    for kind, mask in (("KEY_SEQUENCE_LENGTH", [[0, 2]]), ("KEY_SEQUENCE_END_START", [[1, 2], [1, 0]])):
        for backend, got in _hand(kind, mask, q=(1.0, 1.0)).items():
            np.testing.assert_allclose(got, want, rtol=1e-6, err_msg=f"{kind} on {backend}")


def test_boolean_mask_adds_one_minus_the_mask_times_the_filter():
    """DirectML's answer (vector MULTIHEAD_ATTENTION-sample_hand_boolean): a mask value m adds
    (1 - m) * MaskFilterValue, so 2 adds +10000 and that key takes the whole softmax; q = 0, so the kept keys share it equally."""
    for backend, got in _hand("BOOLEAN", np.array([[1, 0, 1], [1, 2, 1]]).reshape(2, 1, 1, 3)).items():
        assert got.tolist() == [7.5, 0.0], backend
