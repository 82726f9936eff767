"""One self-contained HTML page for ``dmlops check --html``: a bar per model (DirectML / CPU fallback / fails /
folded nodes), the summary table, then every model's nodes. No script, no external resource: inline CSS only."""
from __future__ import annotations

import html

from .. import __version__
from .many import common_folder, short_name
from .report import BadModel, ModelReport, NodeReport, Verdict

COLORS = {Verdict.DIRECTML: "#2e7d32", Verdict.CPU_FALLBACK: "#ef6c00", Verdict.FAILS: "#c62828",
          Verdict.FOLDED: "#b0bec5"}
CLASSES = {Verdict.DIRECTML: "dml", Verdict.CPU_FALLBACK: "cpu", Verdict.FAILS: "fail", Verdict.FOLDED: "fold"}

CSS = """
body { font: 14px/1.45 system-ui, -apple-system, "Segoe UI", sans-serif; margin: 24px; color: #1c1c1c; }
h1 { font-size: 20px; margin: 0 0 4px; } h2 { font-size: 16px; margin: 28px 0 6px; }
.meta { color: #555; margin-bottom: 14px; }
table { border-collapse: collapse; } th, td { padding: 3px 8px; text-align: left; vertical-align: top; }
th { background: #eceff1; font-weight: 600; } tr:nth-child(even) td { background: #fafafa; }
td.num { text-align: right; font-variant-numeric: tabular-nums; }
.bar { display: flex; width: 320px; height: 16px; border: 1px solid #90a4ae; background: #fff; }
.bar div { height: 100%; }
.dml { background: #2e7d32; } .cpu { background: #ef6c00; } .fail { background: #c62828; } .fold { background: #b0bec5; }
.legend span { display: inline-block; width: 12px; height: 12px; margin: 0 4px 0 14px; vertical-align: -1px; }
.verdict { font-weight: 600; white-space: nowrap; }
.v-dml { color: #2e7d32; } .v-cpu { color: #ef6c00; } .v-fail { color: #c62828; } .v-fold { color: #78909c; }
.err { color: #c62828; } code { font-size: 12px; } details { margin: 6px 0; } summary { cursor: pointer; }
.nodes td { font-size: 12px; } .inferred { color: #6a1b9a; }
"""


def _e(x) -> str:
    return html.escape(str(x), quote=True)


def bar(r: ModelReport) -> str:
    """A stacked bar of the model's nodes by verdict (widths in percent of all nodes)."""
    total = max(len(r.nodes), 1)
    parts = []
    for v in (Verdict.DIRECTML, Verdict.CPU_FALLBACK, Verdict.FAILS, Verdict.FOLDED):
        k = r.count(v)
        if k:
            parts.append(f'<div class="{CLASSES[v]}" style="width:{100 * k / total:.3f}%" '
                         f'title="{_e(v.value)}: {k} node(s)"></div>')
    return f'<div class="bar" role="img" aria-label="{_e(_bar_label(r))}">{"".join(parts)}</div>'


def _bar_label(r: ModelReport) -> str:
    return ", ".join(f"{v.value} {r.count(v)}" for v in Verdict)


def _summary_row(r: ModelReport | BadModel, anchor: str, folder: str) -> str:
    name = short_name(r.source, folder)
    if isinstance(r, BadModel):
        return (f'<tr><td>{_e(name)}</td><td colspan="8" class="err">{_e(r.error)}</td></tr>')
    share = r.directml_flops_share
    lowest = r.lowest_level
    blocking = ", ".join(f"{op} ×{k}" for op, k in sorted(r.blocking_ops.items(), key=lambda kv: -kv[1]))
    return (f'<tr><td><a href="#{anchor}">{_e(name)}</a></td><td>{bar(r)}</td>'
            f'<td class="num">{len(r.nodes)}</td><td class="num">{r.count(Verdict.DIRECTML)}</td>'
            f'<td class="num">{r.count(Verdict.CPU_FALLBACK)}</td><td class="num">{r.count(Verdict.FAILS)}</td>'
            f'<td class="num">{r.count(Verdict.FOLDED)}</td>'
            f'<td class="num">{"-" if share is None else f"{share:.1%}"}</td>'
            f'<td>{_e(lowest.short if lowest is not None else "none")}</td><td>{_e(blocking or "-")}</td></tr>')


def _node_row(n: NodeReport) -> str:
    v = n.verdict
    inferred = f'<div class="inferred">inferred: {_e("; ".join(n.inferred))}</div>' if n.inferred else ""
    origin = f"<div>{_e(n.origin)}</div>" if n.origin else ""
    copies = f"<div>copies: {_e('; '.join(n.copies))}</div>" if n.copies else ""
    return (f'<tr><td class="num">{_e((n.graph + "/") if n.graph else "")}{n.index}</td><td><code>{_e(n.name)}</code>'
            f'</td><td>{_e(n.qualified_op)}{"-" + str(n.since_version) if n.since_version else ""}</td>'
            f'<td><code>{_e(n.types_text())}</code></td><td><code>{_e(n.ranks_text())}</code></td>'
            f'<td class="verdict v-{CLASSES[v]}">{_e(v.value)}</td><td>{_e("+".join(n.dml_operators) or "-")}</td>'
            f'<td>{_e(n.min_level.short if n.min_level is not None else "-")}</td>'
            f'<td>{_e(n.reason)}{origin}{copies}{inferred}</td></tr>')


NODE_HEAD = ("<tr><th>#</th><th>node</th><th>op</th><th>types</th><th>ranks</th><th>verdict</th>"
             "<th>DirectML op(s)</th><th>level</th><th>reason</th></tr>")


def _model_section(r: ModelReport, anchor: str) -> str:
    off = [n for n in r.nodes if n.verdict in (Verdict.CPU_FALLBACK, Verdict.FAILS)]
    lines = "".join(f"<li>{_e(line.strip())}</li>" for line in r.summary_lines()[1:])
    parts = [f'<h2 id="{anchor}">{_e(r.source)}</h2>', bar(r),
             f'<p>{_e(r.headline())}<br>checked for {_e(r.device_text())}</p><ul>{lines}</ul>']
    if off:
        parts.append(f'<table class="nodes">{NODE_HEAD}{"".join(_node_row(n) for n in off)}</table>')
    parts.append(f'<details><summary>all {len(r.nodes)} nodes</summary><table class="nodes">{NODE_HEAD}'
                 f'{"".join(_node_row(n) for n in r.nodes)}</table></details>')
    return "\n".join(parts)


def page(results: list[ModelReport | BadModel], title: str = "dmlops check") -> str:
    """The HTML page for ``results``: legend, one summary row (with its bar) per model, then each model's nodes."""
    reports = [r for r in results if isinstance(r, ModelReport)]
    levels = sorted({r.feature_level.dml_name for r in reports})
    legend = "".join(f'<span class="{CLASSES[v]}"></span>{_e(v.value)}' for v in Verdict)
    anchors = [f"m{k}" for k in range(len(results))]
    folder = common_folder([r.source for r in results])
    rows = "\n".join(_summary_row(r, a, folder) for r, a in zip(results, anchors))
    sections = "\n".join(_model_section(r, a) for r, a in zip(results, anchors) if isinstance(r, ModelReport))
    return f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>{_e(title)}</title>
<style>{CSS}</style></head>
<body>
<h1>{_e(title)}</h1>
<div class="meta">{len(results)} model(s){" in " + _e(folder) if folder else ""} at {_e(", ".join(levels) or "-")};
dmlops {_e(__version__)}: ONNX Runtime's DirectML provider's rules, checked statically (no session was created).</div>
<div class="legend">nodes:{legend}</div>
<table class="summary">
<tr><th>model</th><th>nodes by verdict</th><th>nodes</th><th>DirectML</th><th>CPU fallback</th><th>fails</th>
<th>folded</th><th>FLOPs on DirectML</th><th>lowest level</th><th>blocking ops</th></tr>
{rows}
</table>
{sections}
</body></html>
"""
