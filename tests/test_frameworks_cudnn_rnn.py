"""tensorflow.cudnn_rnn_v3 / cudnn_rnn_backprop_v3 with rnn_mode gru on every backend, against torch.nn.GRU (float64,
autograd, packed sequences; tests/cudnn_rnn_oracle.py) and against the GRU backward of research/seed_semantics.md §2.4
written in NumPy; dropout against a hand-built two-layer torch model fed the mask from reserve_space; the lowest
feature levels; every argument error.

Tolerances. FLOAT32: 1e-5 abs on outputs and gradients (float32 rounding of a few dozen products and sums per value;
measured over these files' cases: outputs 1.5e-7, gradients 8.5e-7). FLOAT16: inputs, weights and upstream gradients
are float16 values, fed unchanged to the float64 oracle; every node output is rounded to float16 (relative step
4.9e-4), and the errors add up over the T steps and over the T * N rows each weight gradient sums, so outputs get
5e-3 abs and gradients 5e-3 times max(1, the largest gradient magnitude) (measured: outputs 8.9e-4, gradients 2.0e-3
at magnitudes up to 3.5).
"""
import numpy as np
import pytest
import torch

from dmlops.errors import DmlOpsError
from dmlops.frameworks.tensorflow.cudnn_rnn import cudnn_rnn_backprop_v3, cudnn_rnn_v3, sequence_masks
from dmlops.frameworks.tensorflow.cudnn_rnn_params import params_from_torch, params_size
from dmlops.types import FeatureLevel
from tests.cudnn_rnn_oracle import MODULES, make_case, torch_oracle

BACKENDS = ("reference", "onnxruntime", "torch")
GRADS = ("input_backprop", "input_h_backprop", "input_c_backprop", "params_backprop")


def run_both(case, backend, **extra):
    """cudnn_rnn_v3 then cudnn_rnn_backprop_v3 on ``case`` (tests/cudnn_rnn_oracle.py)."""
    args = (case["input"], case["input_h"], case["input_c"], case["params"], case["sequence_lengths"])
    fwd = cudnn_rnn_v3(*args, **case["attrs"], **extra, backend=backend)
    bwd = cudnn_rnn_backprop_v3(*args, fwd.output, fwd.output_h, fwd.output_c, case["output_backprop"],
                                case["output_h_backprop"], case["output_c_backprop"], fwd.reserve_space,
                                fwd.host_reserved, **case["attrs"], **extra, backend=backend)
    return fwd, bwd


def assert_matches(case, fwd, bwd, expected, float16=False):
    """Every output and gradient against the oracle, with the tolerances of the module docstring."""
    dtype = np.float16 if float16 else np.float32
    for name in ("output", "output_h", "output_c"):
        if expected[name] is None:
            assert getattr(fwd, name).shape == ()  # a placeholder, as TensorFlow's for non-LSTM modes
            continue
        got = getattr(fwd, name)
        assert got.dtype == dtype and got.shape == expected[name].shape, name
        np.testing.assert_allclose(got, expected[name], rtol=0, atol=5e-3 if float16 else 1e-5, err_msg=name)
    for name in GRADS:
        if expected[name] is None:
            assert getattr(bwd, name).shape == ()
            continue
        got, want = getattr(bwd, name), expected[name]
        assert got.dtype == dtype and got.shape == want.shape, name
        assert np.abs(want).max() > 1e-2, f"{name}: a vanishing oracle gradient would test nothing"
        atol = 5e-3 * max(1.0, np.abs(want).max()) if float16 else 1e-5
        np.testing.assert_allclose(got, want, rtol=0, atol=atol, err_msg=name)


# ------------------------------------------------------------------------------------------ GRU, every variant
GRU_CASES = [  # (bidirectional, layers, time_major, sequence_lengths) with T=4, N=3, I=3, H=4
    (b, layers, tm, lengths)
    for b in (False, True) for layers in (1, 2) for tm in (True, False) for lengths in (None, [4, 1, 3])
]


@pytest.mark.parametrize("bidirectional,layers,time_major,lengths", GRU_CASES)
def test_gru_matches_torch_float32(bidirectional, layers, time_major, lengths):
    case = make_case("gru", 4, 3, 3, 4, layers, bidirectional, time_major, lengths, np.float32, seed=layers)
    expected = torch_oracle(case)
    for backend in BACKENDS:
        fwd, bwd = run_both(case, backend)
        assert_matches(case, fwd, bwd, expected)


@pytest.mark.parametrize("steps,batch,lengths", [(1, 3, [1, 1, 1]), (4, 1, None), (4, 1, [2])])
def test_gru_edge_shapes(steps, batch, lengths):
    """One time step (the previous state is input_h only), one sequence (N = 1: batch-major and time-major buffers
    coincide), every sequence of length 1."""
    case = make_case("gru", steps, batch, 2, 3, 2, True, False, lengths, np.float32, seed=steps)
    expected = torch_oracle(case)
    for backend in BACKENDS:
        fwd, bwd = run_both(case, backend)
        assert_matches(case, fwd, bwd, expected)


@pytest.mark.parametrize("backend", BACKENDS)
def test_gru_matches_torch_float16(backend):
    case = make_case("gru", 4, 3, 3, 4, 2, True, False, [4, 2, 1], np.float16, seed=5)
    fwd, bwd = run_both(case, backend)
    assert_matches(case, fwd, bwd, torch_oracle(case), float16=True)


def test_padding_is_zero_and_its_gradient_ignored():
    """Outputs past a sequence's end are 0; output_backprop there changes nothing (cuDNN's padded I/O)."""
    case = make_case("gru", 4, 3, 3, 4, 1, True, True, [4, 1, 3], np.float32, seed=2)
    fwd, bwd = run_both(case, "onnxruntime")
    assert np.all(fwd.output[1:, 1] == 0) and np.all(fwd.output[3:, 2] == 0)  # exact: DirectML zero-fills
    assert np.abs(fwd.output[0, 1]).min() > 0
    noisy = dict(case, output_backprop=case["output_backprop"].copy())
    noisy["output_backprop"][1:, 1] = 100.0
    noisy["output_backprop"][3:, 2] = -100.0
    _, bwd_noisy = run_both(noisy, "onnxruntime")
    for name in ("input_backprop", "input_h_backprop", "params_backprop"):
        np.testing.assert_array_equal(getattr(bwd_noisy, name), getattr(bwd, name))  # same graph, same data


def _gru_bptt_numpy(x, h0, w, r, bw, br, lengths, dy, dhn):
    """seed_semantics.md §2.4 (LBR=1) in NumPy float64 for one forward-direction layer, canonical r, z, h blocks.
    Returns (dx, dh0, dW, dR, dbW, dbR)."""
    steps, batch, _ = x.shape
    hidden = h0.shape[-1]
    sig = lambda v: 1 / (1 + np.exp(-v))  # noqa: E731
    hs, cache = [h0], []
    for t in range(steps):
        hp = hs[-1]
        gx, gh = x[t] @ w.T + bw, hp @ r.T + br
        rr, z = sig(gx[:, :hidden] + gh[:, :hidden]), sig(gx[:, hidden:2 * hidden] + gh[:, hidden:2 * hidden])
        q = gh[:, 2 * hidden:]
        n = np.tanh(gx[:, 2 * hidden:] + rr * q)
        valid = (t < lengths)[:, None]
        hs.append(np.where(valid, (1 - z) * n + z * hp, hp))
        cache.append((hp, rr, z, q, n, valid))
    dx, dw, dr = np.zeros_like(x), np.zeros_like(w), np.zeros_like(r)
    dbw, dbr = np.zeros_like(bw), np.zeros_like(br)
    dh = dhn.copy()
    for t in reversed(range(steps)):
        hp, rr, z, q, n, valid = cache[t]
        dht = dh + np.where(valid, dy[t], 0)
        dn, dz = dht * (1 - z), dht * (hp - n)
        da_h = dn * (1 - n * n)
        dlin = da_h * rr
        da_r, da_z = da_h * q * rr * (1 - rr), dz * z * (1 - z)
        da_x = np.where(valid, np.concatenate([da_r, da_z, da_h], 1), 0)
        da_h_rec = np.where(valid, np.concatenate([da_r, da_z, dlin], 1), 0)
        dw += da_x.T @ x[t]
        dr += da_h_rec.T @ hp
        dbw += da_x.sum(0)
        dbr += da_h_rec.sum(0)
        dx[t] = da_x @ w
        dh = np.where(valid, dht * z + da_h_rec @ r, dht)
    return dx, dh, dw, dr, dbw, dbr


@pytest.mark.parametrize("backend", BACKENDS)
def test_gru_backward_matches_seed_semantics_formulas(backend):
    case = make_case("gru", 5, 3, 2, 3, 1, False, True, [5, 2, 1], np.float32, seed=9)
    h, i = 3, 2
    p = case["params"].astype(np.float64)
    w = p[:3 * h * i].reshape(3 * h, i)
    r = p[3 * h * i:3 * h * (i + h)].reshape(3 * h, h)
    bw, br = p[3 * h * (i + h):3 * h * (i + h + 1)], p[3 * h * (i + h + 1):]
    dx, dh0, dw, dr, dbw, dbr = _gru_bptt_numpy(
        case["input"].astype(np.float64), case["input_h"][0].astype(np.float64), w, r, bw, br,
        case["sequence_lengths"], case["output_backprop"].astype(np.float64),
        case["output_h_backprop"][0].astype(np.float64))
    _, bwd = run_both(case, backend)
    tol = 1e-5  # float32 rounding (module docstring)
    np.testing.assert_allclose(bwd.input_backprop, dx, atol=tol, rtol=0)
    np.testing.assert_allclose(bwd.input_h_backprop[0], dh0, atol=tol, rtol=0)
    expected = np.concatenate([dw.ravel(), dr.ravel(), dbw, dbr])
    np.testing.assert_allclose(bwd.params_backprop, expected, atol=tol, rtol=0)
    # §2.4: with LinearBeforeReset the z and r bias gradients of both sides are equal; the h ones differ.
    np.testing.assert_allclose(dbw[:2 * h], dbr[:2 * h], atol=1e-12)
    assert np.abs(dbw[2 * h:] - dbr[2 * h:]).max() > 1e-3


# ------------------------------------------------------------------------------------------ hand-computed values
@pytest.mark.parametrize("backend", BACKENDS)
def test_rnn_tanh_one_step_by_hand(backend):
    """h = tanh(w x + b_w + r h0 + b_r) with x = 1, w = ln 2, h0 = 1/2, r = ln 2, b_w = -ln 2 / 2, b_r = 0:
    pre = ln 2, h = tanh(ln 2) = 3/5. With dh = 1: dpre = 1 - 9/25 = 16/25, dx = 16/25 ln 2, dh0 = 16/25 ln 2,
    dw = 16/25 * x = 16/25, dr = 16/25 * h0 = 8/25, db_w = db_r = 16/25."""
    ln2 = np.log(2)
    params = np.array([ln2, ln2, -ln2 / 2, 0.0], np.float32)  # [W, R, b_W, b_R]
    x, h0 = np.ones((1, 1, 1), np.float32), np.full((1, 1, 1), 0.5, np.float32)
    fwd = cudnn_rnn_v3(x, h0, h0, params, rnn_mode="rnn_tanh", backend=backend)
    np.testing.assert_allclose(fwd.output.ravel(), [0.6], atol=1e-6)  # float32 rounding of ln 2
    zero, one = np.zeros((1, 1, 1), np.float32), np.ones((1, 1, 1), np.float32)
    bwd = cudnn_rnn_backprop_v3(x, h0, h0, params, None, fwd.output, fwd.output_h, fwd.output_c, zero, one, zero,
                                fwd.reserve_space, fwd.host_reserved, rnn_mode="rnn_tanh", backend=backend)
    k = 16 / 25
    np.testing.assert_allclose(bwd.input_backprop.ravel(), [k * ln2], atol=1e-6)
    np.testing.assert_allclose(bwd.input_h_backprop.ravel(), [k * ln2], atol=1e-6)
    np.testing.assert_allclose(bwd.params_backprop, [k, k / 2, k, k], atol=1e-6)


# ------------------------------------------------------------------------------------------ dropout
@pytest.mark.parametrize("mode,backend,dtype", [(m, b, np.float32) for m in ("gru", "lstm") for b in BACKENDS]
                         + [("gru", "onnxruntime", np.float16)])
def test_dropout_mask_in_reserve_space_is_used_by_the_backward(mode, backend, dtype):
    """Two bidirectional layers with dropout 0.4: the reserve_space mask (0 or 1 / 0.6) applied to layer 0's output
    in a hand-built two-layer torch model reproduces the forward, and autograd of that model the backward."""
    t, n, i, h = 4, 3, 3, 4
    case = make_case(mode, t, n, i, h, 2, True, True, None, dtype, seed=11)
    fwd, bwd = run_both(case, backend, dropout=0.4, seed=7, seed2=3)
    block = t * n * 2 * h
    assert fwd.reserve_space.shape == (3 * block,) and fwd.reserve_space.dtype == dtype  # two sequences, one mask
    mask = fwd.reserve_space[2 * block:].reshape(t, n, 2 * h)
    # 1 / 0.6 as DirectML stores it: float32, or FLOAT16 rounded toward zero (DirectML's CAST vectors): 1706 / 1024,
    # one float16 ulp below numpy's nearest 1707 / 1024.
    keep = np.float32(1 / 0.6) if dtype == np.float32 else np.float16(1706 / 1024)
    np.testing.assert_array_equal(np.unique(np.abs(mask)), np.array([0, keep], dtype))
    # Float32: 1e-5 abs; float16: 5e-3 times the largest magnitude (module docstring).
    tol = (lambda want: 1e-5) if dtype == np.float32 else (lambda want: 5e-3 * max(1.0, np.abs(want).max()))
    assert 0.3 < (mask > 0).mean() < 0.9  # 96 draws of keep-probability 0.6

    weights = torch_oracle_params(case)
    cls, _ = MODULES[mode]
    layer0, layer1 = cls(i, h, bidirectional=True).double(), cls(2 * h, h, bidirectional=True).double()
    layer0.load_state_dict({k: v for k, v in weights.items() if "_l0" in k})
    layer1.load_state_dict({k.replace("_l1", "_l0"): v for k, v in weights.items() if "_l1" in k})

    def leaf(a):
        return torch.from_numpy(a.astype(np.float64)).requires_grad_(True)

    x, h0, c0 = leaf(case["input"]), leaf(case["input_h"]), leaf(case["input_c"])
    first, second = ((h0[:2], c0[:2]), (h0[2:], c0[2:])) if mode == "lstm" else (h0[:2], h0[2:])
    y0, final0 = layer0(x, first)
    y1, final1 = layer1(y0 * torch.from_numpy(mask.astype(np.float64)), second)
    finals = list(zip(final0, final1)) if mode == "lstm" else [(final0, final1)]
    np.testing.assert_allclose(fwd.output, y1.detach().numpy(), atol=tol(0), rtol=0)
    loss = (y1 * torch.from_numpy(case["output_backprop"].astype(np.float64))).sum()
    for (a, b), upstream in zip(finals, ("output_h_backprop", "output_c_backprop")):
        loss = loss + (torch.cat([a, b]) * torch.from_numpy(case[upstream].astype(np.float64))).sum()
    loss.backward()
    grads = {**dict(layer0.named_parameters()), **{k.replace("_l0", "_l1"): p for k, p in layer1.named_parameters()}}
    expected = params_from_torch({k: p.grad for k, p in grads.items()})
    pairs = [(bwd.params_backprop, expected), (bwd.input_backprop, x.grad.numpy()),
             (bwd.input_h_backprop, h0.grad.numpy())]
    if mode == "lstm":
        pairs.append((bwd.input_c_backprop, c0.grad.numpy()))
    for got, want in pairs:
        np.testing.assert_allclose(got, want, atol=tol(want), rtol=0)


def torch_oracle_params(case):
    """The case's params as a float64 torch state_dict."""
    from dmlops.frameworks.tensorflow.cudnn_rnn_params import params_to_torch

    return {k: v.double() for k, v in params_to_torch(case["params"], **case["shape"]).items()}


def test_dropout_is_deterministic_per_seed_and_off_when_not_training():
    case = make_case("gru", 3, 2, 2, 2, 2, False, True, None, np.float32, seed=1)
    args = (case["input"], case["input_h"], None, case["params"])
    a = cudnn_rnn_v3(*args, rnn_mode="gru", dropout=0.5, seed=1, seed2=2)
    b = cudnn_rnn_v3(*args, rnn_mode="gru", dropout=0.5, seed=1, seed2=2)
    other = cudnn_rnn_v3(*args, rnn_mode="gru", dropout=0.5, seed=1, seed2=3)
    plain = cudnn_rnn_v3(*args, rnn_mode="gru")
    inference = cudnn_rnn_v3(*args, rnn_mode="gru", dropout=0.5, seed=1, seed2=2, is_training=False)
    np.testing.assert_array_equal(a.reserve_space, b.reserve_space)
    assert not np.array_equal(a.reserve_space, other.reserve_space)
    assert not np.allclose(a.output, plain.output)
    np.testing.assert_array_equal(inference.output, plain.output)  # dropout applies only in training
    assert inference.reserve_space.shape == () and inference.host_reserved.dtype == np.int8
    # One layer: dropout has nothing to apply to (cuDNN applies it between layers only).
    one = make_case("gru", 3, 2, 2, 2, 1, False, True, None, np.float32, seed=1)
    single = cudnn_rnn_v3(one["input"], one["input_h"], None, one["params"], rnn_mode="gru", dropout=0.5)
    np.testing.assert_array_equal(single.output, cudnn_rnn_v3(one["input"], one["input_h"], None, one["params"],
                                                              rnn_mode="gru").output)


# ------------------------------------------------------------------------------------------ graphs and levels
@pytest.mark.parametrize("mode", ["gru", "lstm", "rnn_relu", "rnn_tanh"])
def test_lowest_feature_levels(mode):
    case = make_case(mode, 3, 2, 2, 3, 2, True, False, [3, 1], np.float32, seed=0)
    args = (case["input"], case["input_h"], case["input_c"], case["params"], case["sequence_lengths"])
    fwd_graph = cudnn_rnn_v3(*args, **case["attrs"], return_graph=True)
    assert fwd_graph.lowest_feature_level == FeatureLevel.parse("1.0")
    fwd = fwd_graph.run("reference")
    bwd_graph = cudnn_rnn_backprop_v3(*args, fwd.output, fwd.output_h, fwd.output_c, case["output_backprop"],
                                      case["output_h_backprop"], case["output_c_backprop"], fwd.reserve_space,
                                      fwd.host_reserved, **case["attrs"], return_graph=True)
    assert bwd_graph.lowest_feature_level == FeatureLevel.parse("1.0")
    kinds = {node.OPERATOR_TYPE for node in fwd_graph.graph.nodes}
    assert {"gru": "GRU", "lstm": "LSTM", "rnn_relu": "RNN", "rnn_tanh": "RNN"}[mode] in kinds  # DirectML's own
    assert not {"GRU", "LSTM", "RNN"} & {node.OPERATOR_TYPE for node in bwd_graph.graph.nodes}
    dropout_graph = cudnn_rnn_v3(*args, **case["attrs"], dropout=0.3, return_graph=True)
    assert dropout_graph.lowest_feature_level == FeatureLevel.parse("3.0")  # RANDOM_GENERATOR


def _dead_nodes(graph) -> list:
    used = {e.from_node_index for e in graph.intermediate_edges} | {e.from_node_index for e in graph.output_edges}
    return [(k, node.OPERATOR_TYPE) for k, node in enumerate(graph.nodes) if k not in used]


@pytest.mark.parametrize("mode", ["gru", "lstm", "rnn_relu"])
def test_every_node_feeds_an_output(mode):
    """No node computes something nobody reads (DirectML would run it for nothing)."""
    for bidirectional in (False, True):
        for lengths in (None, [3, 1]):
            case = make_case(mode, 3, 2, 2, 3, 2, bidirectional, False, lengths, np.float32, seed=0)
            args = (case["input"], case["input_h"], case["input_c"], case["params"], case["sequence_lengths"])
            fwd_graph = cudnn_rnn_v3(*args, **case["attrs"], dropout=0.3, return_graph=True)
            fwd = fwd_graph.run("reference")
            bwd_graph = cudnn_rnn_backprop_v3(*args, fwd.output, fwd.output_h, fwd.output_c, case["output_backprop"],
                                              case["output_h_backprop"], case["output_c_backprop"], fwd.reserve_space,
                                              fwd.host_reserved, **case["attrs"], dropout=0.3, return_graph=True)
            assert _dead_nodes(fwd_graph.graph) == [] and _dead_nodes(bwd_graph.graph) == []


def test_sequence_masks():
    valid, last = sequence_masks(np.array([3, 1], np.int32), 3, 2, np.float32)
    np.testing.assert_array_equal(valid.reshape(3, 2), [[1, 1], [1, 0], [1, 0]])
    np.testing.assert_array_equal(last.reshape(3, 2), [[0, 1], [0, 0], [0, 0]])  # t = T - 1 is JOIN's, not the mask's


# ------------------------------------------------------------------------------------------ errors
def _args(**change):
    case = make_case("gru", 3, 2, 2, 3, 1, False, True, None, np.float32, seed=0)
    args = {"input": case["input"], "input_h": case["input_h"], "input_c": None, "params": case["params"],
            "sequence_lengths": None, "rnn_mode": "gru"}
    args.update(change)
    return args


@pytest.mark.parametrize("change,message", [
    ({"rnn_mode": "rnn"},
     r"tensorflow.CudnnRNNV3: rnn_mode must be one of 'rnn_relu', 'rnn_tanh', 'lstm', 'gru'; got 'rnn'"),
    ({"input_mode": "linear"}, r"input_mode must be one of 'linear_input', 'skip_input', 'auto_select'"),
    ({"direction": "both"}, r"direction must be one of 'unidirectional', 'bidirectional'; got 'both'"),
    ({"input_mode": "skip_input"},
     r"input_mode='skip_input' \(skip_input: the first layer takes the input without an input GEMM\) is not "
     r"supported: how cuDNN lays out that layer's params is unverified"),
    ({"num_proj": 2}, r"num_proj=2 is not supported: the LSTM projection's place in the canonical params layout is "
                      r"unverified, and DirectML's LSTM has no projection"),
    ({"dropout": 1.0}, r"dropout must be a number in \[0, 1\); got 1.0"),
    ({"seed": 1.5}, r"seed must be an int; got 1.5"),
    ({"time_major": 1}, r"time_major must be a bool; got 1"),
    ({"is_training": "yes"}, r"is_training must be a bool; got 'yes'"),
    ({"input": np.zeros((3, 2, 2))}, r"input has dtype float64; expected float32 or float16"),
    ({"input": np.zeros((3, 2), np.float32)}, r"input must be 3-D; got shape \[3, 2\]"),
    ({"input": np.zeros((0, 2, 2), np.float32)}, r"input has shape \[0, 2, 2\]; every dimension must be at least 1"),
    ({"input_h": np.zeros((1, 2, 3), np.float16)}, r"input_h has dtype float16; expected float32"),
    ({"input_h": np.zeros((1, 3, 3), np.float32)},
     r"input_h has shape \[1, 3, 3\]; expected \[num_layers \* dir, batch_size, num_units\] = \[1, 2, 3\]"),
    ({"input_h": np.zeros((1, 2, 3), np.float32), "direction": "bidirectional"},
     r"input_h has shape \[1, 2, 3\]; expected \[num_layers \* dir, batch_size, num_units\] = \[2, 2, 3\]"),
    ({"input_h": np.zeros((1, 2, 0), np.float32)},
     r"input_h has shape \[1, 2, 0\]; num_units \(its last dimension\) must be at least 1"),
    ({"input_h": np.zeros((2, 1, 3), np.float32), "time_major": False},
     r"input_h has shape \[2, 1, 3\]; expected \[batch_size, num_layers \* dir, num_units\] = \[3, 1, 3\]"),
    ({"rnn_mode": "lstm", "input_c": np.zeros((1, 2, 4), np.float32)},
     r"input_h and input_c must have the same shape; got \[1, 2, 3\] and \[1, 2, 4\]"),
    ({"params": np.zeros(5, np.float32)},
     r"params has 5 elements; rnn_mode='gru', num_layers=1, num_units=3, input_size=2, direction='unidirectional' "
     r"needs 63 \(the canonical layout: all weights, then all biases\)"),
    ({"sequence_lengths": np.array([3, 1, 1], np.int32)},
     r"sequence_lengths has shape \[3\]; expected \[batch_size\] = \[2\]"),
    ({"sequence_lengths": np.array([3, 1], np.int64)}, r"sequence_lengths has dtype int64; expected int32"),
    ({"sequence_lengths": np.array([3, 0], np.int32)},
     r"sequence_lengths\[1\] = 0 is outside \[1, 3\]; cuDNN requires 1 <= length <= max_seq_length"),
    ({"sequence_lengths": np.array([4, 1], np.int32)}, r"sequence_lengths\[0\] = 4 is outside \[1, 3\]"),
])
def test_forward_errors(change, message):
    with pytest.raises(DmlOpsError, match=message):
        cudnn_rnn_v3(**_args(**change))


def test_auto_select_is_linear_input_unless_sizes_match():
    """TF: auto_select means skip_input when input_size == num_units, linear_input otherwise."""
    args = _args()
    np.testing.assert_array_equal(cudnn_rnn_v3(**args, input_mode="auto_select").output, cudnn_rnn_v3(**args).output)
    same = make_case("gru", 3, 2, 3, 3, 1, False, True, None, np.float32, seed=0)
    with pytest.raises(DmlOpsError, match=r"input_mode='auto_select' \(skip_input"):
        cudnn_rnn_v3(same["input"], same["input_h"], None, same["params"], rnn_mode="gru", input_mode="auto_select")


def test_backward_errors():
    case = make_case("gru", 3, 2, 2, 3, 2, False, True, None, np.float32, seed=0)
    args = (case["input"], case["input_h"], None, case["params"], None)
    fwd = cudnn_rnn_v3(*args, rnn_mode="gru")
    rest = [fwd.output, fwd.output_h, fwd.output_c, case["output_backprop"], case["output_h_backprop"], None,
            fwd.reserve_space, fwd.host_reserved]
    bad = list(rest)
    bad[3] = case["output_backprop"][:2]
    with pytest.raises(DmlOpsError, match=r"tensorflow.CudnnRNNBackpropV3: output_backprop has shape \[2, 2, 3\]; "
                                          r"expected \[3, 2, 3\]"):
        cudnn_rnn_backprop_v3(*args, *bad, rnn_mode="gru")
    with pytest.raises(DmlOpsError, match=r"reserve_space has shape \[36\]; expected \[54\], what cudnn_rnn_v3 returns "
                                          r"with is_training=True for these shapes and dropout=0.5 \(3 blocks of 18\)"):
        cudnn_rnn_backprop_v3(*args, *rest, rnn_mode="gru", dropout=0.5)
    inference = cudnn_rnn_v3(*args, rnn_mode="gru", is_training=False)
    with pytest.raises(DmlOpsError, match=r"reserve_space has shape \[\]; expected \[36\]"):
        cudnn_rnn_backprop_v3(*args, *rest[:6], inference.reserve_space, inference.host_reserved, rnn_mode="gru")
    assert params_size("gru", 2, 3, 2) == case["params"].size
