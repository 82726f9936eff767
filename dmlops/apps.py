"""What the sample apps (samples/) share: their command line, and loss-curve PNGs with matplotlib when it is
installed (the ``samples`` extra)."""
from __future__ import annotations

import argparse
import tempfile
from pathlib import Path


def arguments(doc: str, name: str, steps: int, argv=None) -> argparse.Namespace:
    """A sample's command line: ``--steps`` (default ``steps``), ``--backend``, ``--device`` (default: the best
    available, DirectML when present; a named device that is missing is the sample's error, never a fallback) and
    ``--plot`` (default ``<name>.png`` in ``default_plot_dir()``, never the current folder, which is often a
    checkout). ``doc`` is the sample's module docstring; its first paragraph is the help."""
    parser = argparse.ArgumentParser(description=doc.split("\n\n")[0])
    parser.add_argument("--steps", type=int, default=steps, help=f"training steps (default {steps})")
    parser.add_argument("--backend", default="onnxruntime", choices=("onnxruntime", "torch", "reference"))
    parser.add_argument("--device", default=None,
                        help="cpu, cuda[:N] or dml[:N] (default: the best available, DirectML when present)")
    default = default_plot_dir() / f"{name}.png"
    parser.add_argument("--plot", default=str(default), help=f"PNG of the loss curves (default {default})")
    args = parser.parse_args(argv)
    if args.steps < 1:
        parser.error("--steps must be at least 1")
    return args


def default_plot_dir() -> Path:
    """Where the sample apps write their loss curves unless ``--plot`` says otherwise: ``dmlops-samples`` in the
    system's temporary folder (made when a plot is written)."""
    return Path(tempfile.gettempdir()) / "dmlops-samples"


def plot_losses(path, curves: dict, *, xlabel: str, ylabel: str, title: str, log=print) -> bool:
    """Write ``curves`` (label → losses per step; the first solid, the others dashed) to ``path`` as a PNG on a
    log scale. Without matplotlib, say so through ``log`` and write nothing. Returns whether a file was written."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        log("matplotlib is not installed (pip install 'dmlops[samples]'); no plot written")
        return False
    fig, ax = plt.subplots(figsize=(6, 4))
    for k, (label, losses) in enumerate(curves.items()):
        if losses:
            ax.plot(range(1, len(losses) + 1), losses, "-" if k == 0 else "--", label=label)
    ax.set(xlabel=xlabel, ylabel=ylabel, yscale="log", title=title)
    ax.legend()
    fig.tight_layout()
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=100)
    plt.close(fig)
    log(f"plot written to {path}")
    return True
