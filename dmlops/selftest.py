"""``dmlops selftest``: check every DirectML path on this machine against dmlops's reference and DirectML's answers.

A path is a backend on a device: ``onnxruntime:dml`` (ONNX Runtime's DirectML provider), ``torch:dml``
(torch-directml) and, when dmlops has it, ``directml:dml`` (the native backend). On each path present, every
runnable operator's samples (FLOAT16 variants included) are compared with the NumPy reference within the sample's
tolerance, and every case of DirectML's own answers (dmlops.vectors) that the path can run is compared with
DirectML's outputs within dmlops.vector_tolerances. ``--path onnxruntime:cpu`` checks another path instead (useful
without DirectML: it checks dmlops's lowerings against DirectML's answers).

Results per case: ``ok``; ``mismatch`` (outside the tolerance) and ``error`` (an exception while running) fail the
selftest; ``refused`` (the path refused the descriptor at compile time, or a value at run time with
``dmlops.UnsupportedValue``, saying why, e.g. torch-directml and a UINT32 element needing the top bit) is reported but is not a failure. One line per operator and path, under a header: the samples' ok/run
(against the reference), the vectors' ok/run (against DirectML's answers), the result, and on the native path the
device memory its compiled cases held (``CompiledOperator.device_bytes``); the native path's totals say what the
compiled operators held in all and what the device holds at the end (``runtime.Queue.memory``).

Exit codes: 0 all ok; 1 a mismatch or error; 2 nothing to check: no DirectML path here, a ``--path`` naming a device
that does not exist here, or a path on which every case was refused. Bad arguments (a ``--path`` or ``--json`` file
that cannot be used) are refused before anything runs.
"""
from __future__ import annotations

import json
import os
import platform
import sys
import time
import weakref
from dataclasses import asdict, dataclass
from importlib import metadata

import numpy as np

from .errors import DmlOpsError, UnsupportedValue
from .vectors import LEVEL


@dataclass(frozen=True)
class Result:
    """One case on one path."""

    path: str      # "backend:device"
    op: str
    case: str
    source: str    # "sample" or "vector"
    result: str    # "ok", "mismatch", "error" or "refused"
    detail: str = ""
    device_bytes: int | None = None  # native path: device memory of the compiled operator (None: cached, or none)


# Compiled operators already counted in a Result's device_bytes (a case whose descriptor another case compiled gets
# the cached operator, whose memory is counted once).
_COUNTED: weakref.WeakSet = weakref.WeakSet()


def directml_paths() -> list[str]:
    """The DirectML paths present here (empty where there is no DirectML): ``onnxruntime:dml`` and ``torch:dml``
    where their DirectML builds are installed, and ``directml:dml:N`` for every native DirectML device."""
    from .demo import devices

    lowered = [f"{b}:dml" for b in ("onnxruntime", "torch") if "dml" in _devices(devices, b)]
    return lowered + [f"directml:{d}" for d in devices("directml")]


def _devices(devices, backend: str) -> list[str]:
    try:
        return devices(backend)
    except ImportError:  # the backend's library is not installed
        return []


def parse_path(text: str) -> tuple[str, str | None]:
    """``"onnxruntime:cpu"`` or ``"torch:dml:1"`` → (backend, device); a bare backend means its default device."""
    from .backends import BACKENDS

    backend, _, device = text.partition(":")
    if backend not in BACKENDS:
        raise DmlOpsError(f"selftest: unknown backend {backend!r} in path {text!r}; choose one of {', '.join(BACKENDS)}.")
    return backend, device or None


def _close(got, want, atol: float, rtol: float) -> bool:
    return all(np.allclose(np.asarray(got[k], np.float64), np.asarray(w, np.float64), atol=atol, rtol=rtol,
                           equal_nan=True) for k, w in want.items())


def _run(path: str, op: str, name: str, source: str, desc, inputs, compare) -> Result:
    """Compile and run one case; ``compare(outputs, desc) -> str`` returns "" when they agree, else the detail."""
    import dmlops

    backend, device = parse_path(path)
    # the vectors were made at DML_FEATURE_LEVEL_6_2; a native device validates at its own highest level
    level = None if source == "sample" or backend == "directml" else LEVEL
    try:
        compiled = dmlops.compile(desc, backend, device=device, feature_level=level)
    except DmlOpsError as e:
        return Result(path, op, name, source, "refused", str(e))
    held = compiled.device_bytes
    if held is not None and compiled in _COUNTED:
        held = None
    elif held is not None:
        _COUNTED.add(compiled)
    try:
        detail = compare(compiled(inputs), desc)
    except UnsupportedValue as e:  # a value the path cannot compute exactly, refused by name: not a failure
        return Result(path, op, name, source, "refused", str(e), held)
    except Exception as e:  # noqa: BLE001 - a report: every failure is a row, not a crash
        return Result(path, op, name, source, "error", f"{type(e).__name__}: {e}", held)
    return Result(path, op, name, source, "mismatch" if detail else "ok", detail, held)


def sample_results(path: str, ops) -> list[Result]:
    """Every sample (and FLOAT16 variant) of ``ops`` on ``path`` against the reference backend."""
    import dmlops

    from .ops import module
    from .sample import float16_variant
    from .types import FeatureLevel

    out = []
    for op in ops:
        if not hasattr(module(op), "reference"):  # no reference to compare with (the native path runs the op anyway)
            continue
        samples = list(getattr(module(op), "SAMPLES", ()))
        samples += [v for v in (float16_variant(s, FeatureLevel.latest()) for s in samples) if v]
        for s in samples:
            want = dmlops.run(s.desc, s.inputs, backend="reference")

            def compare(got, desc, s=s, want=want):
                return "" if _close(got, want, s.atol, s.rtol) else (
                    f"outside atol {s.atol} / rtol {s.rtol} of the reference ({s.why})")

            out.append(_run(path, op, s.name, "sample", s.desc, s.inputs, compare))
    return out


def vector_results(path: str, ops) -> list[Result]:
    """Every case of DirectML's answers for ``ops`` that DirectML ran, on ``path``, against DirectML's outputs; on the
    native path also every case DirectML refused, which must be refused again (by dmlops's validation or by
    DirectML), and is a mismatch if it runs."""
    from .vector_tolerances import tolerance
    from .vectors import cases, mismatches

    native = parse_path(path)[0] == "directml"
    out = []
    for case in cases():
        if case.op not in ops or (case.rejected and not native):
            continue
        if case.rejected:
            out.append(_refusal(path, case))
            continue
        try:
            desc = case.desc()
        except DmlOpsError as e:  # a malformed case (see the vectors' test): not this path's failure
            out.append(Result(path, case.op, case.name, "vector", "refused", f"does not load: {e}"))
            continue
        tol = tolerance(case.op, case.name)

        def compare(got, desc, case=case, tol=tol):
            found = []
            for k, w in case.outputs(desc).items():  # integer outputs are compared exactly by mismatches
                m = mismatches(np.asarray(got[k]), w, tol.ulps, tol.rtol, tol.atol, skip=case.unwritten(k, w.shape))
                found += [f"{k} {x}" for x in m[:2]]
            return "; ".join(found)

        out.append(_run(path, case.op, case.name, "vector", desc, case.inputs(), compare))
    return out


def _refusal(path: str, case) -> Result:
    """A case DirectML refused (``case.rejected``), on the native path: ok when refused again, else a mismatch."""
    import dmlops

    backend, device = parse_path(path)
    try:
        dmlops.compile(case.desc(), backend, device=device)
    except DmlOpsError as e:
        return Result(path, case.op, case.name, "vector", "ok", f"refused as by DirectML ({case.rejected}): {e}")
    except Exception as e:  # noqa: BLE001 - a report: every failure is a row, not a crash
        return Result(path, case.op, case.name, "vector", "error", f"{type(e).__name__}: {e}")
    return Result(path, case.op, case.name, "vector", "mismatch",
                  f"ran, but DirectML refused this descriptor ({case.rejected})")


def environment() -> dict:
    """What a bug report needs: versions of Python, the OS and the packages on the DirectML paths."""
    packages: dict[str, str | None] = {}
    for name in ("dmlops", "numpy", "onnxruntime", "onnxruntime-directml", "torch", "torch-directml"):
        try:
            packages[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            packages[name] = None
    from .backends.directml import adapters, libraries

    native = {"libraries": libraries.loaded_paths(), "adapters": [a.to_dict() for a in adapters.devices()],
              "unavailable": adapters.unavailable_reason()}
    return {"python": sys.version.split()[0], "platform": platform.platform(), "machine": platform.machine(),
            "packages": packages, "directml": native}


RESULTS = ("ok", "mismatch", "error", "refused")
HEADER = f"{'operator':<42} {'path':<18} {'samples':>8} {'vectors':>8} {'result':>6} {'memory':>10} {'time':>7}"


def _bytes(n: int | None) -> str:
    from .backends.directml.runtime import format_bytes

    return "-" if n is None else format_bytes(n)


def _row(op: str, path: str, rows: list[Result], seconds: float) -> str:
    """One operator's line: samples ok/run, vectors ok/run, result, memory, time, then what was not ok."""
    def ok_of(source):
        mine = [r for r in rows if r.source == source]
        return f"{sum(r.result == 'ok' for r in mine)}/{len(mine)}" if mine else "-"

    counts = {r: sum(x.result == r for x in rows) for r in RESULTS}
    status = "FAIL" if counts["mismatch"] or counts["error"] else "ok"
    extra = ", ".join(f"{n} {r}" for r, n in counts.items() if n and r != "ok")
    held = [r.device_bytes for r in rows if r.device_bytes is not None]
    memory = _bytes(sum(held)) if held else "-"
    return (f"{op:<42} {path:<18} {ok_of('sample'):>8} {ok_of('vector'):>8} {status:>6} {memory:>10} "
            f"{seconds:5.1f} s" + (f"  ({extra})" if extra else ""))


def selftest(paths: list[str], ops=None, out=print) -> list[Result]:
    """Run the selftest on ``paths`` (``"backend:device"``) for ``ops`` (operator types; None: every runnable one);
    print a header, then one line per operator and path; return every result."""
    from . import schema
    from .lower import runnable

    results = []
    out(HEADER)
    for path in paths:
        native = parse_path(path)[0] == "directml"
        chosen = list(ops) if ops else (sorted(schema.all_schemas()) if native else runnable())
        for op in chosen:
            start = time.perf_counter()
            rows = sample_results(path, [op]) + vector_results(path, {op})
            results += rows
            out(_row(op, path, rows, time.perf_counter() - start))
            for r in rows:
                if r.result in ("mismatch", "error"):
                    out(f"    {r.result} {r.source} {r.case}: {r.detail[:300]}")
    return results


def device_memory(path: str) -> dict | None:
    """On a native path (``directml:dml:N``), what its device holds now (``runtime.Queue.memory``); else None."""
    backend, device = parse_path(path)
    if backend != "directml":
        return None
    from .backends import directml
    from .backends.directml import runtime

    index, _ = directml.choose_device(device)
    return runtime.queue(index).memory()


def memory_summary(path: str, results: list[Result]) -> dict | None:
    """A native path's memory: bytes held per operator (its compiled cases together), in all, the largest compiled
    operator, and what the device holds now; None on the other paths."""
    device = device_memory(path)
    if device is None:
        return None
    per_op: dict[str, int] = {}
    largest = (0, "")
    compiled = 0
    for r in results:
        if r.path == path and r.device_bytes is not None:
            per_op[r.op] = per_op.get(r.op, 0) + r.device_bytes
            compiled += 1
            largest = max(largest, (r.device_bytes, f"{r.op} {r.case}"))
    return {"operators": per_op, "compiled": compiled, "total_bytes": sum(per_op.values()),
            "largest_bytes": largest[0], "largest": largest[1], "device": device}


def memory_line(path: str, m: dict) -> str:
    """The memory summary of a native path in words."""
    d = m["device"]
    heaps = d["descriptor_heaps"]
    return (f"{path} device memory: {m['compiled']} compiled operators held {_bytes(m['total_bytes'])} in all "
            f"(the largest {_bytes(m['largest_bytes'])}: {m['largest'] or '-'}); at the end the device holds "
            f"{heaps} shader-visible descriptor heap{'s' * (heaps != 1)} "
            f"({d['heap_descriptors']:,} descriptors; {d['descriptor_heaps_created']} made in all), "
            f"{_bytes(d['staging_bytes'])} of staging buffers and {d['programs']} compiled operators "
            f"({_bytes(d['program_bytes'])})")


def report(paths: list[str], results: list[Result], memory: dict | None = None) -> dict:
    """The JSON report: environment, paths, totals, every case, and the native paths' memory (``memory_summary``)."""
    totals = {r: sum(x.result == r for x in results) for r in RESULTS}
    return {"tool": "dmlops selftest", "environment": environment(), "paths": paths, "totals": totals,
            "memory": memory or {}, "cases": [asdict(r) for r in results]}


def check_path(text: str) -> str:
    """``text`` as ``backend[:device]``, once the device exists here; DmlOpsError in one line otherwise."""
    backend, device = parse_path(text)
    try:
        if backend == "directml":
            from .backends import directml

            directml.choose_device(device)
        elif backend == "onnxruntime":
            from .backends import onnxruntime as ort_backend

            ort_backend.choose_device(device)
        elif backend == "torch":
            from .backends import torch as torch_backend

            torch_backend.choose_device(device)
        else:
            from .backends import reference

            reference.choose_device(device)
    except ImportError as e:
        raise DmlOpsError(f"selftest: path {text!r}: the {backend} backend cannot be used here ({e}).") from None
    except DmlOpsError as e:
        lines = str(e).strip().splitlines()
        more = " ('dmlops devices' says where dmlops looked for DirectML)" if len(lines) > 1 else ""
        raise DmlOpsError(f"selftest: path {text!r} does not exist here: {lines[0]}{more}") from None
    return f"{backend}:{device}" if device else backend


def check_report_file(name: str) -> None:
    """Refuse a ``--json`` file that cannot be written, before the run (nothing is left behind by the check)."""
    existed = os.path.exists(name)
    try:
        if os.path.isdir(name):
            raise IsADirectoryError(21, "is a folder")
        with open(name, "a", encoding="utf-8"):
            pass
    except OSError as e:
        raise DmlOpsError(f"selftest --json {name}: cannot write the report there ({e.strerror or e}); name a file "
                          "in a folder that exists and is writable.") from None
    if not existed:
        os.remove(name)


def main(paths: list[str] | None, ops, json_file: str | None, out=print) -> int:
    """``dmlops selftest``: returns the exit code (0 all ok, 1 a mismatch or error, 2 nothing checked); bad
    arguments raise DmlOpsError before anything runs."""
    from . import schema

    ops = [schema.get(op).operator_type for op in ops] if ops else None
    paths = [check_path(p) for p in paths] if paths else directml_paths()
    if json_file:
        check_report_file(json_file)
    if not paths:
        out("dmlops selftest: no DirectML path here (no onnxruntime-directml DML provider, no torch-directml, no "
            "native DirectML device: 'dmlops devices' says why); --path onnxruntime:cpu checks dmlops's lowerings "
            "against DirectML's answers without DirectML.")
        return 2
    out(f"checking {', '.join(paths)} against the reference (samples) and DirectML's answers (vectors)")
    _COUNTED.clear()
    results = selftest(paths, ops, out)
    memory = {p: m for p in paths if (m := memory_summary(p, results)) is not None}
    doc = report(paths, results, memory)
    if json_file:
        try:
            with open(json_file, "w", encoding="utf-8") as f:
                json.dump(doc, f, indent=1)
        except OSError as e:
            raise DmlOpsError(f"selftest --json {json_file}: cannot write the report ({e.strerror or e}).") from None
        out(f"report written to {json_file}")
    t = doc["totals"]
    out(f"{t['ok']} ok, {t['mismatch']} mismatch, {t['error']} error, {t['refused']} refused")
    for p, m in memory.items():
        out(memory_line(p, m))
    unchecked = [p for p in paths if not any(r.path == p and r.result != "refused" for r in results)]
    for p in unchecked:
        refused = [r for r in results if r.path == p]
        why = (f"all {len(refused)} of its cases were refused (first: {refused[0].op} {refused[0].case}: "
               f"{refused[0].detail.strip().splitlines()[0] if refused[0].detail.strip() else '-'})"
               if refused else "it has no case to run")
        out(f"dmlops selftest: {p} checked nothing: {why}")
    if t["mismatch"] or t["error"]:
        return 1
    return 2 if unchecked else 0


__all__ = ["Result", "directml_paths", "parse_path", "check_path", "check_report_file", "selftest", "report",
           "memory_summary", "device_memory", "environment", "main"]
