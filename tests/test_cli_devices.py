"""`dmlops devices` and `dmlops.devices()`: no DirectML here, so the empty case runs for real and a listing is
simulated with Adapter records."""
import json
import subprocess
import sys

import dmlops
from dmlops import cli
from dmlops.backends.directml import adapters
from dmlops.types import FeatureLevel


def test_no_directml_here_is_an_empty_list_and_exit_1_with_where_dmlops_looked():
    assert dmlops.devices() == []
    r = subprocess.run([sys.executable, "-m", "dmlops", "devices"], capture_output=True, text=True,
                       env={k: v for k, v in __import__("os").environ.items() if not k.startswith("DMLOPS_")})
    assert r.returncode == 1 and "Traceback" not in r.stderr
    assert r.stdout.startswith("no DirectML adapter found. ")
    assert "Set DMLOPS_DIRECTML_LIBRARY to the full path of libdirectml" in r.stdout


def test_adapters_are_listed_one_per_line_and_as_json(monkeypatch, capsys):
    found = [adapters.Adapter(0, "Radeon RX 7600", "AMD", 0x1002, 8 * 2**30, FeatureLevel.parse("6.4"), True, False),
             adapters.Adapter(1, "Microsoft Basic Render Driver", "Microsoft", 0x1414, 0, None, False, False,
                              software=True, problem="DMLCreateDevice failed")]
    monkeypatch.setattr(adapters, "devices", lambda: found)
    monkeypatch.setattr(adapters, "unavailable_reason", lambda: None)
    assert cli.main(["devices"]) == 0
    assert capsys.readouterr().out.splitlines() == [
        "dml:0: Radeon RX 7600 (AMD, 8.0 GiB), DML_FEATURE_LEVEL_6_4, FLOAT16 yes, FLOAT64 no",
        "dml:1: Microsoft Basic Render Driver (Microsoft, software, 0.0 GiB), no DirectML device, FLOAT16 no, "
        "FLOAT64 no; DMLCreateDevice failed"]
    assert cli.main(["devices", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert [d["device"] for d in doc["devices"]] == ["dml:0", "dml:1"]
    assert doc["devices"][0]["feature_level"] == "6.4" and doc["unavailable_reason"] is None
