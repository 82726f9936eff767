"""The README's Python examples work when pasted into the interactive interpreter, in order, as one session.

Pasting is stricter than running a file: a compound statement must end with a blank line before the next
statement, and indented blocks (inside list items) are pasted dedented. An example may raise only the
DmlOpsError it shows: the first words of every raised message must appear in the README.
"""
import code
import contextlib
import io
import re
import sys
import textwrap
from pathlib import Path

import dmlops

README = Path(__file__).resolve().parents[1] / "README.md"


def _blocks(text: str) -> list[str]:
    return [textwrap.dedent(b) for b in re.findall(r"^ *```python\n(.*?)^ *```", text, re.S | re.M)]


def _paste(blocks: list[str]) -> list[tuple[int, str, BaseException]]:
    """Push every line of every block into one InteractiveConsole; return (block, line, exception) per error."""
    console = code.InteractiveConsole({"__name__": "__console__"})
    errors: list[tuple[int, str, BaseException]] = []
    where = [0, ""]

    def record(*args, **kwargs):
        errors.append((where[0], where[1], sys.exc_info()[1]))

    console.showsyntaxerror = record  # type: ignore[method-assign]
    console.showtraceback = record  # type: ignore[method-assign]
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        for k, block in enumerate(blocks):
            for line in block.splitlines():
                where[:] = [k, line]
                console.push(line)
            console.push("")  # the end of a paste
    return errors


def test_the_readme_has_python_examples():
    assert len(_blocks(README.read_text(encoding="utf-8"))) >= 3


def test_pasting_a_loop_without_a_blank_line_is_caught():
    errors = _paste(["for i in range(2):\n    print(i)\nprint('after')\n"])
    assert len(errors) == 1 and isinstance(errors[0][2], SyntaxError)


def test_readme_examples_paste_into_the_interpreter():
    text = README.read_text(encoding="utf-8")
    flat = " ".join(text.split())
    problems = []
    for k, line, error in _paste(_blocks(text)):
        message = " ".join(str(error).split())
        shown = isinstance(error, dmlops.DmlOpsError) and message[:60] in flat
        if not shown:
            problems.append(f"block {k}, line {line.strip()!r}: {type(error).__name__}: {message[:200]}")
    assert not problems, "\n".join(problems)
