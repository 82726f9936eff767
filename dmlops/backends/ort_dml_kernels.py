"""ONNX Runtime's DirectML provider kernel table, and the check of an ONNX model against it.

The table (dmlops/data/ort_dml_ep_kernels.json, read from onnxruntime's OperatorRegistration.cpp; see its
``meta``) lists every kernel the DirectML execution provider registers: op, domain, since-version and type lists.
The provider takes a node only when the node's opset resolves the op to an ONNX schema whose since-version equals
a registration's since-version exactly (ORT's ``VerifyVersion``: every DML kernel is registered with a start version
only), and when every input and output type is in the registered list for its type constraint; DirectML has no BOOL
(bool travels as UINT8) and most GPUs have no FLOAT64. An unmatched node goes to the CPU provider, which dmlops turns
off for GPU sessions (``session.disable_cpu_ep_fallback``), so session creation would fail on Windows: ``problems``
finds such nodes first, and the onnxruntime backend refuses them at compile time with their names.
"""
from __future__ import annotations

import functools
import json
from pathlib import Path

TABLE = Path(__file__).resolve().parent.parent / "data" / "ort_dml_ep_kernels.json"


@functools.cache
def kernels() -> dict[tuple[str, str], list[dict]]:
    """Registrations by (domain, op); the ONNX domain is written ``ai.onnx``."""
    out: dict[tuple[str, str], list[dict]] = {}
    for k in json.loads(TABLE.read_text(encoding="utf-8"))["kernels"]:
        out.setdefault((k["domain"], k["op"]), []).append(k)
    return out


def _type_name(elem_type: int) -> str:
    import onnx

    return f"tensor({onnx.TensorProto.DataType.Name(elem_type).lower()})"


def _value_types(model) -> dict[str, str]:
    import onnx

    inferred = onnx.shape_inference.infer_shapes(model)
    g = inferred.graph
    types = {v.name: _type_name(v.type.tensor_type.elem_type) for v in [*g.input, *g.output, *g.value_info]}
    types.update({t.name: _type_name(t.data_type) for t in g.initializer})
    return types


def formal_parameter(params, index: int):
    """The schema's formal parameter for actual position ``index`` (a variadic last parameter repeats)."""
    if index < len(params):
        return params[index]
    if params and params[-1].option == params[-1].option.Variadic:
        return params[-1]
    return None


def problems(model, float64: bool = False) -> list[str]:
    """Why each node of ``model`` would not run on ONNX Runtime's DirectML provider (empty: every node would).

    ``float64``: whether the device supports FLOAT64 tensors (most DirectML GPUs do not).
    """
    import onnx

    opsets = {o.domain or "ai.onnx": o.version for o in model.opset_import}
    types = _value_types(model)
    out = []
    for i, node in enumerate(model.graph.node):
        domain = node.domain or "ai.onnx"
        label = f"node {i} {node.op_type}"
        regs = kernels().get((domain, node.op_type))
        if not regs:
            out.append(f"{label}: the DirectML provider has no {node.op_type} kernel.")
            continue
        schema = onnx.defs.get_schema(node.op_type, opsets[domain], "" if domain == "ai.onnx" else domain)
        reg = next((r for r in regs if r["since_version"] == schema.since_version), None)
        if reg is None:
            have = ", ".join(str(r["since_version"]) for r in regs)
            out.append(f"{label}: opset {opsets[domain]} resolves to {node.op_type}-{schema.since_version}, which the "
                       f"DirectML provider does not register (registered: {have}).")
            continue
        bad, wanted = [], None
        for kind, names, params in (("input", node.input, schema.inputs), ("output", node.output, schema.outputs)):
            for j, name in enumerate(names):
                formal = formal_parameter(params, j)
                if not name or formal is None or name not in types:
                    continue
                found = types[name]
                allowed = reg["types"].get(formal.type_str)
                if (allowed is not None and found not in allowed) or (found == "tensor(double)" and not float64):
                    bad.append(f"{kind} {j} ({formal.name}) is {found}")
                    if allowed is not None and wanted is None:
                        wanted = f"{formal.type_str} in {', '.join(t for t in allowed if float64 or t != 'tensor(double)')}"
        if bad:
            out.append(f"{label}: {'; '.join(bad)}; the DirectML provider's {node.op_type}-{reg['since_version']} takes "
                       + (wanted if wanted else "it only on devices with FLOAT64") + ".")
    return out


__all__ = ["kernels", "problems", "formal_parameter", "TABLE"]
