"""The ``dmlops check`` subcommand (its parser and its handler; dmlops/cli.py registers it)."""
from __future__ import annotations

import json
import sys
import time
from pathlib import Path

from ..errors import DmlOpsError

DESCRIPTION = ("Check ONNX models against ONNX Runtime's DirectML provider, statically: for each node, whether the "
               "provider takes it, the DirectML operators it becomes, the lowest feature level they need for the "
               "node's types and ranks, and the verdict at the target level (DirectML, CPU fallback or fails) with "
               "its reason. Exit 0 when every node runs on DirectML, 1 when a node falls back or fails, 2 on bad input.")


def add_parser(sub, level_type, level_help: str) -> None:
    """Register ``check`` on the ``dmlops`` subparsers ``sub``."""
    p = sub.add_parser("check", help="will an ONNX model run on DirectML at a feature level? node by node, with reasons",
                       description=DESCRIPTION)
    p.add_argument("models", nargs="+", metavar="MODEL", help=".onnx files or folders (every .onnx file inside)")
    where = p.add_mutually_exclusive_group()
    where.add_argument("--feature-level", type=level_type, help=level_help + " (default: the newest, 6.4)")
    where.add_argument("--device", help="dml:N: take the level and FLOAT16/FLOAT64 support from that adapter "
                                        "(dmlops devices)")
    p.add_argument("--no-cpu-fallback", action="store_true",
                   help="check as dmlops' own sessions run (CPU fallback off): every node that would fall back fails")
    p.add_argument("--float64", action="store_true", help="without --device: the device supports FLOAT64 tensors")
    p.add_argument("--no-float16", action="store_true", help="without --device: the device lacks FLOAT16 tensors")
    p.add_argument("--nodes", action="store_true", help="list every node, not only those off DirectML")
    p.add_argument("--json", metavar="FILE", dest="json_file", help="also write the full report as JSON")
    p.add_argument("--html", metavar="FILE", dest="html_file", help="also write a self-contained HTML page")
    p.add_argument("--progress", choices=("auto", "on", "off"), default="auto",
                   help="progress bar on stderr for several models (auto: when stderr is a terminal)")
    p.set_defaults(func=run)


def run(args) -> int:
    """Handle ``dmlops check``; returns the exit code."""
    from .core import check_model
    from .many import check_paths, model_files, summary_rows
    from .report import BadModel, ModelReport

    if args.device and (args.float64 or args.no_float16):
        raise DmlOpsError("check: --float64 and --no-float16 describe a device given by --feature-level; --device "
                          "reads them from the adapter.")
    fallback = not args.no_cpu_fallback
    float16 = False if args.no_float16 else None
    float64 = True if args.float64 else None
    single = len(args.models) == 1 and not Path(args.models[0]).is_dir()
    start = time.perf_counter()
    results: list[ModelReport | BadModel]
    if single:
        report = check_model(args.models[0], args.feature_level, args.device, cpu_fallback=fallback, float16=float16,
                             float64=float64)  # bad input raises: exit 2 with one line
        print(report.text(all_nodes=args.nodes))
        results = [report]
    else:
        files = model_files(args.models)
        if not files:
            raise DmlOpsError(f"no .onnx file in {', '.join(args.models)}.")
        show = args.progress == "on" or (args.progress == "auto" and sys.stderr.isatty())
        results = check_paths(args.models, args.feature_level, args.device, cpu_fallback=fallback, float16=float16,
                              float64=float64, progress=sys.stderr if show else None)
        for line in summary_rows(results):
            print(line)
        print(_totals(results, time.perf_counter() - start))
        if args.nodes:
            for r in results:
                if isinstance(r, ModelReport):
                    print()
                    print(r.text(all_nodes=True))
    if args.json_file:
        doc = {"models": [r.to_dict() for r in results]}
        _write(args.json_file, json.dumps(doc, indent=1) + "\n")
    if args.html_file:
        from .html import page

        _write(args.html_file, page(results, title=f"dmlops check: {', '.join(args.models)}"[:200]))
    return max((r.exit_code for r in results), default=0)


def _totals(results, seconds: float) -> str:
    from .report import BadModel, Verdict

    good = [r for r in results if not isinstance(r, BadModel)]
    clean = sum(1 for r in good if r.all_directml)
    blocked = sum(1 for r in good if r.count(Verdict.FAILS))
    fallback = len(good) - clean - blocked
    bad = len(results) - len(good)
    return (f"{len(results)} model(s) checked in {seconds:.1f} s: {clean} all on DirectML, {fallback} with CPU "
            f"fallback, {blocked} failing, {bad} unreadable.")


def _write(path: str, text: str) -> None:
    try:
        Path(path).write_text(text, encoding="utf-8")
    except OSError as e:
        raise DmlOpsError(f"{path}: cannot write it ({e.strerror or e}).") from None
