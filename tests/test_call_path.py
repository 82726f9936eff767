"""The per-call path (issue 22 items 1 and 3): what compile decides once, the fast paths for inputs that need nothing
done, and that every check, the aliasing guarantee and the strided reads through views survive them. Timings are
benchmarks/'s business; these tests only say what the calls do."""
import numpy as np
import pytest

import dmlops
from dmlops import TensorDesc
from dmlops.backends import onnxruntime as ort_backend
from dmlops.backends import plan
from dmlops.compiled import clear_cache

torch = pytest.importorskip("torch")

X = np.array([[1, -1, 2], [-3, 0.5, 0]], np.float32)
DY = np.array([[10, 20, 30], [40, 50, 60]], np.float32)
WANT = np.array([[10, 0, 30], [0, 50, 0]], np.float32)


def relu_grad(sizes=(2, 3), x_strides=None, dtype="FLOAT32"):
    return dmlops.ActivationReluGrad(input_tensor=TensorDesc(dtype, sizes, x_strides),
                                     input_gradient_tensor=TensorDesc(dtype, sizes),
                                     output_gradient_tensor=TensorDesc(dtype, sizes))


def identity(dtype="FLOAT32"):
    t = TensorDesc(dtype, [2, 3])
    return dmlops.ElementWiseIdentity(input_tensor=t, output_tensor=t)


# --- the torch fast path --------------------------------------------------------------------------
def test_a_one_node_operator_has_a_written_out_fast_path_reading_its_fields_in_schema_order():
    op = dmlops.compile(relu_grad(), "torch", device="cpu")
    source = op._fast_torch.source
    assert "lower({'InputTensor': v0, 'InputGradientTensor': v1})" in source
    assert "untyped_storage().data_ptr()" in source  # the aliasing check is part of it
    # An absent optional field is None in x, in its place among the fields (CONVOLUTION's BiasTensor).
    conv = dmlops.Convolution(
        input_tensor=TensorDesc("FLOAT32", [1, 1, 3, 3]), filter_tensor=TensorDesc("FLOAT32", [1, 1, 2, 2]),
        output_tensor=TensorDesc("FLOAT32", [1, 1, 2, 2]), mode="CROSS_CORRELATION", direction="FORWARD",
        strides=(1, 1), dilations=(1, 1), start_padding=(0, 0), end_padding=(0, 0), output_padding=(0, 0),
        group_count=1)
    op = dmlops.compile(conv, "torch", device="cpu")
    assert "{'InputTensor': v0, 'FilterTensor': v1, 'BiasTensor': None}" in op._fast_torch.source
    x = np.arange(9, dtype=np.float32).reshape(1, 1, 3, 3)
    w = np.array([1, 2, 3, 4], np.float32).reshape(1, 1, 2, 2)
    got = op(input_tensor=torch.from_numpy(x), filter_tensor=torch.from_numpy(w))["OutputTensor"]
    want = dmlops.run(conv, input_tensor=x, filter_tensor=w, backend="reference")["OutputTensor"]
    np.testing.assert_array_equal(got.numpy(), want)


@pytest.mark.parametrize("kind", ["torch", "numpy", "mixed"])
def test_the_fast_path_gives_what_the_checked_path_gives(kind):
    op = dmlops.compile(relu_grad(), "torch", device="cpu")
    x = X if kind == "numpy" else torch.from_numpy(X.copy())
    dy = DY if kind != "torch" else torch.from_numpy(DY.copy())
    for out in (op({"InputTensor": x, "InputGradientTensor": dy}), op(input_tensor=x, input_gradient_tensor=dy)):
        got = out.output_gradient_tensor
        assert isinstance(got, np.ndarray if kind == "numpy" else torch.Tensor)  # torch out when a tensor came in
        np.testing.assert_array_equal(np.asarray(got), WANT)
        assert list(out) == ["OutputGradientTensor"] and type(out).__name__ == "Outputs"


def test_inputs_the_fast_path_does_not_take_go_through_the_checks_with_their_messages():
    op = dmlops.compile(relu_grad(), "torch", device="cpu")
    x, dy = torch.from_numpy(X), torch.from_numpy(DY)
    with pytest.raises(dmlops.DmlOpsError, match=r"InputTensor: expected FLOAT32 data \(torch.float32\); got torch.float64"):
        op(input_tensor=x.double(), input_gradient_tensor=dy)
    with pytest.raises(dmlops.DmlOpsError, match=r"InputTensor: the tensor is on meta, the operator is compiled for cpu"):
        op(input_tensor=torch.empty(2, 3, device="meta"), input_gradient_tensor=dy)
    with pytest.raises(dmlops.DmlOpsError, match=r"InputTensor: shape \(3, 2\) matches neither Sizes \[2, 3\]"):
        op(input_tensor=x.reshape(3, 2), input_gradient_tensor=dy)
    with pytest.raises(dmlops.DmlOpsError, match=r"unknown input\(s\) 'Extra'"):
        op({"InputTensor": x, "InputGradientTensor": dy, "Extra": dy})
    with pytest.raises(dmlops.DmlOpsError, match=r"missing input\(s\) InputGradientTensor"):
        op({"InputTensor": x})
    with pytest.raises(dmlops.DmlOpsError, match=r"InputGradientTensor: expected a NumPy array; got list"):
        op(input_tensor=x, input_gradient_tensor=[1.0] * 6)
    # A view that is not contiguous, a 1-D buffer and a tensor that requires grad take the checked path or no_grad.
    wide = torch.zeros(2, 6)
    wide[:, ::2] = x
    np.testing.assert_array_equal(op(input_tensor=wide[:, ::2], input_gradient_tensor=dy)
                                  .output_gradient_tensor.numpy(), WANT)
    np.testing.assert_array_equal(op(input_tensor=x.reshape(-1), input_gradient_tensor=dy)
                                  .output_gradient_tensor.numpy(), WANT)
    leaf = x.clone().requires_grad_()
    out = op(input_tensor=leaf, input_gradient_tensor=dy).output_gradient_tensor
    assert not out.requires_grad and out.grad_fn is None
    np.testing.assert_array_equal(out.numpy(), WANT)


@pytest.mark.parametrize("backend", ["torch", "onnxruntime"])
@pytest.mark.parametrize("kind", ["torch", "numpy"])
def test_an_identity_through_the_fast_path_never_hands_back_the_callers_memory(backend, kind):
    if backend == "onnxruntime" and kind == "torch":
        pytest.skip("the onnxruntime backend takes NumPy arrays")
    op = dmlops.compile(identity(), backend, device="cpu")
    x = X.copy() if kind == "numpy" else torch.from_numpy(X.copy())
    out = op(input_tensor=x).output_tensor
    out[...] = -1
    assert np.asarray(x).tolist() == X.tolist()


def test_onnxruntime_checks_aliasing_only_for_outputs_an_input_reaches_through_pass_through_nodes():
    assert dmlops.compile(identity(), "onnxruntime")._runner.may_alias == [True]
    assert dmlops.compile(relu_grad(), "onnxruntime")._runner.may_alias == [False]  # a Where writes it


def test_a_graph_of_several_nodes_runs_through_the_general_fast_path():
    t = TensorDesc("FLOAT32", [2, 3])
    b = dmlops.GraphBuilder()
    a, c = b.input("a"), b.input("c")
    s = b.add(dmlops.ElementWiseAdd(a_tensor=t, b_tensor=t, output_tensor=t), a_tensor=a, b_tensor=c)
    r = b.add(dmlops.ActivationRelu(input_tensor=t, output_tensor=t), input_tensor=s.output_tensor)
    b.output("y", r.output_tensor)
    op = dmlops.compile(b.build(), "torch", device="cpu")
    assert not hasattr(op._fast_torch, "source")  # not written out: the Runner's general one
    got = op(a=torch.from_numpy(X), c=torch.from_numpy(DY - 25))["y"]
    np.testing.assert_array_equal(got.numpy(), np.maximum(X + DY - 25, 0))


def test_float16_on_the_cpu_is_computed_in_float32_on_the_fast_path_too():
    op = dmlops.compile(relu_grad(dtype="FLOAT16"), "torch", device="cpu")
    got = op(input_tensor=torch.from_numpy(X.astype(np.float16)),
             input_gradient_tensor=torch.from_numpy(DY.astype(np.float16))).output_gradient_tensor
    assert got.dtype == torch.float16
    np.testing.assert_array_equal(got.float().numpy(), WANT)


def test_the_plan_says_which_register_each_field_reads():
    t = TensorDesc("FLOAT32", [2, 3])
    wide = TensorDesc("FLOAT32", [3, 2])  # a reshape between the nodes: a reinterpreting edge
    b = dmlops.GraphBuilder()
    a = b.input("a")
    r = b.add(dmlops.ActivationRelu(input_tensor=t, output_tensor=t), input_tensor=a)
    n = b.add(dmlops.ElementWiseIdentity(input_tensor=wide, output_tensor=wide), input_tensor=r.output_tensor)
    b.output("y", n.output_tensor)
    p = plan(b.build())
    # Register 0: the graph input; 1 and 2: the nodes' outputs; 3: node 0's output read as [3, 2].
    assert p.registers == 4 and p.outputs == (2,)
    assert [s.fields for s in p.steps] == [(("InputTensor", 0),), (("InputTensor", 3),)]
    assert [(src, dst) for s in p.steps for src, dst, _, _ in s.reinterprets] == [(1, 3)]
    got = dmlops.run(b.build(), a=torch.from_numpy(X), backend="torch")["y"]
    np.testing.assert_array_equal(got.numpy(), np.maximum(X, 0).reshape(3, 2))


# --- strided reads through views (issue 22 item 3) -------------------------------------------------
@pytest.fixture
def seen(monkeypatch):
    """What ACTIVATION_RELU_GRAD's torch lowering receives (its to_torch wrapped before compiling)."""
    from dmlops.ops import activation_relu_grad as mod

    got: dict = {}
    real = mod.to_torch

    def spy(desc, torch_, x):
        got.update(x)
        return real(desc, torch_, x)

    monkeypatch.setattr(mod, "to_torch", spy)
    clear_cache()
    yield got
    clear_cache()


@pytest.mark.parametrize("strides,buffer,view", [
    ((0, 1), np.array([1, -1, 2], np.float32), [[1, -1, 2], [1, -1, 2]]),        # broadcast rows
    ((1, 2), np.array([1, -3, -1, 0.5, 2, 0], np.float32), X.tolist()),          # column-major
    ((6, 2), np.arange(12, dtype=np.float32) - 5, [[-5, -3, -1], [1, 3, 5]]),     # padded, every other element
])
def test_torch_reads_a_strided_input_as_a_view_of_the_callers_buffer(seen, strides, buffer, view):
    op = dmlops.compile(relu_grad(x_strides=strides), "torch", device="cpu")
    t = torch.from_numpy(buffer)
    op(input_tensor=t, input_gradient_tensor=torch.from_numpy(DY))
    x = seen["InputTensor"]
    assert x.untyped_storage().data_ptr() == t.untyped_storage().data_ptr()  # no gather, no copy
    assert x.stride() == strides and x.tolist() == view


@pytest.mark.parametrize("strides,gather", [((0, 1), False), ((1, 2), False), ((0, 0), False), ((6, 2), False),
                                            ((2, 4), False), ((0, 3), False), ((7, 2), True)])
def test_onnxruntime_reads_broadcasts_permutations_and_steps_without_a_gather(strides, gather):
    desc = relu_grad(x_strides=strides)
    op = dmlops.compile(desc, "onnxruntime")
    ops = {n.op_type for n in op.model.graph.node}
    assert ("Gather" in ops) == gather, ops  # padded rows (7 = 3 * 2 + 1) still gather (an index table)
    # Broadcasts are one Expand; permutations one Transpose; every other element a Slice with steps.
    if 0 in strides:
        assert "Expand" in ops
    if strides in ((1, 2), (2, 4)):
        assert "Transpose" in ops
    buffer = np.arange(-7, 7, dtype=np.float32)
    want = dmlops.run(desc, input_tensor=buffer, input_gradient_tensor=DY, backend="reference")
    got = op(input_tensor=buffer, input_gradient_tensor=DY)
    np.testing.assert_array_equal(got.output_gradient_tensor, want.output_gradient_tensor)


def test_evaluate_on_the_onnxruntime_and_reference_backends_is_unchanged_by_a_prepared_plan():
    from dmlops.backends import evaluate
    from dmlops.graph import GraphDesc

    graph = GraphDesc.single(relu_grad())
    seen = []

    def lower(desc, x):
        seen.append(list(x))
        return {"OutputGradientTensor": np.where(x["InputTensor"] > 0, x["InputGradientTensor"], 0)}

    outs = evaluate(graph, [X, DY], lower, lambda v, td: v, None, plan(graph))
    assert seen == [["InputTensor", "InputGradientTensor"]]
    np.testing.assert_array_equal(outs[0], WANT)
    assert ort_backend.outputs_may_alias(dmlops.compile(relu_grad(), "onnxruntime").model) == [False]


def test_onnxruntime_outputs_left_unchecked_never_share_an_inputs_memory_in_any_sample():
    """outputs_may_alias lets a call skip may_share_memory for outputs a computing node writes; every sample of
    every operator, run on the session without that check, says the skip is safe (an ONNX Runtime whose optimizer
    came to turn such a node into a pass-through would fail here)."""
    from dmlops import tensors
    from dmlops.ops import MODULES, module

    skipped = 0
    for op_type in MODULES:
        for s in getattr(module(op_type), "SAMPLES", ()):
            try:
                op = dmlops.compile(s.desc, "onnxruntime", device="cpu")
            except dmlops.DmlOpsError:
                continue
            feed = [tensors.numpy_input(td, s.inputs[n], n) for n, td in zip(op.input_names, op._in_descs)]
            for name, alias, out in zip(op.output_names, op._runner.may_alias, op._runner(feed)):
                if not alias:
                    skipped += 1
                    assert not any(np.shares_memory(out, a) for a in feed), f"{op_type} {s.name} {name}"
    assert skipped > 300  # most outputs are written by a computing node


def test_torch_reads_a_graph_edge_through_strides_as_a_view_of_the_producers_output(seen):
    t = TensorDesc("FLOAT32", [2, 3])
    row = TensorDesc("FLOAT32", [3])
    b = dmlops.GraphBuilder()
    x, dy = b.input("x"), b.input("dy")
    r = b.add(dmlops.ActivationRelu(input_tensor=row, output_tensor=row), input_tensor=x)
    g = b.add(relu_grad(x_strides=(0, 1)), input_tensor=r.output_tensor, input_gradient_tensor=dy)  # a broadcast
    b.output("y", g.output_gradient_tensor)
    out = dmlops.run(b.build(), x=torch.tensor([1.0, -1.0, 2.0]), dy=torch.from_numpy(DY), backend="torch")["y"]
    assert seen["InputTensor"].stride() == (0, 1) and seen["InputTensor"]._base is not None  # a view, no copy
    np.testing.assert_array_equal(out.numpy(), [[10, 0, 30], [40, 0, 60]])
