"""torch-directml's registered aten overloads and dmlops's refusals there (issue 9, part 5; issue 23).

dmlops/data/torch_directml_ops.txt (a verbatim copy of ../shared/reference/) says which aten overloads torch-directml
runs on DirectML; descriptors it cannot compute are refused at compile time, and its CPU-fallback warning is an
error. Every sample and vector runs through a double of torch-directml in test_torch_directml_double.py.
"""
import filecmp
import warnings
from pathlib import Path

import pytest
import torch

import dmlops
from dmlops.backends import torch as torch_backend
from dmlops.backends.torch_directml_adapt import Adapted
from dmlops.backends.torch_directml_ops import LIST, recorder, registered, runs_on_directml
from dmlops.graph import GraphDesc

SHARED = Path(__file__).resolve().parents[2] / "shared" / "reference" / "torch_directml_ops.txt"
T = dmlops.TensorDesc
aten = torch.ops.aten


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


def test_descriptors_torch_directml_cannot_compute_are_refused_at_compile_time_with_the_reason():
    # (Every sample and vector through the torch-directml double, refusals included: test_torch_directml_double.py.)
    # UINT64 ADD into a packed output is rewritten into int32 pairs (torch_directml_adapt); into a strided output
    # there is no exact 32-bit path, so it is refused before anything runs.
    packed = dmlops.ElementWiseAdd(a_tensor=T("UINT64", [4]), b_tensor=T("UINT64", [4]),
                                   output_tensor=T("UINT64", [4]))
    assert "UINT64" in torch_backend.descriptor_problems(GraphDesc.single(packed))[0]
    assert isinstance(torch_backend.build(GraphDesc.single(packed), "dml:0", torch.device("cpu")), Adapted)
    desc = dmlops.ElementWiseAdd(a_tensor=T("UINT64", [4]), b_tensor=T("UINT64", [4]),
                                 output_tensor=T("UINT64", [4], [2]))
    with pytest.raises(dmlops.DmlOpsError, match=r"^torch-directml cannot run this safely: ELEMENT_WISE_ADD\.ATensor: "
                                                 r"DataType UINT64; torch-directml computes 64-bit integers in 32 bits"):
        torch_backend.build(GraphDesc.single(desc), "dml:0", torch.device("cpu"))
    # UINT32 travels in int32 there; an index tensor may be INT64.
    ok = dmlops.ElementWiseAdd(a_tensor=T("UINT32", [4]), b_tensor=T("UINT32", [4]), output_tensor=T("UINT32", [4]))
    assert torch_backend.descriptor_problems(GraphDesc.single(ok)) == []
    gather = dmlops.Gather(input_tensor=T("FLOAT32", [3]), indices_tensor=T("INT64", [2]),
                           output_tensor=T("FLOAT32", [2]), axis=0, index_dimensions=1)
    assert torch_backend.descriptor_problems(GraphDesc.single(gather)) == []


def test_strided_ranks_above_six_are_refused_at_compile_time_on_torch_directml_and_3d_convolution_is_not():
    # A packed 7-D tensor runs as a merged view (torch_directml_adapt); a strided one that merges into no view of at
    # most 6 dimensions is refused.
    packed = dmlops.ActivationRelu(input_tensor=T("FLOAT32", [1] * 7), output_tensor=T("FLOAT32", [1] * 7))
    assert isinstance(torch_backend.build(GraphDesc.single(packed), "dml:0", torch.device("cpu")), Adapted)
    rank = [2] + [1] * 5 + [2]
    desc = dmlops.ActivationRelu(input_tensor=T("FLOAT32", rank, [1] + [2] * 6), output_tensor=T("FLOAT32", rank))
    with pytest.raises(dmlops.DmlOpsError, match=r"ACTIVATION_RELU\.InputTensor: 7 dimensions; torch-directml was "
                                                 r"measured with up to 6 \(a rank-6 add ran"):
        torch_backend.build(GraphDesc.single(desc), "dml:0", torch.device("cpu"))
    six = dmlops.ActivationRelu(input_tensor=T("FLOAT32", [1] * 6), output_tensor=T("FLOAT32", [1] * 6))
    assert torch_backend.descriptor_problems(GraphDesc.single(six)) == []
    # 3-D convolution runs as 2-D ones (torch_directml_ops.workarounds; test_torch_directml_double).
    conv = dmlops.Convolution(
        input_tensor=T("FLOAT32", [1, 1, 3, 3, 3]), filter_tensor=T("FLOAT32", [1, 1, 1, 1, 1]),
        output_tensor=T("FLOAT32", [1, 1, 3, 3, 3]), mode="CROSS_CORRELATION", direction="FORWARD",
        strides=[1, 1, 1], dilations=[1, 1, 1], start_padding=[0, 0, 0], end_padding=[0, 0, 0],
        output_padding=[0, 0, 0], group_count=1)
    assert torch_backend.descriptor_problems(GraphDesc.single(conv)) == []


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
