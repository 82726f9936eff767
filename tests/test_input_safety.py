"""Inputs are the values the caller's array represents, whatever its memory layout; outputs never alias inputs.

Issue 13: a NumPy view that is not C-contiguous (every other element, negative strides, a broadcast_to view)
given to a strided descriptor used to be read through the view's base memory (a wrong result, no error) on the
reference backend and refused with NumPy's own error on torch; CAST FLOAT32 -> FLOAT32 on torch (and the
reference) handed the input back as the output.
"""
from __future__ import annotations

import numpy as np
import pytest

import dmlops
from dmlops.types import TensorDesc

BACKENDS = ["reference", "onnxruntime", "torch"]


def strided_add():
    """A read column-major, B one row broadcast through a zero stride, the output padded to 4 per row."""
    return dmlops.ElementWiseAdd(a_tensor=TensorDesc("FLOAT32", [2, 3], [1, 2]),
                                 b_tensor=TensorDesc("FLOAT32", [2, 3], [0, 1]),
                                 output_tensor=TensorDesc("FLOAT32", [2, 3], [4, 1]))


def packed_add():
    t = TensorDesc("FLOAT32", [2, 3])
    return dmlops.ElementWiseAdd(a_tensor=t, b_tensor=t, output_tensor=t)


A = np.arange(6, dtype=np.float32).reshape(2, 3) + 1
B = np.array([10, 20, 30], np.float32)


def views():
    """(label, a, b) where a and b are the logical A and broadcast B, or their buffers, as non-contiguous views."""
    wide = np.zeros(12, np.float32)
    wide[::2] = A.T.reshape(-1)  # A's column-major buffer, every other element of a wider array
    backwards = A.T.reshape(-1)[::-1].copy()[::-1]  # the same buffer through a negative stride
    rows = np.broadcast_to(B, (2, 3))  # read-only, zero strides
    return [("logical transposed view", A.T.copy().T, rows),
            ("logical negative strides", A[::-1].copy()[::-1], np.ascontiguousarray(rows)[:, ::-1].copy()[:, ::-1]),
            ("buffer every other element", wide[::2], B[::-1].copy()[::-1]),
            ("buffer negative stride", backwards, rows)]


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("label,a,b", views(), ids=[v[0] for v in views()])
def test_strided_descriptor_reads_the_values_of_any_numpy_layout(backend, label, a, b):
    assert not (a.flags.c_contiguous and b.flags.c_contiguous)
    out = dmlops.run(strided_add(), {"ATensor": a, "BTensor": b}, backend=backend)["OutputTensor"]
    assert out.tolist() == (A + B).tolist()


@pytest.mark.parametrize("backend", BACKENDS)
def test_packed_descriptor_reads_the_values_of_any_numpy_layout(backend):
    op = dmlops.compile(packed_add(), backend)
    for a, b in ((A.T.copy().T, np.broadcast_to(B, (2, 3))), (A[::-1].copy()[::-1], np.full((3, 2), 5, np.float32).T)):
        assert op(a_tensor=a, b_tensor=b)["OutputTensor"].tolist() == (A + b).tolist()


def test_torch_tensor_views_are_read_as_their_values():
    torch = pytest.importorskip("torch")
    wide = torch.zeros(12)
    wide[::2] = torch.from_numpy(A.T.reshape(-1).copy())
    b = torch.from_numpy(B)
    out = dmlops.run(strided_add(), {"ATensor": wide[::2], "BTensor": b}, backend="torch")["OutputTensor"]
    assert out.tolist() == (A + B).tolist()
    shifted = torch.cat([torch.zeros(1), torch.from_numpy(A.T.reshape(-1).copy())])[1:]  # storage offset 1
    out = dmlops.run(strided_add(), {"ATensor": shifted, "BTensor": b}, backend="torch")["OutputTensor"]
    assert out.tolist() == (A + B).tolist()


def same_type_cast():
    t = TensorDesc("FLOAT32", [2, 3])
    return dmlops.Cast(input_tensor=t, output_tensor=t)


def identity():
    t = TensorDesc("FLOAT32", [2, 3])
    return dmlops.ElementWiseIdentity(input_tensor=t, output_tensor=t)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("make", [same_type_cast, identity])
def test_an_output_is_never_the_callers_input(backend, make):
    x = A.copy()
    out = dmlops.run(make(), input_tensor=x, backend=backend)["OutputTensor"]
    out[...] = -1
    assert x.tolist() == A.tolist()


@pytest.mark.parametrize("make", [same_type_cast, identity])
def test_a_torch_output_is_never_the_callers_tensor(make):
    torch = pytest.importorskip("torch")
    x = torch.from_numpy(A.copy())
    out = dmlops.run(make(), input_tensor=x, backend="torch")["OutputTensor"]
    out.fill_(-1)
    assert x.tolist() == A.tolist()


from tests.fake_directml import fake_directml  # noqa: E402,F401  (the fixture)


@pytest.mark.parametrize("label,a,b", views(), ids=[v[0] for v in views()])
def test_the_native_backend_uploads_the_values_of_any_numpy_layout(fake_directml, label, a, b):  # noqa: F811
    """The directml backend's upload (through the fake DirectML, which computes with the reference on the bytes it
    was given) reads the caller's views as their values too; its outputs are fresh arrays."""
    fake_directml()
    out = dmlops.run(strided_add(), {"ATensor": a, "BTensor": b}, backend="directml")["OutputTensor"]
    assert out.tolist() == (A + B).tolist()
    x = A.copy()
    y = dmlops.run(identity(), input_tensor=x, backend="directml")["OutputTensor"]
    y[...] = -1
    assert x.tolist() == A.tolist()
