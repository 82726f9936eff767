"""``check_model``: every node of an ONNX model through ONNX Runtime's DirectML provider's rules, statically.

The steps, per graph (subgraphs of If / Loop / Scan are checked as their own graphs, as ONNX Runtime partitions
them): shape inference (types and ranks of every value); the basic graph optimizations that remove nodes
(:func:`provider.folded`); the kernel lookup, support query and device mask of each remaining node; the CPU-preferred
pass over the whole graph; then, for each node the provider takes, the DirectML operators it creates and the lowest
feature level they accept for the node's types and ranks (:mod:`dmlops.check.levels`). The verdict follows.
"""
from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from ..backends import ort_dml_kernels
from ..errors import DmlOpsError
from ..types import FeatureLevel
from . import fold as _fold
from . import levels as _levels
from . import provider as _provider
from .flops import estimate, numel
from .load import ModelInputError, check_parsed, external_data_notes, load
from .report import PROVIDER_MIN_LEVEL, ModelReport, NodeReport, TensorInfo, Verdict

MAX_INLINE_ROUNDS = 4  # function bodies can hold function ops; ONNX's standard ones nest at most twice
FALLBACK_OFF = "; CPU fallback is off (as dmlops sets it), so session creation fails"


def _type_string(tp) -> str | None:
    """ONNX Runtime's name of a TypeProto: ``tensor(float)``, ``seq(tensor(int64))``, ``optional(...)``."""
    import onnx

    kind = tp.WhichOneof("value")
    if kind in ("tensor_type", "sparse_tensor_type"):
        elem = getattr(tp, kind).elem_type
        if not elem:
            return None
        word = "tensor" if kind == "tensor_type" else "sparse_tensor"
        return f"{word}({_elem_name(elem)})"
    if kind == "sequence_type":
        inner = _type_string(tp.sequence_type.elem_type)
        return f"seq({inner})" if inner else None
    if kind == "optional_type":
        inner = _type_string(tp.optional_type.elem_type)
        return f"optional({inner})" if inner else None
    if kind == "map_type":
        import onnx as _onnx

        key = _elem_name(tp.map_type.key_type)
        value = _type_string(tp.map_type.value_type)
        return f"map({key},{value})" if value else None
    return None


def _shape(tp) -> tuple | None:
    kind = tp.WhichOneof("value")
    if kind not in ("tensor_type", "sparse_tensor_type"):
        return None
    t = getattr(tp, kind)
    if not t.HasField("shape"):
        return None
    return tuple(d.dim_value if d.HasField("dim_value") else (d.dim_param or None) for d in t.shape.dim)


def _elem_name(elem: int) -> str:
    """``float`` for TensorProto.FLOAT; an element type this ONNX does not know keeps its number (``type 99``)."""
    import onnx

    try:
        return onnx.TensorProto.DataType.Name(elem).lower()
    except ValueError:
        return f"type {elem}"


def _initializer_type(t) -> str:
    return f"tensor({_elem_name(t.data_type)})"


class _Context:
    def __init__(self, level: FeatureLevel, float16: bool, float64: bool, cpu_fallback: bool, opsets: dict[str, int],
                 newest_opset: int):
        self.level, self.float16, self.float64, self.cpu_fallback = level, float16, float64, cpu_fallback
        self.opsets, self.newest_opset = opsets, newest_opset
        self.ir_version = 0
        self.origins: dict[str, str] = {}
        self.kernels = ort_dml_kernels.kernels()
        self.reports: list[NodeReport] = []
        self.inline: dict[tuple, Any] = {}  # (graph path, node index) -> FunctionProto ONNX Runtime inlines


def _device(feature_level, device, float16, float64):
    """(level, device name, float16, float64, assumed) from the arguments."""
    if device is not None:
        if feature_level is not None:
            raise DmlOpsError("give a feature level or a device, not both: the device reports its own level.")
        from ..backends.directml import adapters

        a = adapters.adapter(device)
        if a.feature_level is None:
            raise DmlOpsError(f"{a.device} ({a.name}): no DirectML device could be created: {a.problem}")
        return (a.feature_level, f"{a.device} ({a.name})", a.float16 if float16 is None else bool(float16),
                a.float64 if float64 is None else bool(float64), False)
    level = FeatureLevel.parse(feature_level, "feature_level") if feature_level is not None else FeatureLevel.latest()
    assumed = float16 is None or float64 is None
    return level, None, True if float16 is None else bool(float16), False if float64 is None else bool(float64), assumed


def check_model(model, feature_level=None, device=None, *, cpu_fallback: bool = True, float16: bool | None = None,
                float64: bool | None = None) -> ModelReport:
    """Check ``model`` (a path, or an onnx.ModelProto) against ONNX Runtime's DirectML provider, node by node.

    ``feature_level``: the device's DML_FEATURE_LEVEL (default the newest, 6.4), or ``device`` ("dml:0"), whose
    level and FLOAT16 / FLOAT64 support come from ``dmlops.devices()``. Without a device, FLOAT16 is assumed
    supported and FLOAT64 not (``float16`` / ``float64`` override). ``cpu_fallback``: False checks the model as
    dmlops' own sessions run it (``session.disable_cpu_ep_fallback``): every node that would fall back fails.
    The model's weights are never read (external data stays on disk). Raises DmlOpsError (ModelInputError) with
    one line for input that is not an ONNX model.
    """
    import onnx

    level, device_name, f16, f64, assumed = _device(feature_level, device, float16, float64)
    notes: list[str] = []
    if isinstance(model, (str, os.PathLike)):
        proto = load(model)
        source, base = str(model), Path(model).resolve().parent
    elif isinstance(model, onnx.ModelProto):
        check_parsed(model, "the ModelProto")
        proto, source, base = model, f"model {model.graph.name!r}" if model.graph.name else "<ModelProto>", None
    else:
        raise ModelInputError(f"check_model takes a path or an onnx.ModelProto; got {type(model).__name__}.")
    notes.extend(external_data_notes(proto, base))
    opsets = {(o.domain or "ai.onnx"): o.version for o in proto.opset_import}
    newest = onnx.defs.onnx_opset_version()
    if opsets.get("ai.onnx", 0) > newest:
        notes.append(f"opset {opsets['ai.onnx']} is newer than any this ONNX ({onnx.__version__}, opset {newest}) or "
                     "the provider's table knows: each op resolves to the newest schema known here (inferred)")
    if level < PROVIDER_MIN_LEVEL:
        notes.append(f"ONNX Runtime's DirectML provider creates its device with DML_FEATURE_LEVEL_5_0 at least; at "
                     f"{level.dml_name} it cannot run anything")
    origins: dict[str, str] = {}
    inlined: dict[str, int] = {}
    work = proto
    for _ in range(MAX_INLINE_ROUNDS):
        inferred = _fold.infer(work, notes)
        ctx = _Context(level, f16, f64, cpu_fallback, opsets, newest)
        ctx.ir_version, ctx.origins = proto.ir_version, origins
        _check_graph(ctx, inferred.graph, "", (), {}, {}, {}, set())
        if not ctx.inline:
            break
        for fp in ctx.inline.values():
            inlined[fp.name] = inlined.get(fp.name, 0) + 1
        work = _inlined(work, ctx.inline, origins)
        notes[:] = [n for n in notes if not n.startswith("ONNX shape inference failed")]
    for op, k in sorted(inlined.items()):
        notes.append(f"{k} {op} node(s): no provider has a kernel for them, so ONNX Runtime inlines their ONNX "
                     f"function body; the body's nodes are checked instead (named '<node>/<op>_<k>')")
    return ModelReport(source=source, feature_level=level, device=device_name, float16=f16, float64=f64,
                       assumed=assumed, cpu_fallback=cpu_fallback, ir_version=proto.ir_version,
                       opsets=opsets, producer=" ".join(x for x in (proto.producer_name, proto.producer_version) if x),
                       nodes=ctx.reports, notes=notes, model_nodes=len(proto.graph.node))


def _subgraph(graph, path: tuple):
    """The (sub)graph at ``path``: (node index, attribute name, position in a GRAPHS attribute or None) per level."""
    for i, name, k in path:
        attr = next(a for a in graph.node[i].attribute if a.name == name)
        graph = attr.g if k is None else attr.graphs[k]
    return graph


def _inlined(proto, inline: dict, origins: dict[str, str]):
    """A copy of ``proto`` whose nodes ``inline`` ((graph path, node index) -> FunctionProto) are replaced by their
    bodies, as ONNX Runtime's partitioner does for function ops no provider implements; ``origins`` gains the new
    nodes' names -> the node they came from."""
    import onnx

    out = onnx.ModelProto()
    out.CopyFrom(proto)
    by_graph: dict[tuple, dict[int, object]] = {}
    for (path, i), fp in inline.items():
        by_graph.setdefault(path, {})[i] = fp
    # Deepest graphs first: their paths name parent nodes by index, which inlining in the parent would shift.
    for path in sorted(by_graph, key=len, reverse=True):
        graph = _subgraph(out.graph, path)
        nodes = []
        for i, node in enumerate(graph.node):
            fp = by_graph[path].get(i)
            if fp is None:
                nodes.append(node)
                continue
            prefix = node.name or f"{node.op_type}_{i}"
            body = _provider.expand(node, fp, prefix)
            origin = origins.get(node.name) or "inlined from " + (
                f"{node.op_type} node {i} {node.name!r}" if node.name else f"{node.op_type} node {i}")
            for m in body:
                origins[m.name] = origin
            nodes.extend(body)
        del graph.node[:]
        graph.node.extend(nodes)
    return out


def _values(graph, types: dict, shapes: dict, type_protos: dict) -> None:
    for v in [*graph.input, *graph.output, *graph.value_info]:
        type_protos[v.name] = v.type
        t = _type_string(v.type)
        if t is not None:
            types[v.name] = t
        s = _shape(v.type)
        if s is not None or v.name not in shapes:
            shapes[v.name] = s
    for t in graph.initializer:
        types[t.name] = _initializer_type(t)
        shapes[t.name] = tuple(t.dims)
    for st in graph.sparse_initializer:
        types[st.values.name] = _initializer_type(st.values)
        shapes[st.values.name] = tuple(st.dims)


def _check_graph(ctx: _Context, graph, prefix: str, path: tuple, outer_types: dict, outer_shapes: dict,
                 outer_type_protos: dict, outer_constants: set[str]) -> None:
    types, shapes, type_protos = dict(outer_types), dict(outer_shapes), dict(outer_type_protos)
    _values(graph, types, shapes, type_protos)
    initializers = {t.name for t in graph.initializer} | {st.values.name for st in graph.sparse_initializer}
    input_names = {i.name for i in graph.input}
    # From IR 4 on, an initializer that is also a graph input can be overridden at run time: not a constant for
    # ONNX Runtime (Graph::CanOverrideInitializer). IR 3 lists every initializer as an input, and they are constant.
    constants = (initializers - input_names if ctx.ir_version >= 4 else set(initializers)) | set(outer_constants)
    graph_inputs = input_names - initializers
    graph_outputs = {o.name for o in graph.output}
    nodes = list(graph.node)
    consumers: dict[str, list[int]] = {}
    for i, node in enumerate(nodes):
        for x in node.input:
            if x:
                consumers.setdefault(x, []).append(i)

    def info(name: str) -> TensorInfo:
        return TensorInfo(name, types.get(name) if name else None, shapes.get(name) if name else None)

    # 1. What ONNX Runtime's basic optimizations remove.
    fold: dict[int, str] = {}
    alias: dict[str, str] = {}
    produced = {o for node in nodes for o in node.output if o}
    for i, node in enumerate(nodes):
        why = _provider.folded(node, constants, shapes, graph_outputs, consumers, produced)
        if why is None or (node.name in ctx.origins and node.op_type not in ("Constant", "Identity")):
            # ONNX Runtime inlines function bodies while it partitions, after its basic optimizations: a body's
            # nodes are not constant-folded (its Constant nodes become initializers, its Identity nodes go).
            continue
        fold[i] = why
        if node.op_type in ("Identity", "Dropout") and not all(x in constants for x in node.input if x):
            alias[node.output[0]] = node.input[0]
        else:
            constants.update(o for o in node.output if o)

    def real(name: str) -> str:
        while name in alias:
            name = alias[name]
        return name

    # 2. Kernel lookup, support query, device mask.
    reports: dict[int, NodeReport] = {}
    lookups: dict[int, _provider.Lookup] = {}
    regs: dict[int, dict] = {}
    provider_nodes: set[int] = set()
    for i, node in enumerate(nodes):
        domain = node.domain or "ai.onnx"
        ins, outs = [info(x) for x in node.input], [info(x) for x in node.output]
        nr = NodeReport(index=i, name=node.name, op=node.op_type, domain=domain, opset=ctx.opsets.get(domain),
                        since_version=None, inputs=ins, outputs=outs, graph=prefix,
                        origin=ctx.origins.get(node.name, "") if node.name else "")
        nr.flops = estimate(node, ins, outs)
        reports[i] = nr
        if i in fold:
            nr.verdict, nr.reason = Verdict.FOLDED, fold[i]
            if node.op_type != "Constant":
                nr.inferred.append("dmlops replays ONNX Runtime's basic graph optimizations in part")
            continue
        lk = _provider.lookup(node, domain, ctx.opsets, ctx.kernels.get((domain, node.op_type)), types)
        nr.since_version = lk.since_version
        nr.inferred.extend(lk.inferred)
        if domain == "ai.onnx" and (nr.opset or 0) > ctx.newest_opset:
            nr.inferred.append(f"opset {nr.opset} is newer than the provider's table")
        lookups[i] = lk
        if lk.fatal:
            nr.verdict, nr.reason = Verdict.FAILS, lk.fatal
            continue
        if lk.fallback or lk.reg is None:
            nr.verdict, nr.reason = Verdict.CPU_FALLBACK, lk.fallback or "no provider kernel"
            continue
        reg = lk.reg
        regs[i] = reg
        provider_nodes.add(i)
        nr.kernel = f"{node.op_type}-{reg['since_version']}"
        if reg.get("registration") == "RegisterCpuOperatorsAsDml":
            nr.verdict = Verdict.CPU_FALLBACK
            nr.reason = ("a CPU kernel registered under the DirectML provider (control flow / sequences): it runs on "
                         "the CPU, and a session with CPU fallback off still accepts it")
            continue
        why = _provider.support_query(reg.get("support_query"), node, nr.opset or 0)
        if reg.get("support_query") == "QueryEinSum":
            nr.inferred.append("QueryEinSum's equation patterns are not replayed: the equation is assumed recognized")
        if why is None:
            why = _provider.device_mask(node, reg, types, ctx.float16, ctx.float64, native_16bit=ctx.float16)
        if why is not None:
            nr.verdict, nr.reason = Verdict.CPU_FALLBACK, why
            continue

    # 3. The CPU-preferred pass over the nodes that remain.
    order = [i for i in range(len(nodes)) if i not in fold]
    live_consumers: dict[str, list[int]] = {}
    for i in order:
        for x in nodes[i].input:
            if x:
                live_consumers.setdefault(real(x), []).append(i)
    small = {c for c in constants if numel(info(c)) <= _provider.SMALL_INITIALIZER and shapes.get(c) is not None}

    class _Renamed:  # a node whose inputs read through removed Identity / Dropout nodes
        def __init__(self, node):
            self.op_type, self.output = node.op_type, list(node.output)
            self.input = [real(x) if x else x for x in node.input]

    renamed = {i: _Renamed(nodes[i]) for i in order}
    cpu_inputs = {i: set(regs[i].get("required_constant_cpu_inputs") or []) for i in regs}
    preferred = _provider.cpu_preferred(order, renamed, provider_nodes, live_consumers, small, graph_inputs, types,
                                        cpu_inputs)

    # 4. The DirectML operators, their lowest feature level, the verdict.
    def constant_numel(name: str) -> int | None:
        return numel(info(name)) if name in constants and shapes.get(name) is not None else None

    for i in order:
        nr, node = reports[i], nodes[i]
        reg_or_none = regs.get(i)
        if reg_or_none is None:
            continue
        reg = reg_or_none
        p = _levels.plan(node, reg, nr.inputs, nr.outputs, constant_numel)
        nr.dml_operators = [u.op for u in p.uses] or [o for o in reg.get("dml_operators") or []
                                                      if not o.startswith("custom")]
        result = _levels.plan_level(p, reg, nr.inputs, nr.outputs)
        nr.min_level, nr.level_detail, nr.level_refused = result.level, result.detail, result.refused
        nr.inferred.extend(p.inferred)
        if any(t.rank is None for t in nr.inputs + nr.outputs if t.name):
            nr.inferred.append("a rank is unknown after shape inference: not checked")
        if nr.verdict is not Verdict.DIRECTML:
            continue
        if i in preferred:
            nr.verdict, nr.reason = Verdict.CPU_FALLBACK, preferred[i]
            continue
        nr.claimed = True
        guess = " (inferred)" if p.inferred else ""
        if ctx.level < PROVIDER_MIN_LEVEL:
            nr.verdict = Verdict.FAILS
            nr.reason = (f"the DirectML provider needs DML_FEATURE_LEVEL_5_0 (DMLCreateDevice1's minimum); the device "
                         f"is at {ctx.level.short}")
        elif result.refused:
            nr.verdict = Verdict.FAILS
            nr.reason = (f"the provider claims it, but {result.detail}: DirectML refuses to create the operator, so "
                         f"session creation fails{guess}")
        elif result.level is not None and result.level > ctx.level:
            nr.verdict = Verdict.FAILS
            nr.reason = (f"the provider claims it, but it needs {result.level.dml_name} ({result.detail}); the device "
                         f"is at {ctx.level.short}: DirectML refuses to create the operator{guess}")
        elif not p.uses and result.level is None:
            what = ("a custom compute shader of the provider" if node.op_type in _provider.CUSTOM_SHADER_OPS else
                    "computed by the provider without a DirectML operator")
            nr.reason = f"{nr.kernel}: {what}"
        else:
            nr.reason = f"{nr.kernel}: {result.detail}{guess}"

    # What the CPU provider does with the nodes the DirectML provider leaves: run them, or (no kernel) inline an
    # ONNX function op's body, or nothing, and session creation fails.
    for i in order:
        nr, node = reports[i], nodes[i]
        found = lookups.get(i)
        if nr.verdict is not Verdict.CPU_FALLBACK or found is None or nr.reason.startswith("a CPU kernel registered"):
            continue
        how, why_not = _provider.cpu_kernel(node, nr.domain, found.since_version, found.schema, types)
        if how == "exact":
            continue
        body = _provider.function_body(node, found.schema, nr.opset or 0, type_protos)
        if body is not None:
            ctx.inline[(path, i)] = body
            continue
        if how == "cast":
            nr.reason += ("; the CPU provider runs it in float32, with casts around it (no float16 kernel; ONNX "
                          "Runtime's InsertCastTransformer)")
            continue
        nr.verdict = Verdict.FAILS
        nr.reason += f"; {why_not}: no provider can run it"

    if not ctx.cpu_fallback:
        for i in order:
            nr = reports[i]
            if nr.verdict is Verdict.CPU_FALLBACK and not nr.reason.startswith("a CPU kernel registered"):
                nr.verdict, nr.reason = Verdict.FAILS, nr.reason + FALLBACK_OFF

    # 5. Copies between the device and the CPU around the nodes that fall back.
    producer: dict[str, int] = {}
    for i in order:
        for o in nodes[i].output:
            if o:
                producer[o] = i
    for i in order:
        nr = reports[i]
        if nr.verdict is not Verdict.CPU_FALLBACK or nr.claimed or (i in regs and regs[i].get("registration") ==
                                                                      "RegisterCpuOperatorsAsDml"):
            continue  # the provider's CPU kernels keep their tensors in the provider's memory: no copies
        copies = []
        for x in dict.fromkeys(real(x) for x in nodes[i].input if x):
            src = producer.get(x)
            if src is not None and reports[src].verdict is Verdict.DIRECTML and \
                    nodes[src].op_type not in _provider.CPU_OUTPUT_OPS:
                copies.append(f"{x!r} in from DirectML")
        for o in nodes[i].output:
            targets = [c for c in live_consumers.get(o, []) if reports[c].verdict is Verdict.DIRECTML
                       and o not in [renamed[c].input[k] for k in cpu_inputs.get(c, set())
                                     if k < len(renamed[c].input)]]
            if targets:
                copies.append(f"{o!r} out to DirectML ({len(targets)} node(s))")
        nr.copies = copies

    ctx.reports.extend(reports[i] for i in range(len(nodes)))
    # Subgraphs, after their parent node (ONNX Runtime partitions them as graphs of their own).
    for i, node in enumerate(nodes):
        for a in node.attribute:
            subs = [a.g] if a.type == 5 else list(a.graphs) if a.type == 10 else []
            for k, g in enumerate(subs):
                where = f"{prefix + '/' if prefix else ''}{node.name or node.op_type + str(i)}.{a.name}"
                _check_graph(ctx, g, where + (f"[{k}]" if a.type == 10 else ""),
                             path + ((i, a.name, k if a.type == 10 else None),), types, shapes, type_protos, constants)
