"""NumPy views with negative strides are read as the values they show, on every backend (issue 20).

``x[::-1]``, ``x[:, ::-2]``, a transposed view of a reversed array, and an array whose only negative stride is on a
size-1 axis (NumPy calls that one C-contiguous, and torch.from_numpy refused it with torch's own ValueError). Each is
given as the logical input of a packed descriptor and, where it is 1-D, as the buffer of a strided one; the native
backend runs through the fake DirectML.
"""
from __future__ import annotations

import numpy as np
import pytest

import dmlops
from dmlops.types import TensorDesc
from tests.fake_directml import fake_directml  # noqa: F401  (the fixture)

BACKENDS = ["reference", "onnxruntime", "torch"]


def _size_one_axis_negative() -> np.ndarray:
    base = np.arange(1, 5, dtype=np.float32) - 2.5
    view = np.lib.stride_tricks.as_strided(base, shape=(1, 4), strides=(-16, 4))
    assert view.strides[0] < 0 and view.flags.c_contiguous  # the case NumPy calls contiguous
    return view


def views() -> list[tuple[str, np.ndarray]]:
    m = (np.arange(24, dtype=np.float32) - 11.5).reshape(4, 6)
    return [
        ("x[::-1]", (np.arange(6, dtype=np.float32) - 2.5)[::-1]),
        ("x[:, ::-2]", m[:, ::-2]),
        ("transposed negative", m[::-1].T),
        ("negative stride on a size-1 axis", _size_one_axis_negative()),
    ]


IDS = [label for label, _ in views()]


def relu_of(shape) -> dmlops.ActivationRelu:
    t = TensorDesc("FLOAT32", list(shape))
    return dmlops.ActivationRelu(input_tensor=t, output_tensor=t)


def _check_view(x: np.ndarray):
    assert any(s < 0 for s in x.strides)
    return np.maximum(np.array(x), 0)  # np.array copies: the values the view shows


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("label,x", views(), ids=IDS)
def test_a_negative_stride_view_is_read_as_its_values(backend, label, x):
    want = _check_view(x)
    out = dmlops.run(relu_of(x.shape), input_tensor=x, backend=backend)["OutputTensor"]
    assert out.shape == x.shape
    assert out.tolist() == want.tolist()


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_reversed_buffer_of_a_strided_descriptor_is_read_as_its_values(backend):
    """A column-major [2, 3] read through Strides [1, 2] from a buffer given as ``x[::-1]``."""
    buffer = np.array([6, -5, 4, -3, 2, -1], np.float32)[::-1]  # the buffer's values: -1, 2, -3, 4, -5, 6
    desc = dmlops.ElementWiseIdentity(input_tensor=TensorDesc("FLOAT32", [2, 3], [1, 2]),
                                      output_tensor=TensorDesc("FLOAT32", [2, 3]))
    out = dmlops.run(desc, input_tensor=buffer, backend=backend)["OutputTensor"]
    assert out.tolist() == [[-1, -3, -5], [2, 4, 6]]


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_negative_stride_view_through_a_graph(backend):
    """A two-node graph (identity then relu): the graph's input is a negative-stride view as well."""
    x = _size_one_axis_negative()
    t = TensorDesc("FLOAT32", [1, 4])
    b = dmlops.GraphBuilder()
    first = b.add(dmlops.ElementWiseIdentity(input_tensor=t, output_tensor=t), InputTensor=b.input("x"))
    second = b.add(dmlops.ActivationRelu(input_tensor=t, output_tensor=t), InputTensor=first.output_tensor)
    b.output("y", second.output_tensor)
    out = dmlops.run(b.build(), {"x": x}, backend=backend)["y"]
    assert out.tolist() == np.maximum(np.array(x), 0).tolist()


@pytest.mark.parametrize("label,x", views(), ids=IDS)
def test_the_native_backend_uploads_a_negative_stride_view_as_its_values(fake_directml, label, x):  # noqa: F811
    fake = fake_directml()
    want = _check_view(x)
    out = dmlops.run(relu_of(x.shape), input_tensor=x, backend="directml")["OutputTensor"]
    assert out.tolist() == want.tolist()
    fake.assert_clean()


def test_the_torch_backend_on_a_size_one_negative_stride_copies_instead_of_failing():
    """torch.from_numpy refuses every negative stride (ValueError 'At least one stride in the given numpy array is
    negative'); the backend must copy such an array even though NumPy flags it C-contiguous."""
    pytest.importorskip("torch")
    x = _size_one_axis_negative()
    op = dmlops.compile(relu_of(x.shape), "torch")
    assert op(input_tensor=x)["OutputTensor"].tolist() == [[0, 0, 0.5, 1.5]]
