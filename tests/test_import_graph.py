"""dmlops's import graph has no cycles (issue 13.8).

The graph is read from the source with ``ast``: every ``import`` / ``from ... import`` of a dmlops module anywhere in
a module counts, function-level and ``TYPE_CHECKING`` ones included, since a deferred import that only hides a
cycle from Python's loader is still a cycle between the modules. ``from pkg import name`` is an edge to the
submodule ``pkg.name`` when there is one, else to ``pkg``. Importing a submodule also runs its packages'
``__init__``; those implicit edges are left out (every package's ``__init__`` would otherwise sit on a cycle
with each module below it that it re-exports).
"""
from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def modules(root: Path = ROOT) -> dict[str, tuple[Path, bool]]:
    """Every module of the dmlops package by dotted name: (path, whether it is a package's __init__)."""
    out = {}
    for path in sorted((root / "dmlops").rglob("*.py")):
        parts = list(path.relative_to(root).with_suffix("").parts)
        package = parts[-1] == "__init__"
        out[".".join(parts[:-1] if package else parts)] = (path, package)
    return out


def _owner(name: str, known) -> str | None:
    """The nearest module in ``known`` that ``name`` (a module or a module's attribute) belongs to."""
    while name not in known and "." in name:
        name = name.rpartition(".")[0]
    return name if name in known else None


def imports(name: str, path: Path, package: bool, known) -> dict[str, int]:
    """The dmlops modules that module ``name`` imports, each with the line of its first import."""
    here = name if package else name.rpartition(".")[0]
    found: dict[str, int] = {}

    def add(target, line):
        if target is not None and target != name:
            found.setdefault(target, line)

    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if isinstance(node, ast.Import):
            for alias in node.names:
                add(_owner(alias.name, known), node.lineno)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = here.split(".")[: len(here.split(".")) - (node.level - 1)]
                module = ".".join(base + ([node.module] if node.module else []))
            else:
                module = node.module or ""
            if module != "dmlops" and not module.startswith("dmlops."):
                continue
            for alias in node.names:
                sub = f"{module}.{alias.name}"
                add(sub if sub in known else _owner(module, known), node.lineno)
    return found


def graph(root: Path = ROOT) -> dict[str, dict[str, int]]:
    """module -> {imported module: line} over the whole dmlops package."""
    known = modules(root)
    return {name: imports(name, path, package, known) for name, (path, package) in known.items()}


def cycles(g: dict[str, dict[str, int]]) -> list[list[str]]:
    """One cycle (a module list whose last entry imports the first) per strongly connected component of ``g``
    with more than one module, found by Tarjan's algorithm (iteratively: no recursion limit)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    components = []
    for start in g:
        if start in index:
            continue
        work = [(start, iter(sorted(g[start])))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            v, children = work[-1]
            for w in children:
                if w not in index:
                    index[w] = low[w] = len(index)
                    stack.append(w)
                    on_stack.add(w)
                    work.append((w, iter(sorted(g[w]))))
                    break
                if w in on_stack:
                    low[v] = min(low[v], index[w])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[v])
                if low[v] == index[v]:
                    component = []
                    while True:
                        w = stack.pop()
                        on_stack.discard(w)
                        component.append(w)
                        if w == v:
                            break
                    if len(component) > 1:
                        components.append(set(component))
    return [_cycle_in(g, c) for c in components]


def _cycle_in(g, component: set[str]) -> list[str]:
    """A shortest cycle through the alphabetically first module of a strongly connected ``component``."""
    first = min(component)
    paths = {first: [first]}
    queue = [first]
    for v in queue:
        for w in sorted(g[v]):
            if w == first:
                return paths[v]
            if w in component and w not in paths:
                paths[w] = paths[v] + [w]
                queue.append(w)
    raise AssertionError("a strongly connected component always holds a cycle")


def describe(g, cycle: list[str]) -> str:
    """``a (line 3) -> b (line 9) -> a``: each module with the line where it imports the next."""
    steps = [f"{a} (line {g[a][b]})" for a, b in zip(cycle, cycle[1:] + cycle[:1])]
    return " -> ".join(steps + [cycle[0]])


def test_dmlops_has_no_import_cycles():
    g = graph()
    found = [describe(g, c) for c in cycles(g)]
    assert not found, "import cycles in dmlops:\n  " + "\n  ".join(found)


def test_the_graph_sees_what_it_must():
    g = graph()
    assert "dmlops.ops._recurrent_exec" in g["dmlops.ops.gru"]  # from . import _recurrent_exec as rx
    assert "dmlops.validation" in g["dmlops.base"]  # from . import validation as _validation
    assert "dmlops.descs" in g["dmlops.jsonio"]  # a function-level import counts
    assert "dmlops.base" in g["dmlops.descs"]  # the generated module is read like any other
    assert "dmlops.ops" in g["dmlops.validation"]  # from .ops import module: a name of the package's __init__


@pytest.mark.parametrize("files, expected", [
    ({"a.py": "from . import b\n", "b.py": "def f():\n    from .a import x\n"},
     "dmlops.a (line 1) -> dmlops.b (line 2) -> dmlops.a"),
    ({"a.py": "import dmlops.sub.c\n", "sub/__init__.py": "", "sub/c.py": "from ..a import y\n"},
     "dmlops.a (line 1) -> dmlops.sub.c (line 1) -> dmlops.a"),
    ({"a.py": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from .b import T\n", "b.py": "from .a import f\n"},
     "dmlops.a (line 3) -> dmlops.b (line 1) -> dmlops.a"),
])
def test_a_cycle_is_found_and_printed(tmp_path, files, expected):
    # The checker itself can fail: function-level, absolute and TYPE_CHECKING imports make a cycle.
    for name, text in {"__init__.py": "", **files}.items():
        (tmp_path / "dmlops" / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / "dmlops" / name).write_text(text)
    g = graph(tmp_path)
    assert [describe(g, c) for c in cycles(g)] == [expected]


def test_no_cycle_in_a_layered_package(tmp_path):
    for name, text in {"__init__.py": "from .b import x\n", "a.py": "from . import b\n", "b.py": "import numpy\n"}.items():
        (tmp_path / "dmlops" / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / "dmlops" / name).write_text(text)
    assert cycles(graph(tmp_path)) == []
