"""Checking several models: files and folders, a progress bar, one summary row per model."""
from __future__ import annotations

import os
import time
from pathlib import Path
from typing import TextIO

from ..errors import DmlOpsError
from .report import BadModel, ModelReport, Verdict


def model_files(paths) -> list[Path]:
    """The model files among ``paths``: a file as given, a folder's ``*.onnx`` files (recursively, sorted)."""
    out: list[Path] = []
    for p in map(Path, paths):
        if p.is_dir():
            out.extend(sorted(q for q in p.rglob("*.onnx") if q.is_file()))
        else:
            out.append(p)
    return out


class Progress:
    """A one-line progress bar on ``stream`` (redrawn in place on a terminal, else printed every 10%)."""

    def __init__(self, stream: TextIO, total: int, width: int = 30):
        self.stream, self.total, self.width = stream, total, width
        self.tty = hasattr(stream, "isatty") and stream.isatty()
        self.start = time.perf_counter()
        self.last_tenth = -1

    def update(self, done: int, label: str) -> None:
        """Show ``done`` of ``total`` models, the last one ``label``."""
        filled = self.width * done // max(self.total, 1)
        bar = f"[{'#' * filled}{'.' * (self.width - filled)}] {done}/{self.total} {time.perf_counter() - self.start:.1f}s"
        if self.tty:
            self.stream.write(f"\r{bar} {label[-40:]:<40}")
        else:
            tenth = 10 * done // max(self.total, 1)
            if tenth == self.last_tenth and done != self.total:
                return
            self.last_tenth = tenth
            self.stream.write(f"{bar}\n")
        if done == self.total and self.tty:
            self.stream.write("\n")
        self.stream.flush()


def check_paths(paths, feature_level=None, device=None, *, cpu_fallback: bool = True, float16=None, float64=None,
                progress: TextIO | None = None) -> list[ModelReport | BadModel]:
    """Check every model file among ``paths`` (files, folders); a file that cannot be read becomes a BadModel with
    its one-line error. ``progress``: a stream for the progress bar (None: no bar)."""
    from .core import check_model

    files = model_files(paths)
    bar = Progress(progress, len(files)) if progress is not None and files else None
    out: list[ModelReport | BadModel] = []
    for k, f in enumerate(files, 1):
        try:
            out.append(check_model(f, feature_level, device, cpu_fallback=cpu_fallback, float16=float16,
                                   float64=float64))
        except DmlOpsError as e:
            text = str(e)
            out.append(BadModel(str(f), text[len(str(f)) + 2:] if text.startswith(f"{f}: ") else text))
        if bar is not None:
            bar.update(k, os.fspath(f))
    return out


def common_folder(sources: list[str]) -> str:
    """The folder every path in ``sources`` lies in ("" when there is none, or one source only)."""
    if len(sources) < 2:
        return ""
    try:
        folder = os.path.commonpath([os.path.dirname(s) or "." for s in sources])
    except ValueError:  # absolute and relative paths mixed, or different drives
        return ""
    return "" if folder in ("", ".") else folder


def short_name(source: str, folder: str) -> str:
    """``source`` relative to ``folder`` (as given when there is no common folder)."""
    return os.path.relpath(source, folder) if folder else source


def summary_rows(results: list[ModelReport | BadModel]) -> list[str]:
    """One row per model: nodes, DirectML / fallback / failing / folded counts, DirectML share of FLOPs, the lowest
    feature level, the blocking ops. Paths are shown relative to the folder they share, named in the first line."""
    folder = common_folder([r.source for r in results])
    head = ("model", "nodes", "DirectML", "fallback", "fails", "folded", "FLOPs on DML", "lowest FL", "blocking ops")
    rows = [head]
    for r in results:
        if isinstance(r, BadModel):
            rows.append((short_name(r.source, folder), "-", "-", "-", "-", "-", "-", "-", f"error: {r.error}"))
            continue
        share = r.directml_flops_share
        lowest = r.lowest_level
        blocking = ", ".join(f"{op} x{k}" for op, k in sorted(r.blocking_ops.items(), key=lambda kv: -kv[1])[:4])
        rows.append((short_name(r.source, folder), str(len(r.nodes)), str(r.count(Verdict.DIRECTML)),
                     str(r.count(Verdict.CPU_FALLBACK)),
                     str(r.count(Verdict.FAILS)), str(r.count(Verdict.FOLDED)),
                     "-" if share is None else f"{share:.1%}", lowest.short if lowest is not None else "none",
                     blocking or "-"))
    widths = [max(len(row[k]) for row in rows) for k in range(len(head) - 1)]
    return ([f"in {folder}{os.sep}:"] if folder else []) + ["  ".join(c.ljust(w) if k == 0 else c.rjust(w) for k, (c, w) in enumerate(zip(row[:-1], widths)))
            + "  " + row[-1] for row in rows]
