"""Build descriptors/ from the DirectML reference data in ../shared/reference.

    python -m tools.build_descriptors [--reference DIR] [--out DIR]

This is the one-time import that created the descriptor files. After it, the files in
descriptors/ are the project's source of truth and are edited by hand; every place where a
file deliberately differs from what `derive()` produces is listed in that file's "deviations", with
the reason. tests/test_descriptors.py re-derives from the reference (when the folder exists) and
checks that every difference is such a recorded deviation.

Standard library only.
"""
from __future__ import annotations

import argparse
import copy
import json
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_REFERENCE = ROOT.parent / "shared" / "reference"
DEFAULT_OUT = ROOT / "descriptors"
DOCS_BASE = "https://learn.microsoft.com/windows/win32/api/directml/"

# FOLD and UNFOLD (FL 6.4) share their docs' gaps, so they share the decisions.
_FL_6_4_FOLD_DECISIONS = [
    (
        "/supports_in_place",
        False,
        "No generated schema covers this FL 6.4 operator, so in-place support is unknown; "
        "dmlops does not claim it.",
    ),
] + [
    (
        f"/support/0/tensors/{name}/data_types",
        None,
        f"The docs' support table has an empty 'Supported data types' cell for {name}; null means "
        "'not documented', so data types are not checked rather than all rejected.",
    )
    for name in ("InputTensor", "OutputTensor")
]

# Where the reference leaves a choice open, the decision taken and why. Each entry is applied on top
# of the derived data and recorded in the file as a deviation (path, reference value, why).
DECISIONS: dict[str, list[tuple[str, object, str]]] = {
    "ACTIVATION_SOFTPLUS": [
        (
            "/fields/2/default",
            1.0,
            "The docs page places 'A typical default for this value is 1.0' for the Steepness "
            "coefficient under the OutputTensor member; it belongs to Steepness.",
        ),
    ],
    "RESAMPLE3": [
        (
            "/supports_in_place",
            False,
            "No generated schema covers this FL 6.4 operator, so in-place support is unknown; "
            "dmlops does not claim it.",
        ),
    ],
    "SCATTER_ELEMENTS": [
        (
            "/support/0/from",
            "DML_FEATURE_LEVEL_2_0",
            "The docs' first support table is headed DML_FEATURE_LEVEL_1_0, but the operator itself "
            "exists only from DML_FEATURE_LEVEL_2_0 (DirectML.h guard); a tier cannot start before "
            "the operator does.",
        ),
    ],
    "FOLD": _FL_6_4_FOLD_DECISIONS,
    "UNFOLD": _FL_6_4_FOLD_DECISIONS,
}

_SAME_RE = re.compile(r"^(?:\* )?(.+?) must have the same (.+?)\.$")
_NAME_RE = re.compile(r"[*`]([A-Za-z0-9]+)[*`]")
_DEFAULT_RES = (
    re.compile(r"typical default for this value is (-?[0-9.]+)"),
    re.compile(r"The default value is \*\*(TRUE|FALSE)\*\*"),
)


def level_key(name: str) -> tuple[int, int]:
    """Order key of a "DML_FEATURE_LEVEL_X_Y" name."""
    major, minor = name.split("_")[-2:]
    return int(major), int(minor)


def docs_url(docs_page: str) -> str:
    """Published URL of a saved docs page."""
    stem = Path(docs_page).stem
    if "windows-ai-docs" in docs_page:
        return "https://learn.microsoft.com/windows/ai/directml/api/" + stem
    return DOCS_BASE + stem


def parse_same_constraints(text: str) -> tuple[list[dict], list[str]]:
    """Split a docs 'Tensor constraints' text into structured same-constraints and leftover text."""
    same, other = [], []
    for line in (x.strip() for x in (text or "").splitlines()):
        if not line:
            continue
        m = _SAME_RE.match(line)
        if m and "except" not in line:
            tensors = _NAME_RE.findall(m.group(1))
            props = _NAME_RE.findall(m.group(2))
            if len(tensors) >= 2 and props and set(props) <= {"DataType", "DimensionCount", "Sizes"}:
                same.append({"tensors": tensors, "properties": props})
                continue
        other.append(line.lstrip("* ").strip())
    return same, other


def field_defaults(page_text: str) -> dict[str, object]:
    """Typical defaults stated in the docs' per-member sections ('### `Alpha`' ... 'typical default ... is 1.0')."""
    defaults = {}
    # sdk-api pages head each member "### `Name`", windows-ai-docs pages a bare "`Name`" line.
    for section in re.split(r"^(?:### )?(?=`[A-Za-z0-9]+`\s*$)", page_text, flags=re.M)[1:]:
        head, _, body = section.partition("\n")
        name = head.strip().strip("`")
        body = re.split(r"^#", body, flags=re.M)[0]
        for rx in _DEFAULT_RES:
            m = rx.search(body)
            if m:
                raw = m.group(1)
                defaults[name] = {"TRUE": True, "FALSE": False}.get(raw, None)
                if defaults[name] is None:
                    defaults[name] = float(raw.rstrip("."))
                break
    return defaults


def derive_field(f: dict, defaults: dict) -> dict:
    out = {"name": f["name"], "kind": f["kind"], "type": f["type"], "c_type": f["c_type"], "optional": f["optional"]}
    if "enum_type" in f:
        out["enum"] = f["enum_type"]
    if "array_count_field" in f:
        out["count_field"] = f["array_count_field"]
    if "scalar_union_data_type_field" in f:
        out["data_type_field"] = f["scalar_union_data_type_field"]
    if f["name"] in defaults and f["type"] in ("FLOAT", "UINT", "INT", "BOOL"):
        out["default"] = defaults[f["name"]]
    return out


def derive_support(sup: dict, introduced: str) -> list[dict]:
    tiers = []
    for table in sup["support_tables"]:
        tier = {"from": table["feature_level"] or introduced}
        if "applies_to_reduce_functions" in table:
            tier["functions"] = table["applies_to_reduce_functions"]
        tensors = {}
        for row in table["rows"]:
            entry = {"dimension_counts": row["dimension_counts"], "data_types": row["data_types"]}
            if "dimensions" in row:
                entry["dimensions"] = row["dimensions"]
            tensors[row["tensor"]] = entry
        tier["tensors"] = tensors
        tiers.append(tier)
    tiers.sort(key=lambda t: (level_key(t["from"]), t.get("functions", [])))
    return tiers


def derive(reference: Path) -> dict[str, dict]:
    """Descriptor content for every operator as the reference data says it, before any decision."""
    ops = json.loads((reference / "dml_operators.json").read_text())["operators"]
    support = {o["operator_type"]: o for o in json.loads((reference / "dml_tensor_support.json").read_text())["operators"]}
    result = {}
    for op in ops:
        name = op["operator_type"]
        sup = support[name]
        page = (reference / op["docs_page"]).read_text(encoding="utf-8")
        defaults = field_defaults(page)
        same, other = parse_same_constraints(sup["tensor_constraints"])
        notes = list(op["notes"])
        if op.get("enum_aliases"):
            notes.append("Aliases folded into this operator type: " + ", ".join(op["enum_aliases"]) + ".")
        desc = {
            "$schema": "_schema.json",
            "operator_type": name,
            "enum_value": op["enum_value"],
            "struct_name": op["struct_name"],
            "introduced": op["feature_level_introduced"],
            "docs_url": docs_url(op["docs_page"]),
            "supports_in_place": op["supports_in_place_execution"],
            "accepts_fused_activation": op["fusion"]["accepts_fused_activation"],
            "fusable_activation": op["fusion"]["listed_as_fusable_activation"],
            "fields": [derive_field(f, defaults) for f in op["fields"]],
            "support": derive_support(sup, op["feature_level_introduced"]),
            "same": same,
            "constraints_text": other,
            "notes": notes,
            "deviations": [],
        }
        result[name] = desc
    return result


def pointer_get(doc, path: str):
    """Resolve a JSON pointer (RFC 6901, no escapes needed here)."""
    for part in path.strip("/").split("/"):
        if isinstance(doc, list):
            doc = doc[int(part)]
        elif part in doc:
            doc = doc[part]
        else:
            return None
    return doc


def pointer_set(doc, path: str, value) -> None:
    parts = path.strip("/").split("/")
    for part in parts[:-1]:
        doc = doc[int(part)] if isinstance(doc, list) else doc[part]
    last = parts[-1]
    if isinstance(doc, list):
        doc[int(last)] = value
    else:
        doc[last] = value


def apply_decisions(descs: dict[str, dict]) -> dict[str, dict]:
    out = copy.deepcopy(descs)
    for name, decisions in DECISIONS.items():
        d = out[name]
        for path, value, why in decisions:
            d["deviations"].append({"path": path, "reference": pointer_get(d, path), "why": why})
            pointer_set(d, path, value)
    return out


def file_name(operator_type: str) -> str:
    return operator_type.lower() + ".json"


def dump(obj, indent: int = 0) -> str:
    """JSON with one key per line but lists of scalars kept on one line (readable, diff-friendly)."""
    return _dump(obj, indent) + ("\n" if indent == 0 else "")


def _dump(obj, indent: int) -> str:
    pad, inner = "  " * indent, "  " * (indent + 1)
    flat = json.dumps(obj, ensure_ascii=False)
    if indent > 0 and len(flat) <= 150 and "{" not in flat[1:]:
        return flat
    if isinstance(obj, dict) and obj:
        items = [f"{inner}{json.dumps(k)}: {_dump(v, indent + 1)}" for k, v in obj.items()]
        return "{\n" + ",\n".join(items) + "\n" + pad + "}"
    if isinstance(obj, list) and obj and any(isinstance(v, (dict, list)) for v in obj):
        return "[\n" + ",\n".join(inner + _dump(v, indent + 1) for v in obj) + "\n" + pad + "]"
    return json.dumps(obj, ensure_ascii=False)


def build_enums(reference: Path) -> dict:
    data = json.loads((reference / "dml_enums.json").read_text())
    enums = {}
    for name, e in data["enums"].items():
        enums[name] = {
            "is_flags": e["is_flags"],
            "introduced": e["introduced"],
            "members": [{"name": m["name"], "value": m["value"], "introduced": m["introduced"]} for m in e["members"]],
        }
    return {"constants": data["meta"]["constants"], "enums": enums}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--reference", type=Path, default=DEFAULT_REFERENCE)
    ap.add_argument("--out", type=Path, default=DEFAULT_OUT)
    args = ap.parse_args(argv)
    if not args.reference.is_dir():
        print(f"reference folder not found: {args.reference}", file=sys.stderr)
        return 2
    args.out.mkdir(parents=True, exist_ok=True)
    descs = apply_decisions(derive(args.reference))
    for name, d in descs.items():
        (args.out / file_name(name)).write_text(dump(d))
    (args.out / "_enums.json").write_text(dump(build_enums(args.reference)))
    print(f"wrote {len(descs)} descriptors and _enums.json to {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
