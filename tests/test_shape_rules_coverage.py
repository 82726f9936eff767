"""Every operator's shape relations are checked: an operator without a hand-written ``check()`` (docs/operators.md:
"generic") must have a DirectML page whose only rules are "A, B and C must have the same DataType / DimensionCount /
Sizes" (its Tensor constraints), and the descriptor's generic same-rules must cover each of them. A page that states
anything else with "must" needs a ``check()``. Reads the pages in ../shared/reference/docs."""
import re
from pathlib import Path

import pytest

from dmlops import schema
from dmlops.ops import module

DOCS = Path(__file__).resolve().parents[2] / "shared" / "reference" / "docs"
GENERIC = sorted(op for op in schema.all_schemas() if module(op) is None or not hasattr(module(op), "check"))
SAME = re.compile(r"^\*?\s*(?P<names>(?:\*\w+\*,? )+(?:and \*\w+\*)?|\*\w+\* and \*\w+\*) must have the same "
                  r"(?P<props>[*\w, ]+)\.$")


def page(op: str) -> str:
    name = f"ns-directml-dml_{op.lower()}_operator_desc.md"
    found = sorted(DOCS.rglob(name))
    assert found, f"no page {name}"
    return found[0].read_text(encoding="utf-8")


def constraints(text: str) -> list[str]:
    section = text.split("## Tensor constraints", 1)[1].split("\n## ", 1)[0] if "## Tensor constraints" in text else ""
    return [line.strip().removeprefix("* ").strip() for line in section.splitlines() if line.strip()]


def words(s: str) -> list[str]:
    return re.findall(r"\w+", s.replace(" and ", ", "))


@pytest.mark.skipif(not DOCS.is_dir(), reason="../shared/reference/docs is not present")
@pytest.mark.parametrize("op", GENERIC)
def test_generic_operators_pages_state_only_same_rules_and_the_descriptor_has_them(op):
    text = page(op)
    rules = schema.all_schemas()[op].same
    for line in constraints(text):
        m = SAME.match(line)
        assert m, f"{op}: a Tensor constraint that is not a same-rule needs a check(): {line!r}"
        names, props = words(m["names"]), words(m["props"])
        for prop in props:
            assert any(set(names) <= set(r.tensors) and prop in r.properties for r in rules), \
                f"{op}: the descriptor has no same-rule for {prop} over {names}"
    # Any other "must" on the page (field texts, remarks) is a rule the generic validator does not know.
    others = [s for s in re.split(r"(?<=\.)\s+|\n", text.split("## Tensor constraints", 1)[0])
              if re.search(r"(?<![a-z])must(?![a-z])", s) and not re.search(r"must (exactly )?match those of|must be (NULL|null)", s)]
    assert others == [], f"{op}: rules outside the Tensor constraints need a check(): {others}"
