"""The ``dmlops`` command.

    dmlops ops [--feature-level X]                   list operator types (those X allows)
    dmlops describe OP [--feature-level X]           fields, defaults, support tiers, constraints
    dmlops validate FILE.json [--feature-level X] [--json] [--run [--backend B] [--device D]]
                                                     exit 0 when valid, 1 with every problem listed;
                                                     --run runs a DxDispatch model's commands
    dmlops demo [--steps N]                          seed operators on every backend and device, checked
                                                     against the reference; then a small training run
    dmlops devices [--json]                          DirectML adapters: name, memory, feature level, FLOAT16/64
    dmlops selftest [--path B[:D]] [--op OP] [--json FILE]
                                                     every DirectML path here against the reference and
                                                     DirectML's answers; exit 1 on a mismatch
    dmlops check MODEL.onnx|FOLDER ... [--feature-level X | --device dml:N] [--json FILE] [--html FILE]
                                                     will the models run on ONNX Runtime's DirectML provider?
                                                     node by node; exit 1 when a node falls back or fails

Bad input (unknown operator, malformed file, bad feature level) prints a one-line error and exits 2;
no traceback is shown.
"""
from __future__ import annotations

import argparse
import json
import sys

from . import schema as _schema
from .errors import DmlOpsError
from .types import FeatureLevel


class _Parser(argparse.ArgumentParser):
    def error(self, message):  # usage errors: exit 2 with a short message, like every other bad input
        self.print_usage(sys.stderr)
        print(f"dmlops: error: {message}", file=sys.stderr)
        raise SystemExit(2)


def _level(text: str) -> FeatureLevel:
    try:
        return FeatureLevel.parse(text)
    except DmlOpsError as e:
        raise argparse.ArgumentTypeError(str(e).lstrip(": ")) from None


def cmd_ops(args) -> int:
    schemas = list(_schema.all_schemas().values())
    if args.feature_level is not None:
        schemas = [s for s in schemas if s.introduced <= args.feature_level]
    rows = [(s.operator_type, s.introduced.short, s.struct_name) for s in schemas]
    width = max(len(r[0]) for r in rows)
    print(f"{'operator':<{width}}  introduced  struct")
    for op, level, struct in rows:
        print(f"{op:<{width}}  {level:<10}  {struct}")
    where = f" allowed at {args.feature_level.dml_name}" if args.feature_level is not None else ""
    print(f"{len(rows)} operator types{where}.")
    return 0


def cmd_describe(args) -> int:
    s = _schema.get(args.operator)
    from .ops import MODULES

    print(f"{s.operator_type}  ({s.struct_name}, DML_OPERATOR_TYPE value {s.enum_value})")
    print(f"introduced: {s.introduced.dml_name}")
    print(f"docs:       {s.docs_url}")
    print(f"in-place:   {'yes' if s.supports_in_place else 'no'}")
    fused = "takes a FusedActivation" if s.accepts_fused_activation else (
        "can be used as a fused activation" if s.fusable_activation else "no")
    print(f"fusion:     {fused}")
    print(f"rules:      {'hand-written shape rules in dmlops/ops/' + MODULES[s.operator_type] + '.py' if s.operator_type in MODULES else 'descriptor rules only'}")
    print("\nfields (struct order):")
    counts = s.count_fields
    for f in s.fields:
        kind = "derived count" if f.name in counts else f.kind
        type_ = f.enum or ("BOOL" if f.is_bool else f.type)
        extra = []
        if f.optional:
            extra.append("optional")
        if f.has_default:
            extra.append(f"default {f.default}")
        if f.count_field:
            extra.append(f"counted by {f.count_field}")
        py = "" if f.name in counts else f"  [{f.py_name}]"
        print(f"  {f.name:<30} {kind:<13} {type_:<34}{(' ' + ', '.join(extra)) if extra else ''}{py}")
    tiers = list(s.support)
    if args.feature_level is not None:  # the tier in force, per group of reduce functions
        groups = dict.fromkeys(t.functions for t in s.support)
        in_force = [s.tier_at(args.feature_level, min(g) if g else None) for g in groups]
        tiers = [t for t in tiers if any(t is x for x in in_force)]
    print("\ntensor support:" if args.feature_level is None else f"\ntensor support at {args.feature_level.dml_name}:")
    if not tiers:
        print(f"  none: {s.operator_type} was introduced in {s.introduced.dml_name}.")
    for t in tiers:
        fn = f" [{', '.join(sorted(x.removeprefix('DML_REDUCE_FUNCTION_') for x in t.functions))}]" if t.functions else ""
        print(f"  {t.level.dml_name} and above{fn}:")
        for name, sup in t.tensors.items():
            types = ", ".join(sup.data_types) if sup.data_types is not None else "(not documented)"
            print(f"    {name:<28} ranks {_schema.ranks_text(sup.dimension_counts):<7} {types}")
    if s.same:
        print("\nconstraints:")
        for c in s.same:
            print(f"  {', '.join(c.tensors)} must have the same {', '.join(c.properties)}")
    for text in s.constraints_text:
        print(f"  {text}")
    if s.notes or s.deviations:
        print("\nnotes:")
        for n in s.notes:
            print(f"  - {n}")
        for d in s.deviations:
            print(f"  - {d['path']}: {d['why']} (reference said {json.dumps(d['reference'])})")
    return 0


def cmd_validate(args) -> int:
    from .jsonio import dispatchable_from_json, load_document, model_from_json
    from .validation import problems

    if not args.run and (args.backend or args.device):
        raise DmlOpsError("validate: --backend and --device choose where --run runs the model; add --run.")
    level = args.feature_level or FeatureLevel.latest()
    document = load_document(args.file)  # at most jsonio.MAX_FILE_BYTES (64 MiB)
    model = None
    if isinstance(document, dict) and "dispatchables" in document:
        from pathlib import Path

        model = model_from_json(document, "$", Path(args.file).parent)
        dispatchable = model.dispatchable
    else:
        dispatchable = dispatchable_from_json(document)
    desc = dispatchable.desc
    found = problems(desc, level)
    report: dict = {"file": args.file, "operator": desc.OPERATOR_TYPE, "feature_level": level.dml_name,
                    "valid": not found, "problems": [p.to_dict() for p in found]}
    if dispatchable.execution_flags or dispatchable.compile_type != "DmlCompileOp":  # what DxDispatch compiles with
        report["executionFlags"] = ["DML_EXECUTION_FLAG_" + n for n in dispatchable.execution_flags.names()]
        report["dmlCompileType"] = dispatchable.compile_type
    lines = []
    if found:
        lines.append(f"{args.file}: {desc.OPERATOR_TYPE} is invalid at {level.dml_name} ({len(found)} problem(s)):")
        lines.extend(f"  - {p}" for p in found)
    else:
        lines.append(f"{args.file}: {desc.OPERATOR_TYPE} is valid at {level.dml_name}.")
    if args.run and not found:
        from .dxdispatch import run

        if model is None:
            raise DmlOpsError(f"{args.file}: --run needs a DxDispatch model (resources, dispatchables, commands); "
                              "this is a single operator.")
        result = run(model, args.backend, args.device, args.feature_level)  # None: as dmlops.compile chooses
        report["run"] = {"backend": result.backend, "device": result.device, "printed": result.printed,
                         "notes": result.notes}
        lines.append(f"ran its commands on {result.backend} ({result.device}):")
        lines.extend(result.printed)
        lines.extend(f"note: {n}" for n in result.notes)
    print(json.dumps(report, indent=2) if args.json else "\n".join(lines))
    return 1 if found else 0


def cmd_demo(args) -> int:
    from .demo import main as demo

    return demo(steps=args.steps)


def _positive(text: str) -> int:
    if not text.isdigit() or int(text) < 1:
        raise argparse.ArgumentTypeError(f"expected a positive integer; got {text!r}")
    return int(text)


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of the ``dmlops`` command."""
    p = _Parser(prog="dmlops", description="DirectML operator descriptors, validated and run.")
    sub = p.add_subparsers(dest="command", required=True, parser_class=_Parser)
    level_help = 'feature level: "5.1", "DML_FEATURE_LEVEL_5_1" or 0x5100'

    ops = sub.add_parser("ops", help="list operator types and the feature level each was introduced in")
    ops.add_argument("--feature-level", type=_level, help=level_help + "; list only what it allows")
    ops.set_defaults(func=cmd_ops)

    describe = sub.add_parser("describe", help="fields, defaults, support tiers and constraints of an operator")
    describe.add_argument("operator", help="GRU, gru or DML_OPERATOR_GRU")
    describe.add_argument("--feature-level", type=_level, help=level_help + "; show only its support tier")
    describe.set_defaults(func=cmd_describe)

    validate = sub.add_parser("validate", help="validate a DxDispatch-style JSON operator descriptor")
    validate.add_argument("file", help="JSON file (read up to 64 MiB): {\"type\": \"DML_OPERATOR_...\", \"desc\": "
                                       "{...}}, a DxDispatch model or one of its DML dispatchables")
    validate.add_argument("--feature-level", type=_level, help=level_help + " (default: the newest, 6.4)")
    validate.add_argument("--json", action="store_true", help="machine-readable output")
    validate.add_argument("--run", action="store_true",
                          help="when valid, run a DxDispatch model's commands: its resources bound as its bindings "
                               "say, its print commands printed")
    validate.add_argument("--backend", choices=("onnxruntime", "torch", "reference", "directml"),
                          help="where --run runs (default: directml where a DirectML device exists, else "
                               "onnxruntime)")
    validate.add_argument("--device", help="device for --run: cpu, cuda[:N], dml[:N] (default: the best available)")
    validate.set_defaults(func=cmd_validate)

    demo = sub.add_parser("demo", help="run the seed operators on every backend and device, then train a classifier")
    demo.add_argument("--steps", type=_positive, default=60, help="training steps (default 60)")
    demo.set_defaults(func=cmd_demo)

    dv = sub.add_parser("devices", help="list the DirectML adapters and what each supports",
                        description="List every DirectML adapter (dml:N): name, vendor, memory, the highest "
                                    "DML_FEATURE_LEVEL and FLOAT16/FLOAT64 support. Exit 1 when there is none.")
    dv.add_argument("--json", action="store_true", help="print JSON")
    dv.set_defaults(func=cmd_devices)

    st = sub.add_parser("selftest", help="check every DirectML path here against the reference and DirectML's answers",
                        description="Run every runnable operator's samples and DirectML's own answers on each DirectML "
                                    "path present (onnxruntime with the DML provider, torch-directml, native DirectML "
                                    "devices); on the native path, say how much device memory each operator held. "
                                    "Exit 0 when all agree, 1 on a mismatch or error, 2 when nothing was checked (no "
                                    "path here, a --path whose device does not exist, every case refused).")
    st.add_argument("--path", action="append", metavar="BACKEND[:DEVICE]",
                    help="check this path instead of the DirectML paths found (repeatable), e.g. onnxruntime:cpu")
    st.add_argument("--op", action="append", metavar="OP", help="only this operator type (repeatable)")
    st.add_argument("--json", metavar="FILE", dest="json_file", help="also write a JSON report for bug reports")
    st.set_defaults(func=cmd_selftest)
    from .check.command import add_parser as add_check_parser

    add_check_parser(sub, _level, level_help)
    # The description names the commands that exist, so it cannot promise one that does not (it once said "run").
    p.description = f"{p.description} Commands: {', '.join(sub.choices)}; 'dmlops COMMAND --help' for each."
    return p


def cmd_devices(args) -> int:
    from .backends.directml.adapters import devices, unavailable_reason

    found = devices()
    reason = unavailable_reason()
    if args.json:
        print(json.dumps({"devices": [a.to_dict() for a in found], "unavailable_reason": reason}, indent=1))
    elif found:
        for a in found:
            print(a)
    else:
        print(f"no DirectML adapter found. {reason or 'No adapter supports D3D12 compute.'}")
    return 0 if found else 1


def cmd_selftest(args) -> int:
    from .selftest import main as selftest_main

    return selftest_main(args.path, args.op, args.json_file, out=lambda line: print(line, flush=True))


def main(argv=None) -> int:
    """Entry point of the ``dmlops`` command; returns the exit code."""
    args = build_parser().parse_args(argv)
    try:
        return args.func(args)
    except DmlOpsError as e:
        if getattr(args, "json", False):
            print(json.dumps({"error": str(e)}))
        else:
            print(f"dmlops: error: {e}", file=sys.stderr)
        return 2
    except BrokenPipeError:
        return 0


if __name__ == "__main__":
    sys.exit(main())
