"""``dmlops --help`` names only commands that exist (it once offered a ``run`` command there was none of)."""
import re

import pytest

from dmlops import cli


def test_top_level_help_names_exactly_the_commands(capsys):
    with pytest.raises(SystemExit) as e:
        cli.main(["--help"])
    assert e.value.code == 0
    text = " ".join(capsys.readouterr().out.split())
    named = re.search(r"Commands: ([a-z, ]+);", text)
    assert named, text
    commands = named.group(1).split(", ")
    assert "run" not in commands
    parser = cli.build_parser()
    sub = next(a for a in parser._actions if a.__class__.__name__ == "_SubParsersAction")
    assert commands == list(sub.choices)
    for command in commands:  # each one has its own help
        with pytest.raises(SystemExit) as e:
            cli.main([command, "--help"])
        assert e.value.code == 0
