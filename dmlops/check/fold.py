"""Shape inference as ONNX Runtime sees the graph: after its constant folding has computed the small shape tensors.

ONNX's shape inference stops where a shape is computed by an op its data propagation does not know (``Mod`` in a
PyTorch attention block, for one): the Reshape after it gets no shape, and neither does anything downstream. ONNX
Runtime folds those shape computations into initializers before it partitions, so it knows the shapes. This module
does the same for small values: it evaluates, with ONNX's reference implementation, every deterministic node whose
inputs are small constants (Constant nodes, inline initializers of at most FOLD_LIMIT elements, Shape of a static
shape), then infers shapes again with the results in place. External data is never read.
"""
from __future__ import annotations

import math

FOLD_LIMIT = 1024  # elements: shape arithmetic, never weights
# Ops whose output can be far larger than their inputs: folded only when shape inference says the output is small.
GENERATORS = frozenset({"ConstantOfShape", "Expand", "Range", "Tile", "Resize", "Upsample", "Pad", "EyeLike",
                        "OneHot", "MatMul", "Gemm", "Einsum", "Col2Im"})
NONDETERMINISTIC = frozenset({"RandomNormal", "RandomUniform", "RandomNormalLike", "RandomUniformLike",
                              "Multinomial", "Bernoulli"})


def infer(proto, notes: list[str]):
    """``proto`` with ``graph.value_info`` from shape inference after small constants are folded (the input model
    itself, with a note, when shape inference fails)."""
    first = _shape_inference(proto, notes)
    try:
        values, computed = _fold(first)
    except Exception:  # folding is a refinement only: never let it cost the check
        return first
    if not computed:
        return first
    import onnx
    from onnx import numpy_helper

    temp = onnx.ModelProto()
    temp.CopyFrom(proto)
    graph_outputs = {o.name for o in proto.graph.output}
    kept = [n for n in proto.graph.node
            if not (all(o in computed for o in n.output if o) and not graph_outputs.intersection(n.output))]
    removed_outputs = {o for n in proto.graph.node if n not in kept for o in n.output if o}
    del temp.graph.node[:]
    temp.graph.node.extend(kept)
    used = {x for n in kept for x in n.input} | graph_outputs
    temp.graph.initializer.extend(numpy_helper.from_array(values[name], name) for name in sorted(removed_outputs & used)
                                  if name in values)
    second = _shape_inference(temp, [])
    out = onnx.ModelProto()
    out.CopyFrom(first)
    del out.graph.value_info[:]
    out.graph.value_info.extend(second.graph.value_info)
    for name in sorted(removed_outputs):
        if name in values:
            arr = values[name]
            elem = onnx.helper.np_dtype_to_tensor_dtype(arr.dtype)
            out.graph.value_info.append(onnx.helper.make_tensor_value_info(name, elem, list(arr.shape)))
    return out


def _shape_inference(proto, notes: list[str]):
    import onnx

    last: Exception | None = None
    for data_prop in (True, False):
        try:
            return onnx.shape_inference.infer_shapes(proto, check_type=False, strict_mode=False, data_prop=data_prop)
        except Exception as e:  # onnx raises InferenceError, ValidationError, RuntimeError...: all mean "cannot"
            last = e
    text = str(last).strip().splitlines()
    notes.append(f"ONNX shape inference failed ({text[0][:160] if text else type(last).__name__}); types and ranks "
                 "come from the graph's own declarations")
    return proto


def _static_shape(vi) -> list[int] | None:
    t = vi.type.tensor_type
    if not t.HasField("shape"):
        return None
    if not all(d.HasField("dim_value") for d in t.shape.dim):
        return None
    return [int(d.dim_value) for d in t.shape.dim]


def _fold(model) -> tuple[dict, set[str]]:
    """(small constant values by name, the node outputs among them)."""
    import numpy as np
    import onnx
    from onnx import numpy_helper
    from onnx.reference import ReferenceEvaluator

    g = model.graph
    infos = {v.name: v for v in [*g.input, *g.output, *g.value_info]}
    inputs = {i.name for i in g.input}
    values: dict = {}
    for t in g.initializer:
        if (model.ir_version >= 4 and t.name in inputs) or t.data_location == onnx.TensorProto.EXTERNAL:
            continue
        if math.prod(t.dims) <= FOLD_LIMIT:
            values[t.name] = numpy_helper.to_array(t)
    opsets = [onnx.helper.make_opsetid(o.domain, o.version) for o in model.opset_import]
    computed: set[str] = set()
    for node in g.node:
        if (node.domain or "") != "" or node.op_type in NONDETERMINISTIC or \
                any(a.type in (onnx.AttributeProto.GRAPH, onnx.AttributeProto.GRAPHS) for a in node.attribute):
            continue
        outs: list | None = None
        if node.op_type == "Constant":
            a = node.attribute[0] if len(node.attribute) == 1 else None
            if a is not None and a.name in ("value", "value_int", "value_ints", "value_float", "value_floats"):
                v = onnx.helper.get_attribute_value(a)
                arr = numpy_helper.to_array(v) if a.name == "value" else np.array(
                    v, dtype=np.int64 if "int" in a.name else np.float32)
                outs = [arr]
        elif node.op_type in ("Shape", "Size") and node.input and node.input[0] in infos:
            shape = _static_shape(infos[node.input[0]])
            if shape is not None:
                if node.op_type == "Size":
                    outs = [np.array(math.prod(shape), dtype=np.int64)]
                else:
                    attrs = {a.name: a.i for a in node.attribute}
                    outs = [np.array(shape[attrs.get("start", 0):attrs.get("end", len(shape))] if "end" in attrs
                                     else shape[attrs.get("start", 0):], dtype=np.int64)]
        elif node.input and all((not x) or x in values for x in node.input):
            if not all(_small_output(infos.get(o), node.op_type in GENERATORS) for o in node.output if o):
                continue
            fn = onnx.helper.make_function("dmlops.fold", "f", [x for x in node.input], list(node.output), [node],
                                           opsets)
            try:
                outs = list(ReferenceEvaluator(fn).run(None, {x: values[x] for x in node.input if x}, attributes={}))
            except Exception:  # an op the reference cannot run here: leave it to shape inference
                continue
        if outs is None:
            continue
        for name, arr in zip(node.output, outs):
            arr = np.asarray(arr)
            if name and arr.size <= FOLD_LIMIT:
                values[name] = arr
                computed.add(name)
    return values, computed


def _small_output(vi, must_know: bool) -> bool:
    """Whether an output is known to be small, or (unless ``must_know``) of unknown size: an op whose inputs are all
    small then gives a bounded result, checked after it is computed."""
    shape = _static_shape(vi) if vi is not None else None
    if shape is None:
        return not must_know
    return math.prod(shape) <= FOLD_LIMIT
