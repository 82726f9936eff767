"""GraphDesc: the builder, whole-graph validation, and one ONNX model / one torch function that match
node-by-node execution."""
import numpy as np
import pytest

import dmlops
from dmlops import GraphBuilder, GraphDesc, InputEdge, IntermediateEdge, OutputEdge, TensorDesc

T = TensorDesc("FLOAT32", [2, 3])
BACKENDS = ["reference", "onnxruntime", "torch"]


def unary(cls, t=T):
    return cls(input_tensor=t, output_tensor=t)


def five_node_graph():
    """x -> RELU -> SIGMOID -> TANH; RELU_GRAD(x, tanh) -> RELU; outputs: the gradient and the sigmoid."""
    b = GraphBuilder()
    x = b.input("x")
    r = b.add(unary(dmlops.ActivationRelu), input_tensor=x)
    s = b.add(unary(dmlops.ActivationSigmoid), input_tensor=r.output_tensor)
    t = b.add(unary(dmlops.ActivationTanh), input_tensor=s.output_tensor)
    g = b.add(dmlops.ActivationReluGrad(input_tensor=T, input_gradient_tensor=T, output_gradient_tensor=T),
              input_tensor=x, input_gradient_tensor=t.output_tensor)
    o = b.add(unary(dmlops.ActivationRelu), InputTensor=g["OutputGradientTensor"])
    b.output("grad", o.output_tensor)
    b.output("sig", s.output_tensor)
    return b.build()


X = np.array([[1, -1, 2], [-3, 0.5, 0]], np.float32)


def node_by_node(graph, inputs, backend):
    """Run each node as its own compiled operator, passing values along the edges."""
    from dmlops.graph import slots

    bound, produced = {}, {}
    for e in graph.input_edges:
        bound[(e.to_node_index, e.to_node_input_index)] = inputs[graph.input_names[e.graph_input_index]]
    for k in graph.order():
        node = graph.nodes[k]
        names = [n for n, _ in slots(node, "input")]
        out = dmlops.run(node, {names[i]: v for (kk, i), v in bound.items() if kk == k}, backend=backend)
        for i, (name, td) in enumerate(slots(node, "output")):
            if td is not None:
                produced[(k, i)] = out[name]
        for e in graph.intermediate_edges:
            if e.from_node_index == k:
                bound[(e.to_node_index, e.to_node_input_index)] = produced[(k, e.from_node_output_index)]
    return {graph.output_names[e.graph_output_index]: produced[(e.from_node_index, e.from_node_output_index)]
            for e in graph.output_edges}


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_five_node_graph_matches_node_by_node_execution(backend):
    graph = five_node_graph()
    op = dmlops.compile(graph, backend)
    out = op(x=X)
    want = node_by_node(graph, {"x": X}, backend)
    for name in ("grad", "sig"):
        np.testing.assert_allclose(out[name], want[name], rtol=1e-6, atol=0)  # same ops, same float32 math
    sig = 1 / (1 + np.exp(-np.maximum(X, 0)))
    np.testing.assert_allclose(out["sig"], sig, rtol=1e-6)
    np.testing.assert_allclose(out["grad"], np.where(X > 0, np.tanh(sig), 0), rtol=1e-6)


def test_the_graph_is_one_onnx_model_and_one_torch_function():
    graph = five_node_graph()
    model = dmlops.compile(graph, "onnxruntime").model
    assert [i.name for i in model.graph.input] == ["x"]
    assert [o.name for o in model.graph.output] == ["grad", "sig"]
    # Exactly the five nodes' own lowerings, joined: no other op kind is added for the graph.
    ops = {n.op_type for n in model.graph.node}
    alone = {n.op_type for node in graph.nodes for n in dmlops.compile(node, "onnxruntime").model.graph.node}
    assert ops == alone and {"Tanh", "Exp", "Where"} <= ops
    assert sum(n.op_type == "Tanh" for n in model.graph.node) == 1  # one TANH node, lowered once
    runner = dmlops.compile(graph, "torch")._runner
    assert callable(runner.function)


def test_graph_inputs_of_a_one_node_graph_are_the_operator_fields():
    desc = dmlops.ActivationReluGrad(input_tensor=T, input_gradient_tensor=T, output_gradient_tensor=T)
    g = GraphDesc.single(desc)
    assert g.input_names == ("InputTensor", "InputGradientTensor")
    assert g.output_names == ("OutputGradientTensor",)
    assert g.problems("6.4") == []


def test_edges_must_agree_in_data_type():
    b = GraphBuilder()
    x = b.input("x")
    r = b.add(unary(dmlops.ActivationRelu), input_tensor=x)
    s = b.add(unary(dmlops.ActivationSigmoid, TensorDesc("FLOAT16", [3, 2])), input_tensor=r.output_tensor)
    b.output("y", s.output_tensor)
    messages = [str(p) for p in b.build().problems("6.4")]
    assert messages == ["GRAPH.IntermediateEdges[0]: Nodes[0] (ACTIVATION_RELU).OutputTensor is FLOAT32 [2, 3] but "
                        "Nodes[1] (ACTIVATION_SIGMOID).InputTensor is FLOAT16 [3, 2]; an edge's two ends must agree in "
                        "DataType."]
    with pytest.raises(dmlops.ValidationError, match="an edge's two ends must agree"):
        dmlops.compile(b.build(), "reference")


def test_every_input_bound_every_output_written_and_no_cycles():
    relu = unary(dmlops.ActivationRelu)
    unbound = GraphDesc([relu], [], [], [OutputEdge(0, 0, 0)], ["x"], ["y"])
    assert [str(p) for p in unbound.problems("6.4")] == [
        "GRAPH.Inputs[0]: graph input 'x' is connected to no node.",
        "GRAPH.Nodes[0]: Nodes[0] (ACTIVATION_RELU).InputTensor is connected to no edge; every input tensor must be bound.",
    ]
    cycle = GraphDesc([relu, relu], [], [IntermediateEdge(0, 0, 1, 0), IntermediateEdge(1, 0, 0, 0)],
                      [OutputEdge(1, 0, 0)], [], ["y"])
    assert [str(p) for p in cycle.problems("6.4")] == [
        "GRAPH: the nodes form a cycle: Nodes[0] -> Nodes[1] -> Nodes[0]."]
    twice = GraphDesc([relu], [InputEdge(0, 0, 0), InputEdge(1, 0, 0)], [], [], ["x", "z"], ["y"])
    assert [str(p) for p in twice.problems("6.4")] == [
        "GRAPH.InputEdges[1]: Nodes[0] (ACTIVATION_RELU).InputTensor is already bound by InputEdges[0].",
        "GRAPH.Outputs[0]: graph output 'y' is written by no node.",
    ]
    bad_index = GraphDesc([relu], [InputEdge(0, 0, 3)], [], [OutputEdge(2, 0, 0)], ["x"], ["y"])
    assert [str(p) for p in bad_index.problems("6.4")] == [
        "GRAPH.InputEdges[0]: input index 3 is out of range: ACTIVATION_RELU has 1 input tensor slots.",
        "GRAPH.Inputs[0]: graph input 'x' is connected to no node.",
        "GRAPH.Nodes[0]: Nodes[0] (ACTIVATION_RELU).InputTensor is connected to no edge; every input tensor must be bound.",
        "GRAPH.OutputEdges[0]: node index 2 is out of range (the graph has 1 nodes).",
        "GRAPH.Outputs[0]: graph output 'y' is written by no node.",
    ]


def test_node_problems_are_reported_with_their_node():
    bad = dmlops.ActivationReluGrad(input_tensor=T, input_gradient_tensor=T, output_gradient_tensor=T)
    b = GraphBuilder()
    x = b.input("x")
    n = b.add(bad, input_tensor=x, input_gradient_tensor=x)
    b.output("y", n.output_gradient_tensor)
    assert [str(p) for p in b.build().problems("2.0")] == [
        "GRAPH.Nodes[0] (ACTIVATION_RELU_GRAD): ACTIVATION_RELU_GRAD was introduced in DML_FEATURE_LEVEL_3_0; the target "
        "is DML_FEATURE_LEVEL_2_0."]


def test_builder_errors_name_what_is_wrong():
    b = GraphBuilder()
    x = b.input("x")
    with pytest.raises(dmlops.DmlOpsError, match="an input named 'x' already exists"):
        b.input("x")
    with pytest.raises(dmlops.DmlOpsError, match=r"ACTIVATION_RELU has no input 'a_tensor' \(inputs: InputTensor\)"):
        b.add(unary(dmlops.ActivationRelu), a_tensor=x)
    with pytest.raises(dmlops.DmlOpsError, match="ACTIVATION_RELU.InputTensor must be connected to a graph input or a node output; got ndarray"):
        b.add(unary(dmlops.ActivationRelu), input_tensor=X)
    n = b.add(unary(dmlops.ActivationRelu), input_tensor=x)
    with pytest.raises(dmlops.DmlOpsError, match=r"ACTIVATION_RELU: 'Output' is not an output \(outputs: OutputTensor\)"):
        n["Output"]
    with pytest.raises(dmlops.DmlOpsError, match="output 'y' must be a node output"):
        b.output("y", x)


def test_compiled_graphs_are_cached_and_take_graph_input_names():
    graph = five_node_graph()
    assert dmlops.compile(graph, "onnxruntime") is dmlops.compile(five_node_graph(), "onnxruntime")
    with pytest.raises(dmlops.DmlOpsError, match=r"GRAPH: missing input\(s\) x; expected x"):
        dmlops.compile(graph, "reference")()
