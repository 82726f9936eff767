"""The sample apps write their loss curves outside the current folder unless told where (running a sample from a
checkout used to leave a PNG in it, not ignored by git)."""
import os
from pathlib import Path

import pytest

from dmlops import apps


def test_the_default_plot_goes_to_the_samples_folder_in_temp(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    args = apps.arguments("A sample.\n\nMore.", "train_x", 5, [])
    assert Path(args.plot) == apps.default_plot_dir() / "train_x.png"
    assert not Path(args.plot).is_relative_to(tmp_path)
    assert Path(args.plot).is_absolute()


def test_plot_losses_makes_the_folder_and_writes_nothing_in_the_cwd(tmp_path, monkeypatch):
    pytest.importorskip("matplotlib")
    monkeypatch.chdir(tmp_path / "..")
    cwd_before = set(os.listdir("."))
    target = tmp_path / "new" / "loss.png"
    lines: list[str] = []
    assert apps.plot_losses(target, {"a": [3.0, 2.0, 1.0]}, xlabel="step", ylabel="loss", title="t", log=lines.append)
    assert target.stat().st_size > 0
    assert lines == [f"plot written to {target}"]
    assert set(os.listdir(".")) == cwd_before
