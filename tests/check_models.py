"""Small ONNX models for the ``dmlops check`` tests, built with onnx.helper (IR and opset pinned: the newest onnx
writes IR versions that onnxruntime refuses)."""
from __future__ import annotations

import onnx
from onnx import TensorProto as TP
from onnx import helper as h

F, F16, D, I8, I32, I64, B = TP.FLOAT, TP.FLOAT16, TP.DOUBLE, TP.INT8, TP.INT32, TP.INT64, TP.BOOL


def ir_for(opset: int) -> int:
    """The IR version that goes with ``opset`` (what released onnxruntime builds load)."""
    return 8 if opset <= 18 else 9 if opset <= 20 else 10


def vi(name, elem, shape):
    """A tensor value info."""
    return h.make_tensor_value_info(name, elem, shape)


def model(nodes, inputs, outputs, opset=18, initializers=(), extra_opsets=(), ir=None, name="t"):
    """A ModelProto of ``nodes``, default domain at ``opset``."""
    imports = [h.make_opsetid("", opset), *[h.make_opsetid(d, v) for d, v in extra_opsets]]
    m = h.make_model(h.make_graph(nodes, name, inputs, outputs, initializer=list(initializers)), opset_imports=imports)
    m.ir_version = ir if ir is not None else ir_for(opset)
    return m


def unary(op, elem=F, shape=(2, 3), opset=18, **attrs):
    """x -> op -> y."""
    return model([h.make_node(op, ["x"], ["y"], **attrs)], [vi("x", elem, list(shape))], [vi("y", elem, list(shape))],
                 opset=opset)


def binary(op, elem=F, shape=(2, 3), opset=18):
    """a, b -> op -> c."""
    s = list(shape)
    return model([h.make_node(op, ["a", "b"], ["c"])], [vi("a", elem, s), vi("b", elem, s)], [vi("c", elem, s)],
                 opset=opset)


def i64(name, values, dims=None):
    """An int64 initializer."""
    values = list(values)
    return h.make_tensor(name, I64, [len(values)] if dims is None else dims, values)


def resize(mode="nearest", opset=18):
    """A Resize doubling H and W of a [1, 1, 4, 4] float tensor (scales as an initializer)."""
    scales = h.make_tensor("scales", F, [4], [1, 1, 2, 2])
    node = h.make_node("Resize", ["x", "", "scales"], ["y"], mode=mode)
    return model([node], [vi("x", F, [1, 1, 4, 4])], [vi("y", F, [1, 1, 8, 8])], opset=opset, initializers=[scales])


def if_model():
    """An If on a bool input whose branches add or subtract."""
    then_g = h.make_graph([h.make_node("Add", ["x", "x"], ["t"])], "then", [], [vi("t", F, [2])])
    else_g = h.make_graph([h.make_node("Sub", ["x", "x"], ["e"])], "else", [], [vi("e", F, [2])])
    node = h.make_node("If", ["c"], ["y"], name="branch", then_branch=then_g, else_branch=else_g)
    return model([node], [vi("c", B, []), vi("x", F, [2])], [vi("y", F, [2])], opset=18)


def dynamic_reshape():
    """Reshape(x, Concat(Unsqueeze(Gather(Shape(x), 0)), [-1])) with a dynamic batch: shape arithmetic on the CPU."""
    nodes = [h.make_node("Shape", ["x"], ["s"], name="shape"),
             h.make_node("Gather", ["s", "zero"], ["n"], axis=0, name="batch"),
             h.make_node("Unsqueeze", ["n", "axes"], ["n1"], name="unsq"),
             h.make_node("Concat", ["n1", "minus1"], ["target"], axis=0, name="concat"),
             h.make_node("Reshape", ["x", "target"], ["y"], name="reshape")]
    inits = [h.make_tensor("zero", I64, [], [0]), i64("axes", [0]), i64("minus1", [-1])]
    return model(nodes, [vi("x", F, ["N", 3, 4])], [vi("y", F, ["N", 12])], initializers=inits)


def gelu_between_relus():
    """Relu -> Gelu (opset 20: no DirectML kernel, a CPU one) -> Relu."""
    nodes = [h.make_node("Relu", ["x"], ["a"], name="r1"), h.make_node("Gelu", ["a"], ["b"], name="gelu"),
             h.make_node("Relu", ["b"], ["y"], name="r2")]
    return model(nodes, [vi("x", F, [2, 3])], [vi("y", F, [2, 3])], opset=20)


def as_file(m, path) -> str:
    """Save ``m`` to ``path``; returns the path as a string."""
    onnx.save(m, str(path))
    return str(path)
