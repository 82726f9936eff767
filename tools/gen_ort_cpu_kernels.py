"""Write dmlops/check/ort_cpu_kernels.json: ONNX Runtime's CPU provider's kernel registrations, as the installed
onnxruntime reports them (``onnxruntime.capi._pybind_state.get_all_opkernel_def()``).

    python -m tools.gen_ort_cpu_kernels           write the file from the installed onnxruntime
    python -m tools.gen_ort_cpu_kernels --check   exit 1 if the file differs from what the installed onnxruntime says

``dmlops check`` reads it to tell a node that falls back to the CPU (the CPU provider has a kernel) from one that no
provider implements (session creation fails) or one ONNX Runtime inlines (an ONNX function op no provider
implements: its body's nodes are placed instead). Each registration keeps its own type lists (a typed kernel such as
OneHot<int64, float, bfloat16> exists or does not; a union over registrations would accept combinations none of them
takes); identical ones are written once; an end version of 2147483647 (INT_MAX) is written as null.
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "dmlops" / "check" / "ort_cpu_kernels.json"
INT_MAX = 2147483647


def build() -> dict:
    """The file's content from the installed onnxruntime."""
    import onnxruntime
    from onnxruntime.capi import _pybind_state as C

    regs: dict[tuple[str, str], set[str]] = {}
    for k in C.get_all_opkernel_def():
        if k.provider != "CPUExecutionProvider":
            continue
        lo, hi = k.version_range
        entry = [lo, None if hi >= INT_MAX else hi, {n: sorted(t) for n, t in sorted(k.type_constraints.items())}]
        regs.setdefault((k.domain or "ai.onnx", k.op_name), set()).add(json.dumps(entry, sort_keys=True))
    kernels: dict[str, dict[str, list]] = {}
    for (domain, op), entries in sorted(regs.items()):
        kernels.setdefault(domain, {})[op] = [json.loads(e) for e in sorted(entries)]
    return {"meta": {"onnxruntime": onnxruntime.__version__,
                     "source": "onnxruntime.capi._pybind_state.get_all_opkernel_def(), CPUExecutionProvider",
                     "command": "python -m tools.gen_ort_cpu_kernels",
                     "format": "kernels[domain][op] = [[since, until or null, {type constraint: [types]}], ...], one "
                               "entry per registration"},
            "kernels": kernels}


def render(content: dict) -> str:
    """Deterministic JSON text (one registration per line)."""
    lines = ["{", f'  "meta": {json.dumps(content["meta"], sort_keys=True)},', '  "kernels": {']
    domains = list(content["kernels"].items())
    for di, (domain, ops) in enumerate(domains):
        lines.append(f"    {json.dumps(domain)}: {{")
        items = list(ops.items())
        for oi, (op, regs) in enumerate(items):
            body = ",\n".join(f"        {json.dumps(r, sort_keys=True)}" for r in regs)
            lines.append(f"      {json.dumps(op)}: [\n{body}\n      ]" + ("," if oi < len(items) - 1 else ""))
        lines.append("    }" + ("," if di < len(domains) - 1 else ""))
    lines += ["  }", "}", ""]
    return "\n".join(lines)


def main(argv=None) -> int:
    """Write (or with --check compare) the file; returns the exit code."""
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--check", action="store_true", help="exit 1 if the file is stale")
    args = p.parse_args(argv)
    text = render(build())
    if args.check:
        if not OUT.is_file() or OUT.read_text(encoding="utf-8") != text:
            print(f"{OUT.relative_to(ROOT)} differs from the installed onnxruntime's CPU kernels; run "
                  "python -m tools.gen_ort_cpu_kernels", file=sys.stderr)
            return 1
        return 0
    OUT.write_text(text, encoding="utf-8")
    print(f"wrote {OUT.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
