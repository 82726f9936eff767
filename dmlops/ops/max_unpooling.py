"""DML_OPERATOR_MAX_UNPOOLING: OutputTensor = 0, then output.flat[indices[i]] = input[i].

The indices "treat the output tensor as a contiguous one-dimensional array", batch and channel included (DirectML's
vectors MAX_UNPOOLING-float32/float16: channel 1 of {1, 3, 4, 5} is addressed from 20 on, channel 2 from 40 on), as
ONNX MaxUnpool's are; torch.nn.functional.max_unpool2d's are per (batch, channel) plane instead. The elements no
index names are +0. dmlops writes at flat addresses (dmlops.ops._indexing: an index at or past the end writes the
last element, inferred from GATHER's out-of-range vector; of duplicates, which max pooling never produces, the last
in row-major order wins). ONNX: a MaxUnpool of update positions and one Gather (ONNX MaxUnpool itself takes float
types only); torch: scatter into zeros.

Shape rules the descriptor file cannot express:

InputTensor is {Batch, Channel, Height, Width}; IndicesTensor has the same Sizes ("Both the InputTensor and
IndicesTensor have the same tensor sizes"); OutputTensor has the same number of dimensions (a generic rule)
and, being the input of the max pooling this inverts, the same Batch and Channel: the indices address it as
one flat array, but the page describes it as the un-pooled tensor of the same batch and channels.
"""
from __future__ import annotations

import numpy as np

from ..errors import Problem
from ..sample import Sample, td
from ..validation import shape_problem, tensor
from . import _elementwise as ew
from . import _indexing as ix
from ._shapes import sizes


def check(desc, level) -> list[Problem]:
    """IndicesTensor Sizes = InputTensor Sizes; OutputTensor Batch and Channel = InputTensor's."""
    out: list[Problem] = []
    x = sizes(tensor(desc, "InputTensor"))
    if x is None:
        return out
    indices = sizes(tensor(desc, "IndicesTensor"))
    if indices is not None and indices != x:
        out.append(shape_problem(desc, "IndicesTensor", indices, "InputTensor's Sizes", x))
    y = sizes(tensor(desc, "OutputTensor"), len(x))
    if y is not None and len(x) == 4 and y[:2] != x[:2]:
        out.append(shape_problem(desc, "OutputTensor", y, "{Batch, Channel, OutputHeight, OutputWidth}",
                                 x[:2] + y[2:]))
    return out


# ----------------------------------------------------------------------------------------------- lowerings
def _addresses(desc) -> ix.Addresses:
    return ix.flat(desc.indices_tensor.element_count, desc.output_tensor.element_count)


def reference(desc, x):
    """Zeros with each input element written at its flat index."""
    a = ix.reference_addresses(_addresses(desc), x["IndicesTensor"])
    v = x["InputTensor"]
    zeros = np.zeros(desc.output_tensor.sizes, v.dtype)
    return {"OutputTensor": ix.reference_scatter(zeros, a, v)}


def to_onnx(desc, g, x):
    """MaxUnpool of update positions, then one Gather from [input, zeros]."""
    a = _addresses(desc)
    address = ix.onnx_addresses(a, g, x["IndicesTensor"])
    y = ix.onnx_scatter_flat(g, None, a.count, address, x["InputTensor"], int(np.prod(a.shape)))
    return {"OutputTensor": g.node("Reshape", [y, g.ints(desc.output_tensor.sizes)])}


def to_torch(desc, torch, x):
    """scatter into zeros, flat."""
    a = _addresses(desc)
    address = ix.torch_addresses(a, torch, x["IndicesTensor"])
    y = ix.torch_scatter_flat(torch, None, a.count, address, x["InputTensor"])
    return {"OutputTensor": y.reshape(desc.output_tensor.sizes)}


# ----------------------------------------------------------------------------------------------- samples
def _desc(data_type, in_sizes, out_sizes, index_type="UINT32"):
    from ..descs import MaxUnpooling

    return MaxUnpooling(input_tensor=td(data_type, in_sizes), indices_tensor=td(index_type, in_sizes),
                        output_tensor=td(data_type, out_sizes))


EXACT = dict(atol=0, rtol=0, why="elements are copied, never computed")


def _samples():
    f32 = np.float32
    # A 2x2 max pooling of two {4, 4} channels picked these flat indices (channel 1 from 16 on).
    pooled = np.array([[[[5, 7], [13, 15]], [[6, 8], [14, 16]]]], f32)
    indices = np.array([[[[0, 3], [9, 14]], [[16, 21], [27, 31]]]], np.uint32)
    want = np.zeros(32, f32)
    want[[0, 3, 9, 14, 16, 21, 27, 31]] = [5, 7, 13, 15, 6, 8, 14, 16]
    out = [
        Sample("two_channels", _desc("FLOAT32", [1, 2, 2, 2], [1, 2, 4, 4]),
               {"InputTensor": pooled, "IndicesTensor": indices}, {"OutputTensor": want.reshape(1, 2, 4, 4)},
               **EXACT),
        # UINT64 indices; -0.0 and a NaN payload keep their bits; the untouched elements are +0.
        Sample("uint64_bits", _desc("FLOAT32", [1, 1, 1, 2], [1, 1, 2, 2], "UINT64"),
               {"InputTensor": np.array([0x80000000, 0x7FC01234], np.uint32).view(f32).reshape(1, 1, 1, 2),
                "IndicesTensor": np.array([3, 1], np.uint64).reshape(1, 1, 1, 2)},
               {"OutputTensor": np.array([0, 0x7FC01234, 0, 0x80000000], np.uint32).view(f32).reshape(1, 1, 2, 2)},
               float16=False, **EXACT),
    ]
    for t in ew.INTEGERS:
        lo, hi = ew.int_range(np.dtype(t.lower()))
        out.append(Sample(f"int_{t.lower()}", _desc(t, [1, 1, 1, 2], [1, 1, 2, 2]),
                          {"InputTensor": ew.int_array([[[[lo, hi]]]], t),
                           "IndicesTensor": np.array([[[[2, 1]]]], np.uint32)},
                          {"OutputTensor": ew.int_array([[[[0, hi], [lo, 0]]]], t)}, **EXACT))
    return out


SAMPLES = _samples()
