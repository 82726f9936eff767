"""DML_OPERATOR_GATHER: output[before..., i..., after...] = input[before..., indices[i...], after...].

IndicesTensor's last IndexDimensions Sizes hold the indices (the dimensions before them are 1); the gathered block
replaces dimension Axis of InputTensor, and OutputTensor holds the result right-aligned. dmlops reads each element
at its flat address in InputTensor (dmlops.ops._indexing: negative indices of signed types count from the end,
and UINT64 indices are read as INT64, so 2**64 - 1 is the last row (vector GATHER-sample_out_of_range); an address
outside the tensor reads its last element, as DirectML's vector GATHER-float32_out_of_range_indices shows; ONNX Gather and torch.index_select would raise instead). ONNX: one flat Gather by int64 addresses;
torch: index_select on the flat tensor.

Shape rules the descriptor file cannot express:

From the docs page: Axis ranges "[0, InputTensor.DimensionCount)"; IndexDimensions is "the number of actual
index dimensions within the IndicesTensor after ignoring any irrelevant leading ones", so the dimensions of
IndicesTensor before its last IndexDimensions must be 1; and OutputTensor.Sizes = {InputTensor.Sizes[0..Axis],
IndicesTensor.Sizes[(DimensionCount - IndexDimensions)..], InputTensor.Sizes[(Axis + 1)..]}, "right-aligned
such that any leading 1 values from the input sizes are cropped", with "the original rank of InputTensor +
IndexDimensions - 1" relevant dimensions, which "must be less than or equal to the DimensionCount of
OutputTensor" (DirectMLX's dml::Gather computes the same Sizes). The page gives IndexDimensions the range
"[0, IndicesTensor.DimensionCount)", but its own example 1 (a 1-dimensional gather) uses IndexDimensions =
DimensionCount, as DirectMLX allows, so dmlops allows up to DimensionCount. (The page's example 3, Axis 1 and
IndexDimensions 2 on {3, 2} with {1, 2} indices, breaks its own "original rank + IndexDimensions - 1" rule;
it describes IndexDimensions 1.) DirectML agrees with these rules on its vectors ({1, 3, 4, 5} gathered
along Axis 1 with {1, 1, 2, 3} indices and IndexDimensions 2 gives {2, 3, 4, 5}).
"""
from __future__ import annotations

import numpy as np

from ..errors import Problem
from ..sample import Sample, td
from . import _elementwise as ew
from . import _indexing as ix
from . import _layout as L

FORMULA = ("{1..., InputTensor.Sizes[0 .. Axis] without leading 1s, IndicesTensor.Sizes[-IndexDimensions ..], "
           "InputTensor.Sizes[Axis + 1 ..]}")


def check(desc, level) -> list[Problem]:
    """Axis in range; IndexDimensions <= IndicesTensor's DimensionCount with leading 1s before them; the
    right-aligned OutputTensor Sizes."""
    x = L.sizes(L.tensor(desc, "InputTensor"))
    out = L.axis_problems(desc, desc.axis, len(x)) if x else []
    indices, found = L.meaningful_sizes(desc, "IndicesTensor", "IndexDimensions", desc.index_dimensions, low=0)
    out += found
    if not x or indices is None or out:
        return out
    before = x[:desc.axis]
    while before and before[0] == 1:
        before = before[1:]  # the original rank of InputTensor: its leading 1s are cropped
    return L.right_aligned_problems(desc, "OutputTensor", FORMULA, before + indices + x[desc.axis + 1:])


# ----------------------------------------------------------------------------------------------- lowerings
def _addresses(desc) -> ix.Addresses:
    return ix.along_axis(desc.input_tensor.sizes, desc.axis, desc.indices_tensor.element_count)


def reference(desc, x):
    """InputTensor read at the flat addresses of the gathered elements."""
    a = ix.reference_addresses(_addresses(desc), x["IndicesTensor"])
    return {"OutputTensor": ix.reference_gather(x["InputTensor"], a).reshape(desc.output_tensor.sizes)}


def to_onnx(desc, g, x):
    """One flat Gather by the int64 addresses."""
    a = ix.onnx_addresses(_addresses(desc), g, x["IndicesTensor"])
    return {"OutputTensor": g.node("Reshape", [ix.onnx_gather(g, x["InputTensor"], a),
                                               g.ints(desc.output_tensor.sizes)])}


def to_torch(desc, torch, x):
    """index_select on the flat tensor by the int64 addresses."""
    a = ix.torch_addresses(_addresses(desc), torch, x["IndicesTensor"])
    return {"OutputTensor": ix.torch_gather(torch, x["InputTensor"], a).reshape(desc.output_tensor.sizes)}


# ----------------------------------------------------------------------------------------------- samples
def _gather(data_type, in_sizes, index_type, index_sizes, out_sizes, axis, index_dimensions, in_strides=None):
    from ..descs import Gather

    return Gather(input_tensor=td(data_type, in_sizes, in_strides), indices_tensor=td(index_type, index_sizes),
                  output_tensor=td(data_type, out_sizes), axis=axis, index_dimensions=index_dimensions)


EXACT = dict(atol=0, rtol=0, why="elements are copied, never computed")


def _samples():
    f32 = np.float32
    x32 = np.array([[1, 2], [3, 4], [5, 6]], f32)
    x3 = np.arange(1, 10, dtype=f32).reshape(1, 3, 3)
    out = [
        # The docs' examples 1 to 5, outputs copied from the page (example 3 with IndexDimensions 1, which is what
        # its shapes describe: see the module docstring).
        Sample("docs_1d", _gather("FLOAT32", [4], "UINT32", [5], [5], 0, 1),
               {"InputTensor": np.array([11, 12, 13, 14], f32), "IndicesTensor": np.array([3, 1, 3, 0, 2], np.uint32)},
               {"OutputTensor": np.array([14, 12, 14, 11, 13], f32)}, **EXACT),
        Sample("docs_rows", _gather("FLOAT32", [3, 2], "UINT32", [1, 4], [4, 2], 0, 1),
               {"InputTensor": x32, "IndicesTensor": np.array([[0, 1, 1, 2]], np.uint32)},
               {"OutputTensor": np.array([[1, 2], [3, 4], [3, 4], [5, 6]], f32)}, **EXACT),
        Sample("docs_swap_columns", _gather("FLOAT32", [3, 2], "UINT32", [1, 2], [3, 2], 1, 1),
               {"InputTensor": x32, "IndicesTensor": np.array([[1, 0]], np.uint32)},
               {"OutputTensor": np.array([[2, 1], [4, 3], [6, 5]], f32)}, **EXACT),
        Sample("docs_nested_axis2", _gather("FLOAT32", [1, 3, 3], "UINT32", [1, 1, 2], [3, 1, 2], 2, 2),
               {"InputTensor": x3, "IndicesTensor": np.array([[[0, 2]]], np.uint32)},
               {"OutputTensor": np.array([[[1, 3]], [[4, 6]], [[7, 9]]], f32)}, **EXACT),
        Sample("docs_nested_axis1", _gather("FLOAT32", [1, 3, 2], "UINT32", [1, 2, 2], [2, 2, 2], 1, 2),
               {"InputTensor": x32.reshape(1, 3, 2), "IndicesTensor": np.array([[[0, 1], [1, 2]]], np.uint32)},
               {"OutputTensor": np.array([[[1, 2], [3, 4]], [[3, 4], [5, 6]]], f32)}, **EXACT),
        # Negative INT32 indices count from the end (-1 = 2, -3 = 0); IndexDimensions 0: one scalar index drops
        # the dimension ({2, 3} -> {2} read at column -1 = 2: [3, 6]).
        Sample("negative_int32", _gather("FLOAT32", [3, 2], "INT32", [1, 3], [3, 2], 0, 1),
               {"InputTensor": x32, "IndicesTensor": np.array([[-1, -3, 1]], np.int32)},
               {"OutputTensor": np.array([[5, 6], [1, 2], [3, 4]], f32)}, **EXACT),
        Sample("scalar_index", _gather("FLOAT32", [2, 3], "INT64", [1, 1], [1, 2], 1, 0),
               {"InputTensor": np.array([[1, 2, 3], [4, 5, 6]], f32), "IndicesTensor": np.array([[-1]], np.int64)},
               {"OutputTensor": np.array([[3, 6]], f32)}, **EXACT),
        # Out of range (DirectML's vector GATHER-float32_out_of_range_indices): addresses past the tensor read its
        # last element, 6, as index 3 of rows {0, 1, 2} does. UINT64 2**64 - 1 is read as INT64 -1 (DirectML's
        # vector GATHER-sample_out_of_range): the last row, [5, 6].
        Sample("out_of_range", _gather("FLOAT32", [3, 2], "UINT64", [1, 3], [3, 2], 0, 1),
               {"InputTensor": x32, "IndicesTensor": np.array([[0, 3, 2**64 - 1]], np.uint64)},
               {"OutputTensor": np.array([[1, 2], [6, 6], [5, 6]], f32)}, **EXACT),
        # Broadcast input (zero strides): row [10, 20, 30] read as {2, 3}; columns 2, 0.
        Sample("broadcast_input", _gather("FLOAT32", [2, 3], "UINT32", [1, 2], [2, 2], 1, 1, in_strides=[0, 1]),
               {"InputTensor": np.array([10, 20, 30], f32),
                "IndicesTensor": np.array([[2, 0]], np.uint32)},
               {"OutputTensor": np.array([[30, 10], [30, 10]], f32)}, **EXACT),
        # Bits survive: NaN payloads, -0.0, inf (FLOAT32) and float64 values float32 cannot hold.
        Sample("float_bits", _gather("FLOAT32", [4], "UINT32", [4], [4], 0, 1),
               {"InputTensor": np.array([0x7FC01234, 0x80000000, 0xFFC00001, 0x7F800000], np.uint32).view(f32),
                "IndicesTensor": np.array([2, 1, 0, 3], np.uint32)},
               {"OutputTensor": np.array([0xFFC00001, 0x80000000, 0x7FC01234, 0x7F800000], np.uint32).view(f32)},
               float16=False, **EXACT),
        Sample("float64", _gather("FLOAT64", [3], "INT64", [2], [2], 0, 1),
               {"InputTensor": np.array([1 / 3, -0.0, 1e300]), "IndicesTensor": np.array([2, -2], np.int64)},
               {"OutputTensor": np.array([1e300, -0.0])}, **EXACT),
    ]
    for t in ew.INTEGERS:
        lo, hi = ew.int_range(np.dtype(t.lower()))
        # Row 1 then row 0 of [[lo, hi], [1, -1 as the type]] along Axis 0.
        x = ew.int_array([[lo, hi], [1, 0]], t)
        out.append(Sample(f"int_{t.lower()}", _gather(t, [2, 2], "UINT32", [1, 2], [2, 2], 0, 1),
                          {"InputTensor": x, "IndicesTensor": np.array([[1, 0]], np.uint32)},
                          {"OutputTensor": ew.int_array([[1, 0], [lo, hi]], t)}, **EXACT))
    return out


SAMPLES = _samples()
