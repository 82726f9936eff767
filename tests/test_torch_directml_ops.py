"""torch-directml never crashes the process and never falls back silently (issue 9, part 5).

There is no torch-directml here, so each torch lowering runs on the CPU as it would on a ``dml`` device (FLOAT16
computed as FLOAT16) under a TorchDispatchMode that records every aten overload it dispatches; each must be one
torch-directml registers (dmlops/data/torch_directml_ops.txt, a verbatim copy of ../shared/reference/), with no
float64 tensor (unless the descriptor has FLOAT64 tensors), no uint16/uint32/uint64 tensor and nothing above 5
dimensions. Descriptors torch-directml cannot run are refused at compile time, and its CPU-fallback warning is an error.
"""
import filecmp
import warnings
from pathlib import Path

import numpy as np
import pytest
import torch

import dmlops
from dmlops.backends import torch as torch_backend
from dmlops.backends.torch_directml_ops import LIST, MAX_RANK, recorder, registered, runs_on_directml
from dmlops.graph import GraphDesc
from dmlops.lower import runnable
from dmlops.ops import module
from dmlops.sample import float16_variant
from dmlops.types import FeatureLevel

SHARED = Path(__file__).resolve().parents[2] / "shared" / "reference" / "torch_directml_ops.txt"
T = dmlops.TensorDesc
aten = torch.ops.aten
BANNED = {torch.uint16, torch.uint32, torch.uint64}


@pytest.mark.skipif(not SHARED.is_file(), reason="../shared/reference is not present")
def test_the_shipped_list_is_verbatim():
    assert filecmp.cmp(SHARED, LIST, shallow=False)


def test_overloads_are_matched_as_torch_directml_registers_them():
    assert {"add.out", "relu", "where.self"} <= registered()
    assert runs_on_directml(aten.add.Tensor)        # through its structured kernel add.out
    assert runs_on_directml(aten.add_.Tensor)       # the in-place form shares it
    assert runs_on_directml(aten._to_copy.default)  # composite: decomposes into registered ops
    # Measured on real DirectML: these fall back to the CPU with only a UserWarning.
    assert not runs_on_directml(aten.elu.default)
    assert not runs_on_directml(aten.amin.default)


def test_the_recorder_follows_composite_ops_into_what_they_decompose_to():
    rec = recorder()
    with rec:
        torch.nn.functional.celu(torch.ones(2))
    assert aten.elu.default in rec.ops  # CELU is ELU underneath: it falls back as ELU does


def _simulated(graph):
    """The torch Runner as a dml device would build it, on the CPU."""
    return torch_backend.Runner(graph, "dml:0", torch.device("cpu"), upcast_float16=False)


def _tds(desc):
    for value in desc.tensors().values():
        yield from (v for v in (value if isinstance(value, tuple) else (value,)) if v is not None)


def _dispatch_problems(graph, inputs: dict) -> list[str]:
    runner = _simulated(graph)
    feed = [runner.to_device(n, td, inputs[n]) for n, td in zip(graph.input_names, graph.input_descs())]
    rec = recorder()
    with rec:
        runner(feed)
    float64 = any(td.data_type.name == "FLOAT64" for node in graph.nodes for td in _tds(node))
    out = sorted({f"{op} is not registered by torch-directml" for op in rec.ops if not runs_on_directml(op)})
    if torch.float64 in rec.dtypes and not float64:
        out.append("float64 intermediates")
    out += [f"{d} tensors" for d in sorted(map(str, rec.dtypes & BANNED))]
    if rec.max_rank > MAX_RANK:
        out.append(f"a tensor of {rec.max_rank} dimensions")
    return out


def _samples():
    for op in sorted(runnable()):
        items = []
        for s in module(op).SAMPLES:
            items.append(s)
            variant = float16_variant(s, FeatureLevel.latest())
            if variant is not None:
                items.append(variant)
        yield pytest.param(items, id=op)


@pytest.mark.parametrize("samples", list(_samples()))
def test_every_sample_runs_only_torch_directml_ops_or_is_refused_at_compile_time(samples):
    found = {}
    for s in samples:
        graph = GraphDesc.single(s.desc)
        refused = torch_backend.descriptor_problems(graph)
        if refused:
            with pytest.raises(dmlops.DmlOpsError, match="^torch-directml cannot run this safely: "):
                torch_backend.build(graph, "dml:0", torch.device("cpu"))
            continue
        problems = _dispatch_problems(graph, s.inputs)
        if problems:
            found[s.name] = problems
    assert found == {}


def test_unsigned_and_64_bit_integers_are_refused_at_compile_time_on_torch_directml():
    desc = dmlops.ElementWiseAdd(a_tensor=T("UINT32", [4]), b_tensor=T("UINT32", [4]), output_tensor=T("UINT32", [4]))
    with pytest.raises(dmlops.DmlOpsError) as e:
        torch_backend.build(GraphDesc.single(desc), "dml:0", torch.device("cpu"))
    assert str(e.value) == (
        "torch-directml cannot run this safely: ELEMENT_WISE_ADD.ATensor: DataType UINT32: torch-directml aborts the "
        "process on uint32 tensors. ELEMENT_WISE_ADD.BTensor: DataType UINT32: torch-directml aborts the process on "
        "uint32 tensors. ELEMENT_WISE_ADD.OutputTensor: DataType UINT32: torch-directml aborts the process on uint32 "
        "tensors. The onnxruntime backend (DirectML provider) has no such limits.")
    desc = dmlops.ElementWiseIdentity(input_tensor=T("INT64", [2]), output_tensor=T("INT64", [2]))
    with pytest.raises(dmlops.DmlOpsError, match=r"ELEMENT_WISE_IDENTITY\.InputTensor: DataType INT64: torch-directml "
                                                 r"stores int64 tensors in 32 bits \(values beyond int32 come back "
                                                 r"truncated\)\."):
        torch_backend.build(GraphDesc.single(desc), "dml:0", torch.device("cpu"))


def test_ranks_above_five_and_3d_convolution_are_refused_at_compile_time_on_torch_directml():
    desc = dmlops.ActivationRelu(input_tensor=T("FLOAT32", [1] * 6), output_tensor=T("FLOAT32", [1] * 6))
    with pytest.raises(dmlops.DmlOpsError, match=r"ACTIVATION_RELU\.InputTensor: 6 dimensions: torch-directml aborts "
                                                 r"the process on tensors of more than 5 dimensions\."):
        torch_backend.build(GraphDesc.single(desc), "dml:0", torch.device("cpu"))
    conv = dmlops.Convolution(
        input_tensor=T("FLOAT32", [1, 1, 3, 3, 3]), filter_tensor=T("FLOAT32", [1, 1, 1, 1, 1]),
        output_tensor=T("FLOAT32", [1, 1, 3, 3, 3]), mode="CROSS_CORRELATION", direction="FORWARD",
        strides=[1, 1, 1], dilations=[1, 1, 1], start_padding=[0, 0, 0], end_padding=[0, 0, 0],
        output_padding=[0, 0, 0], group_count=1)
    assert conv.problems("6.2") == []
    with pytest.raises(dmlops.DmlOpsError, match=r"CONVOLUTION\.InputTensor: 3 spatial dimensions: torch-directml has "
                                                 r"no 3-D convolution\."):
        torch_backend.build(GraphDesc.single(conv), "dml:0", torch.device("cpu"))


def test_the_cpu_fallback_warning_is_an_error_naming_the_aten_op_and_the_operator(monkeypatch):
    desc = dmlops.ActivationElu(input_tensor=T("FLOAT32", [2]), output_tensor=T("FLOAT32", [2]), alpha=1.0)
    real = torch_backend.lower_torch

    def warn_like_torch_directml(d, torch_, x):
        warnings.warn("The operator 'aten::elu.out' is not currently supported on the DML backend and will fall "
                      "back to run on the CPU. This may have performance implications.", UserWarning)
        return real(d, torch_, x)

    monkeypatch.setattr(torch_backend, "lower_torch", warn_like_torch_directml)
    runner = _simulated(GraphDesc.single(desc))
    with pytest.raises(dmlops.DmlOpsError, match=r"^ACTIVATION_ELU: torch-directml ran aten::elu\.out on the CPU "
                                                 r"instead of DirectML \(The operator"):
        runner([torch.zeros(2)])
    # Off DirectML the same warning is not dmlops's business: it passes through.
    cpu = torch_backend.Runner(GraphDesc.single(desc), "cpu", torch.device("cpu"))
    with pytest.warns(UserWarning, match="fall back to run on the CPU"):
        cpu([torch.zeros(2)])
