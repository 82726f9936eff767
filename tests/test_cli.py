"""The dmlops command: exit codes, messages, no tracebacks for bad input."""
import json
import subprocess
import sys
from pathlib import Path

import pytest

SAMPLES = Path(__file__).resolve().parent.parent / "samples" / "descriptors"


def run(*args):
    r = subprocess.run([sys.executable, "-m", "dmlops", *map(str, args)], capture_output=True, text=True)
    assert "Traceback" not in r.stderr + r.stdout, r.stderr
    return r


def test_validate_gru_float64_names_field_type_and_allowed_types():
    r = run("validate", SAMPLES / "gru_float64.json", "--feature-level", "6.4")
    assert r.returncode == 1
    assert ("GRU.InputTensor: DataType FLOAT64 not supported at DML_FEATURE_LEVEL_6_4 (supported: FLOAT32, FLOAT16); "
            "no feature level up to DML_FEATURE_LEVEL_6_4 allows it.") in r.stdout
    assert "is invalid at DML_FEATURE_LEVEL_6_4 (6 problem(s))" in r.stdout


def test_validate_relu_grad_below_its_level():
    r = run("validate", SAMPLES / "relu_grad.json", "--feature-level", "DML_FEATURE_LEVEL_2_0")
    assert r.returncode == 1
    assert "ACTIVATION_RELU_GRAD was introduced in DML_FEATURE_LEVEL_3_0; the target is DML_FEATURE_LEVEL_2_0." in r.stdout


@pytest.mark.parametrize("name", ["gru.json", "relu_grad.json"])
def test_validate_valid_sample_exits_0(name):
    r = run("validate", SAMPLES / name, "--feature-level", "0x5000")
    assert r.returncode == 0, r.stdout
    assert "is valid at DML_FEATURE_LEVEL_5_0." in r.stdout


def test_validate_json_output():
    r = run("validate", SAMPLES / "gru_float64.json", "--feature-level", "5.1", "--json")
    assert r.returncode == 1
    out = json.loads(r.stdout)
    assert out["valid"] is False and out["operator"] == "GRU" and out["feature_level"] == "DML_FEATURE_LEVEL_5_1"
    first = out["problems"][0]
    assert first["field"] == "InputTensor" and first["rule"] == "data_type"
    assert first["message"].startswith("GRU.InputTensor: DataType FLOAT64 not supported")


@pytest.mark.parametrize("args, message", [
    (["validate", "missing.json"], "dmlops: error: missing.json: cannot read the file (No such file or directory)."),
    (["describe", "GRUU"], "dmlops: error: unknown operator type 'GRUU'. Did you mean: GRU?"),
    (["ops", "--feature-level", "7.0"], "is not a DirectML feature level (known: 1.0,"),
    (["frobnicate"], "invalid choice: 'frobnicate'"),
])
def test_bad_input_exits_2_with_a_message(args, message):
    r = run(*args)
    assert r.returncode == 2
    assert message in r.stderr


def test_validate_malformed_file_exits_2(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text('{"type": "DML_OPERATOR_GRU", "desc": {"Direction": "UP"}}')
    r = run("validate", bad)
    assert r.returncode == 2
    assert "$.desc.ActivationDescs: required field of DML_GRU_OPERATOR_DESC is missing." in r.stderr
    r = run("validate", bad, "--json")
    assert r.returncode == 2 and "required field" in json.loads(r.stdout)["error"]


def test_ops_lists_all_and_filters_by_level():
    r = run("ops")
    assert r.returncode == 0 and r.stdout.strip().endswith("177 operator types.")
    r = run("ops", "--feature-level", "2.0")
    assert "ACTIVATION_RELU_GRAD" not in r.stdout and "GRU " in r.stdout
    assert r.stdout.strip().endswith("96 operator types allowed at DML_FEATURE_LEVEL_2_0.")


def test_describe_shows_fields_defaults_tiers_constraints():
    r = run("describe", "activation_leaky_relu")
    assert r.returncode == 0
    assert "Alpha" in r.stdout and "default 0.01" in r.stdout
    r = run("describe", "DML_OPERATOR_GEMM", "--feature-level", "3.0")
    assert "tensor support at DML_FEATURE_LEVEL_3_0:" in r.stdout
    assert "ATensor                      ranks 4 " in r.stdout
    r = run("describe", "GRU")
    assert "ActivationDescCount            derived count" in r.stdout
    assert "must have the same DataType" in r.stdout
