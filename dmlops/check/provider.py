"""ONNX Runtime's DirectML provider's own rules, replayed statically on an ONNX node.

The order is the provider's (``ExecutionProviderImpl::GetCapability`` / ``IsNodeSupportedByDml``, see
../shared/research/ort_dml_ep.md §5):

1. kernel lookup: a registration whose since-version equals the since-version the node's opset resolves the op to
   (every DML kernel is registered with a start version only, and ORT's ``VerifyVersion`` then matches exactly),
   with every input and output type in the registered type lists;
2. the registration's support query, if it has one (:func:`support_query`);
3. the device's data-type mask (``DoesNodeContainSupportedDataTypes``): FLOAT16 / FLOAT64 as the device supports
   them, no type DirectML lacks, sequences only for the CPU kernels registered under the provider; inputs the
   provider reads on the CPU are exempt;
4. ``GetCpuPreferredNodes`` (onnxruntime/core/framework/fallback_cpu_capability.cc): nodes that only compute on
   small CPU tensors (shape arithmetic after a Shape node) stay on the CPU (:func:`cpu_preferred`).

Before any of that, ONNX Runtime's basic (level 1) graph optimizations run, and they remove nodes: Constant nodes
become initializers, constant folding computes nodes whose inputs are all constant (and Shape nodes of static
shapes), EliminateIdentity and EliminateDropout drop those nodes (:func:`folded`).
"""
from __future__ import annotations

import functools
import heapq
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Mapping

from ..backends.ort_dml_kernels import formal_parameter

# Domains whose ops ONNX Runtime's basic optimizations may fold (they run on the CPU provider's kernels).
CPU_DOMAINS = frozenset({"ai.onnx", "ai.onnx.ml", "com.microsoft"})
ONNX_DOMAINS = {"ai.onnx": "", "ai.onnx.ml": "ai.onnx.ml", "ai.onnx.preview.training": "ai.onnx.preview.training"}
ORT_DOMAINS = frozenset({"com.microsoft", "com.microsoft.dml", "com.microsoft.nchwc", "com.ms.internal.nhwc"})

# Ops ONNX Runtime never constant-folds: they are not deterministic.
NONDETERMINISTIC = frozenset({"RandomNormal", "RandomUniform", "RandomNormalLike", "RandomUniformLike",
                              "Multinomial", "Bernoulli"})
# DirectML tensor data types ONNX Runtime's device mask can contain (GetSupportedDeviceDataTypeMask queries up to
# INT4); every other ONNX element type (string, bfloat16, complex, float8) has no DirectML type.
DML_ELEMS = frozenset({"float", "float16", "double", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32",
                       "uint64", "bool", "int4", "uint4"})
CUSTOM_SHADER_OPS = frozenset({"DFT", "STFT", "GridSample"})  # IsCustomOpShader: FLOAT16 needs native 16-bit ops
DML_SEQUENCE_OPS = frozenset({"ConcatFromSequence"})  # IsDmlSequenceOperator
CPU_OUTPUT_OPS = frozenset({"Shape", "Size"})  # DML kernels whose output is OrtMemTypeCPUInput (DmlOperatorShape.cpp)
SMALL_INITIALIZER = 100  # kSmallInitializerThreshold in fallback_cpu_capability.cc
CPU_PREFERRED_SKIP = frozenset({"float16", "bfloat16", "float8e4m3fn", "float8e4m3fnuz", "float8e5m2",
                                "float8e5m2fnuz"})


@dataclass
class Lookup:
    """The kernel lookup of one node.

    ``since_version``: what the node's opset resolves the op to. ``reg``: the matching DirectML-provider
    registration (None when none). ``fallback``: why no provider kernel matches (the node is left to the CPU
    provider). ``fatal``: why ONNX Runtime refuses the node outright (no schema, unknown domain).
    """

    since_version: int | None = None
    reg: dict | None = None
    fallback: str | None = None
    fatal: str | None = None
    inferred: list[str] = field(default_factory=list)
    schema: object = None  # onnx.defs.OpSchema when the op has an ONNX schema


def _versions(regs: list[dict]) -> str:
    vs = sorted(r["since_version"] for r in regs)
    return ", ".join(f"-{v}" for v in vs)


def lookup(node, domain: str, opsets: dict[str, int], regs: list[dict] | None, types: dict[str, str]) -> Lookup:
    """Find the DirectML provider's kernel for ``node`` (an ONNX NodeProto in ``domain``), as ORT's kernel lookup
    does: the since-version the node's opset resolves to must equal a registration's, and every type must be in the
    registration's lists.

    ``opsets``: the model's opset imports by domain (``ai.onnx`` for the default one); ``regs``: the table's
    registrations for (domain, op), or None; ``types``: value name -> ONNX type string.
    """
    import onnx

    op = node.op_type
    out = Lookup()
    version = opsets.get(domain)
    if version is None:
        out.fatal = (f"the model imports no opset for domain {domain!r}: ONNX Runtime refuses the model")
        return out
    if domain in ONNX_DOMAINS:
        try:
            out.schema = onnx.defs.get_schema(op, version, ONNX_DOMAINS[domain])
            out.since_version = out.schema.since_version
        except onnx.defs.SchemaError:
            # ONNX Runtime registers a few schemas of its own in the ONNX domain (LayerNormalization-1, Affine,
            # ImageScaler, ...); its table has them.
            own = sorted((r["since_version"] for r in regs or [] if r["since_version"] <= version), reverse=True)
            if not own:
                out.fatal = (f"{domain} has no {op} at opset {version}: ONNX Runtime refuses the model at load")
                return out
            out.since_version = own[0]
            out.inferred.append(f"{op}-{own[0]} is ONNX Runtime's own schema in the ONNX domain")
    elif domain in ORT_DOMAINS:
        out.since_version = 1  # ONNX Runtime's contrib schemas are all version 1
    else:
        out.fatal = (f"domain {domain!r} is not one ONNX Runtime knows: no provider implements {op} (a custom-op "
                     "library would have to be registered)")
        return out
    if not regs:
        where = "" if domain == "ai.onnx" else f" in {domain}"
        out.fallback = f"the DirectML provider registers no {op} kernel{where}"
        return out
    out.reg = next((r for r in regs if r["since_version"] == out.since_version), None)
    if out.reg is None:
        out.fallback = (f"opset {version} resolves {op} to {op}-{out.since_version}, which the DirectML provider "
                        f"does not register (it has {op}{_versions(regs)})")
        return out
    bad = type_mismatch(node, out.reg, out.schema, types)
    if bad:
        out.fallback = bad
        out.reg = None  # the kernel lookup fails: not a provider node at all
        return out
    if out.schema is None and any(out.reg["types"].values()):
        out.inferred.append("type constraints not checked (no ONNX schema for this op here)")
    return out


CPU_TABLE = Path(__file__).resolve().parent / "ort_cpu_kernels.json"


@functools.cache
def cpu_kernels() -> dict:
    """ONNX Runtime's CPU provider's registrations (dmlops/check/ort_cpu_kernels.json, written by
    ``python -m tools.gen_ort_cpu_kernels`` from the installed onnxruntime): ``{"meta": ..., "kernels": ...}``."""
    return json.loads(CPU_TABLE.read_text(encoding="utf-8"))


# What ONNX Runtime's CPU kernels refuse when they are constructed (the session then fails): their own messages.
CPU_KERNEL_LIMITS = {("ai.onnx", op): ("layout", "Batchwise recurrent operations (layout == 1) are not supported")
                     for op in ("LSTM", "GRU", "RNN")}


def cpu_kernel(node, domain: str, since: int | None, schema, types: dict[str, str]) -> tuple[str | None, str]:
    """How ONNX Runtime's CPU provider can run ``node``: ("exact", "") when a kernel matches its version (ORT's
    VerifyVersion) and types; ("cast", "") when only a float kernel matches a float16 node (ORT's
    InsertCastTransformer casts around it, after function inlining had its chance); (None, why) otherwise, also when
    the kernel would refuse the node's attributes as it is created (CPU_KERNEL_LIMITS)."""
    regs = cpu_kernels()["kernels"].get(domain, {}).get(node.op_type, [])
    if since is None:
        return None, ""
    as_float = {k: "tensor(float)" if v == "tensor(float16)" else v for k, v in types.items()}
    for kind, candidate in (("exact", types), ("cast", as_float)):
        for lo, hi, constraints in regs:
            if since == lo or (lo < since and hi is not None and hi >= since):
                if type_mismatch(node, {"types": constraints, "since_version": lo}, schema, candidate) is None:
                    limit = CPU_KERNEL_LIMITS.get((domain, node.op_type))
                    if limit and _attr(node, limit[0], 0):
                        return None, (f"ONNX Runtime's CPU kernel refuses {limit[0]}={_attr(node, limit[0], 0)} "
                                      f"when it is created ('{limit[1]}')")
                    return kind, ""
    if not regs:
        return None, f"ONNX Runtime's CPU provider has no {node.op_type} kernel either"
    spans = sorted({(lo, hi) for lo, hi, _ in regs}, key=lambda span: span[0])
    ranges = ", ".join(f"{lo}" + (f"-{hi}" if hi is not None and hi != lo else "" if hi == lo else "+")
                       for lo, hi in spans)
    return None, (f"ONNX Runtime's CPU provider has no {node.op_type}-{since} kernel for these types either "
                  f"(it registers versions {ranges})")


def function_body(node, schema, opset: int, type_protos: dict):
    """The FunctionProto ONNX Runtime would inline for ``node`` (its ONNX schema's function body, or its
    context-dependent body for the node's input types and shapes: ``type_protos``, value name -> TypeProto), or None
    when the op has none."""
    import onnx

    if schema is None:
        return None
    data = None
    static = schema.has_function
    versions = schema.function_opset_versions if static else schema.context_dependent_function_opset_versions
    usable = [v for v in versions if v <= opset]  # the body written for the newest opset not above the model's
    if not usable:
        return None
    requested, opset = opset, max(usable)
    try:
        if static:
            data = schema.get_function_with_opset_version(opset)
        elif schema.has_context_dependent_function:
            tps = [(type_protos[x] if x in type_protos else onnx.TypeProto()).SerializeToString() if x
                   else onnx.TypeProto().SerializeToString() for x in node.input]
            data = schema.get_context_dependent_function_with_opset_version(opset, node.SerializeToString(), tps)
    except Exception:  # onnx raises plain RuntimeErrors when it cannot build a body for these types
        return None
    if not data:
        return None
    fp = onnx.FunctionProto()
    fp.ParseFromString(data if isinstance(data, bytes) else data.SerializeToString())
    if not fp.node or (static and not _body_still_valid(fp, opset, requested)):
        return None
    return fp


def _body_still_valid(fp, body_opset: int, model_opset: int) -> bool:
    """Whether a static body written for ``body_opset`` means the same at ``model_opset``: none of the ONNX ops it uses
    has a newer version in between (ONNX's GetFunction(requested_opset, validate) refuses it otherwise, and ONNX Runtime
    then has no body to inline: a Swish-24 node in an opset-28 model is not inlined, its body's CastLike changed at
    25). Context-dependent bodies are built for the requested opset and not validated so (CastLike-25 in an
    opset-28 model is inlined although Cast changed at 28): both as onnxruntime 1.32 behaves on ONNX's node tests."""
    import onnx

    for n in fp.node:
        if (n.domain or "") not in ("", "ai.onnx"):
            continue
        try:
            then = onnx.defs.get_schema(n.op_type, body_opset, "").since_version
            now = onnx.defs.get_schema(n.op_type, model_opset, "").since_version
        except onnx.defs.SchemaError:
            return False
        if then != now:
            return False
    return True


def expand(node, fp, prefix: str) -> list:
    """The nodes of ``fp`` (a FunctionProto) standing in for ``node``: formal inputs and outputs renamed to the
    node's, internal values prefixed with ``prefix``, attribute references resolved from the node (or the
    function's defaults)."""
    import onnx

    rename = {formal: (node.input[k] if k < len(node.input) else "") for k, formal in enumerate(fp.input)}
    rename.update({formal: node.output[k] for k, formal in enumerate(fp.output) if k < len(node.output)})
    given = {a.name: a for a in node.attribute}
    defaults = {a.name: a for a in fp.attribute_proto}
    out = []
    for k, n in enumerate(fp.node):
        m = onnx.NodeProto()
        m.CopyFrom(n)
        m.name = f"{prefix}/{n.op_type}_{k}"
        m.input[:] = [rename.get(x, f"{prefix}/{x}") if x else "" for x in n.input]
        m.output[:] = [rename.get(x, f"{prefix}/{x}") if x else "" for x in n.output]
        attrs = []
        for a in n.attribute:
            if a.ref_attr_name:
                src = given.get(a.ref_attr_name) or defaults.get(a.ref_attr_name)
                if src is None:
                    continue
                b = onnx.AttributeProto()
                b.CopyFrom(src)
                b.name = a.name
                attrs.append(b)
            else:
                attrs.append(a)
        del m.attribute[:]
        m.attribute.extend(attrs)
        out.append(m)
    return out


def _short(t: str) -> str:
    return t[7:-1] if t.startswith("tensor(") else t


def type_mismatch(node, reg: dict, schema, types: dict[str, str]) -> str | None:
    """Why ``node``'s types are outside ``reg``'s type lists (kernel lookup checks each type constraint), or None."""
    if schema is None:
        return None
    for kind, names, params in (("input", node.input, schema.inputs), ("output", node.output, schema.outputs)):
        for j, name in enumerate(names):
            formal = formal_parameter(params, j)
            if not name or formal is None or name not in types:
                continue
            allowed = reg["types"].get(formal.type_str)
            if allowed is not None and types[name] not in allowed:
                listed = ", ".join(_short(t) for t in allowed)
                return (f"{kind} {j} ({formal.name}) is {_short(types[name])}; the provider's "
                        f"{node.op_type}-{reg['since_version']} takes {formal.type_str} in {listed}")
    return None


def _attr(node, name: str, default=None):
    import onnx

    for a in node.attribute:
        if a.name == name:
            return onnx.helper.get_attribute_value(a)
    return default


def _text(value) -> str:
    return value.decode(errors="replace") if isinstance(value, bytes) else str(value)


def support_query(query: str | None, node, opset: int) -> str | None:
    """Why the registration's support query refuses ``node`` (it then falls back to the CPU), or None.

    The rules are the provider's (DmlOperator*.cpp Query* functions, as ../shared/research/ort_dml_ep.md §5 reads
    them), except QueryEinSum, whose pattern matching dmlops does not replay (the caller marks that inferred).
    """
    if not query:
        return None
    n_in = len(node.input)
    present_out = [bool(x) for x in node.output]
    if query == "QuerySlice" and n_in > 5:
        return f"QuerySlice: {n_in} inputs (the provider takes at most 5)"
    if query == "QueryPad" and opset < 11:
        pads = list(_attr(node, "pads", []) or [])
        if any(p < 0 for p in pads):
            return "QueryPad: negative pads (Pad before opset 11)"
    if query == "QueryResize":
        mode = _text(_attr(node, "mode", b"nearest"))
        if mode == "cubic":
            return "QueryResize: mode 'cubic' is not supported"
        if _attr(node, "exclude_outside", 0):
            return "QueryResize: exclude_outside=1 is not supported"
        if _attr(node, "extrapolation_value", 0.0):
            return "QueryResize: a non-zero extrapolation_value is not supported"
    if query == "QueryMaxPool" and _attr(node, "storage_order", 0):
        return "QueryMaxPool: storage_order=1 is not supported"
    if query == "QueryBatchNormalization":
        if _attr(node, "training_mode", 0):
            return "QueryBatchNormalization: training_mode=1 is not supported"
        if sum(1 for x in node.input if x) < 5:
            return "QueryBatchNormalization: fewer than 5 inputs"
    if query == "QueryRecurrentNeuralNetwork" and _attr(node, "layout", 0):
        return "QueryRecurrentNeuralNetwork: layout=1 (batch first) is not supported"
    if query == "QueryScatter":
        reduction = _text(_attr(node, "reduction", b"none"))
        if reduction != "none":
            return f"QueryScatter: reduction {reduction!r} is not supported"
    if query == "QueryLayerNormalization" and sum(present_out[1:]) > 0:
        return "QueryLayerNormalization: the Mean / InvStdDev outputs are not supported"
    if query == "QuerySkipLayerNormalization" and any(present_out[1:3]):
        return "QuerySkipLayerNormalization: the mean / inv_std_var outputs are not supported"
    if query == "QueryQLinearSigmoid":
        if n_in < 5 or not node.input[2] or not node.input[4]:
            return "QueryQLinearSigmoid: a zero point is missing"
    if query == "QueryMatMulNBits":
        bits = _attr(node, "bits", 4)
        k = _attr(node, "K", None)
        block = _attr(node, "block_size", None)
        if bits not in (4, 8):
            return f"QueryMatMulNBits: bits={bits} (the provider takes 4 or 8)"
        if k is not None and block and k % block:
            return f"QueryMatMulNBits: K={k} is not a multiple of block_size={block}"
    if query == "QueryAttention":
        if (n_in > 4 and node.input[4]) or (n_in > 6 and node.input[6]) or (len(present_out) > 1 and present_out[1]):
            return "QueryAttention: past / past_sequence_length / present are not supported"
        for name in ("unidirectional", "do_rotary", "past_present_share_buffer"):
            if _attr(node, name, 0):
                return f"QueryAttention: {name}=1 is not supported"
    if query == "QueryQAttention":
        if _attr(node, "unidirectional", 0) and n_in > 5 and node.input[5]:
            return "QueryQAttention: unidirectional with a mask is not supported"
        for name in ("do_rotary", "past_present_share_buffer"):
            if _attr(node, name, 0):
                return f"QueryQAttention: {name}=1 is not supported"
    return None


def device_mask(node, reg: dict, types: dict[str, str], float16: bool, float64: bool,
                native_16bit: bool) -> str | None:
    """Why the device's data-type mask refuses ``node`` (DoesNodeContainSupportedDataTypes), or None."""
    cpu_inputs = set(reg.get("required_constant_cpu_inputs") or [])
    cpu_kernel = reg.get("registration") == "RegisterCpuOperatorsAsDml"
    for kind, names in (("input", node.input), ("output", node.output)):
        for j, name in enumerate(names):
            t = types.get(name) if name else None
            if t is None:
                continue
            if t.startswith("seq(") or t.startswith("optional(seq("):
                if not cpu_kernel and node.op_type not in DML_SEQUENCE_OPS:
                    return f"{kind} {j} ({name}) is a sequence, which only the provider's CPU kernels take"
                continue
            if not t.startswith("tensor("):
                if cpu_kernel:
                    continue
                return f"{kind} {j} ({name}) is {t}, not a tensor"
            elem = t[7:-1]
            if elem not in DML_ELEMS:
                return f"{kind} {j} ({name}) is {elem}, which DirectML has no data type for"
            if elem == "float16" and node.op_type in CUSTOM_SHADER_OPS and not native_16bit:
                return f"{kind} {j} ({name}) is float16 and the device has no native 16-bit shader operations"
            if kind == "input" and j in cpu_inputs:
                continue  # read on the CPU: any type
            if elem == "float16" and not float16:
                return f"{kind} {j} ({name}) is float16 and the device does not support FLOAT16 tensors"
            if elem == "double" and not float64:
                return f"{kind} {j} ({name}) is double and the device does not support FLOAT64 tensors"
    return None


def folded(node, constants: set[str], shapes: dict, graph_outputs: set[str], consumers: dict[str, list],
           producers: frozenset[str] | set[str] = frozenset()) -> str | None:
    """Why ONNX Runtime's basic graph optimizations remove ``node`` before partitioning, or None.

    ``constants``: names of constant values (initializers that no graph input overrides, and outputs of nodes
    folded so far); ``shapes``: value name -> shape tuple (None unknown); ``consumers``: value name -> nodes;
    ``producers``: the values some node of the graph outputs.
    """
    op, domain = node.op_type, node.domain or "ai.onnx"
    if domain != "ai.onnx" and domain not in CPU_DOMAINS:
        return None
    if op == "Constant" and domain == "ai.onnx":
        return "a Constant node: ONNX Runtime makes it an initializer when it loads the model"
    if any(a.type in (5, 10) for a in node.attribute):  # GRAPH / GRAPHS: control flow is never folded
        return None
    produces_output = any(o in graph_outputs for o in node.output)
    if op == "Shape" and domain == "ai.onnx" and node.input:
        shape = shapes.get(node.input[0])
        if shape is not None and all(isinstance(d, int) for d in shape) and not produces_output:
            return "Shape of a static shape: ONNX Runtime's constant folding computes it"
    inputs = [x for x in node.input if x]
    if inputs and op not in NONDETERMINISTIC and all(x in constants for x in inputs) and not produces_output:
        return "every input is constant: ONNX Runtime's constant folding computes it"
    used = [o for o in node.output[1:] if o and (consumers.get(o) or o in graph_outputs)]
    if domain == "ai.onnx" and op == "Identity" and node.input and node.input[0]:
        source = node.input[0]
        # A graph output's Identity goes too when its input is another node's output used by nothing else: the
        # producer then writes the graph output itself (EliminateIdentity's condition).
        if not produces_output or (source not in graph_outputs and source not in constants and
                                   source in producers and len(consumers.get(source, [])) == 1):
            return "an Identity: ONNX Runtime's EliminateIdentity removes it"
    if domain == "ai.onnx" and op == "Dropout" and not produces_output and not used:
        return "a Dropout without a used mask: ONNX Runtime's EliminateDropout removes it"
    return None


def cpu_preferred(order: list[int], nodes: Mapping[int, Any], provider: set[int], consumers: dict[str, list[int]],
                  small: set[str], graph_inputs: set[str], types: dict[str, str],
                  cpu_inputs: dict[int, set[int]]) -> dict[int, str]:
    """The provider nodes ONNX Runtime keeps on the CPU (GetCpuPreferredNodes), with the reason for each.

    ``order``: node indices in topological order; ``provider``: nodes with a matching provider kernel;
    ``small``: initializers (constant values) of at most 100 elements; ``cpu_inputs``: node -> the input positions
    its kernel reads on the CPU.
    """
    rank = {n: k for k, n in enumerate(order)}
    heap: list[tuple[int, int]] = []
    cpu_args: dict[str, str] = {}  # value -> where it comes from

    def push_consumers(value: str):
        for c in consumers.get(value, []):
            heapq.heappush(heap, (rank[c], c))

    for n in order:
        if n in provider and nodes[n].op_type in CPU_OUTPUT_OPS:
            for out in nodes[n].output:
                if out:
                    cpu_args[out] = f"{nodes[n].op_type} output {out!r}"
                    push_consumers(out)
    visited: set[int] = set()
    found: dict[int, str] = {}
    while heap:
        _, cur = heapq.heappop(heap)
        if cur in visited:
            continue
        visited.add(cur)
        node = nodes[cur]
        if cur not in provider:  # falls back: its outputs are CPU tensors
            for out in node.output:
                if out:
                    cpu_args.setdefault(out, f"CPU node output {out!r}")
                    push_consumers(out)
            continue
        place, via = True, None
        for i, name in enumerate(node.input):
            t = types.get(name, "") if name else ""
            if t[7:-1] in CPU_PREFERRED_SKIP:
                place = False
                break
            if name and (name in small or name in graph_inputs):
                continue
            if not name or name not in cpu_args or i in cpu_inputs.get(cur, set()):
                place = False
                break
            via = via or cpu_args[name]
        if place:
            found[cur] = (f"ONNX Runtime keeps it on the CPU (GetCpuPreferredNodes): it computes on CPU tensors "
                          f"({via or 'small constants'}) and small or graph inputs only")
            for out in node.output:
                if out:
                    cpu_args[out] = f"{node.op_type} output {out!r}"
                    push_consumers(out)
    return found
