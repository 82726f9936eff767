"""``dmlops selftest``: check every DirectML path on this machine against dmlops's reference and DirectML's answers.

A path is a backend on a device: ``onnxruntime:dml`` (ONNX Runtime's DirectML provider), ``torch:dml``
(torch-directml) and, when dmlops has it, ``directml:dml`` (the native backend). On each path present, every
runnable operator's samples (FLOAT16 variants included) are compared with the NumPy reference within the sample's
tolerance, and every case of DirectML's own answers (dmlops.vectors) that the path can run is compared with
DirectML's outputs within dmlops.vector_tolerances. ``--path onnxruntime:cpu`` checks another path instead (useful
without DirectML: it checks dmlops's lowerings against DirectML's answers).

Results per case: ``ok``; ``mismatch`` (outside the tolerance) and ``error`` (an exception while running) fail the
selftest; ``refused`` (the path refused the descriptor at compile time, saying why, e.g. torch-directml and UINT32
tensors) is reported but is not a failure. Exit codes: 0 all ok, 1 a mismatch or error, 2 no path to check.
"""
from __future__ import annotations

import json
import platform
import sys
import time
from dataclasses import asdict, dataclass
from importlib import metadata

import numpy as np

from .errors import DmlOpsError
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
    try:
        detail = compare(compiled(inputs), desc)
    except Exception as e:  # noqa: BLE001 - a report: every failure is a row, not a crash
        return Result(path, op, name, source, "error", f"{type(e).__name__}: {e}")
    return Result(path, op, name, source, "mismatch" if detail else "ok", detail)


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


def selftest(paths: list[str], ops=None, out=print) -> list[Result]:
    """Run the selftest on ``paths`` (``"backend:device"``) for ``ops`` (operator types; None: every runnable one);
    print one line per operator and path; return every result."""
    from . import schema
    from .lower import runnable

    results = []
    for path in paths:
        native = parse_path(path)[0] == "directml"
        chosen = list(ops) if ops else (sorted(schema.all_schemas()) if native else runnable())
        for op in chosen:
            start = time.perf_counter()
            rows = sample_results(path, [op]) + vector_results(path, {op})
            results += rows
            counts = {r: sum(x.result == r for x in rows) for r in ("ok", "mismatch", "error", "refused")}
            status = "FAIL" if counts["mismatch"] or counts["error"] else "ok"
            extra = ", ".join(f"{n} {r}" for r, n in counts.items() if n and r != "ok")
            out(f"{op:<42} {path:<18} {counts['ok']:>3}/{len(rows):<3} ok {status:>4}"
                f"{'  (' + extra + ')' if extra else ''}  {time.perf_counter() - start:5.1f} s")
            for r in rows:
                if r.result in ("mismatch", "error"):
                    out(f"    {r.result} {r.source} {r.case}: {r.detail[:300]}")
    return results


def report(paths: list[str], results: list[Result]) -> dict:
    """The JSON report: environment, paths, totals and every case."""
    totals = {r: sum(x.result == r for x in results) for r in ("ok", "mismatch", "error", "refused")}
    return {"tool": "dmlops selftest", "environment": environment(), "paths": paths, "totals": totals,
            "cases": [asdict(r) for r in results]}


def main(paths: list[str] | None, ops, json_file: str | None, out=print) -> int:
    """``dmlops selftest``: returns the exit code (0 all ok, 1 a mismatch or error, 2 no path to check)."""
    from . import schema

    ops = [schema.get(op).operator_type for op in ops] if ops else None
    paths = [f"{b}:{d}" if d else b for b, d in map(parse_path, paths)] if paths else directml_paths()
    if not paths:
        out("dmlops selftest: no DirectML path here (no onnxruntime-directml DML provider, no torch-directml, no "
            "native DirectML device: 'dmlops devices' says why); --path onnxruntime:cpu checks dmlops's lowerings "
            "against DirectML's answers without DirectML.")
        return 2
    out(f"checking {', '.join(paths)} against the reference (samples) and DirectML's answers (vectors)")
    results = selftest(paths, ops, out)
    doc = report(paths, results)
    if json_file:
        with open(json_file, "w", encoding="utf-8") as f:
            json.dump(doc, f, indent=1)
        out(f"report written to {json_file}")
    t = doc["totals"]
    out(f"{t['ok']} ok, {t['mismatch']} mismatch, {t['error']} error, {t['refused']} refused")
    return 1 if t["mismatch"] or t["error"] else 0


__all__ = ["Result", "directml_paths", "parse_path", "selftest", "report", "environment", "main"]
