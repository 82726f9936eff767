"""Tensor data for execution: checking inputs against their TensorDesc, strided reads and writes.

A tensor field's value is either its *logical* array (shape == Sizes) or its *buffer*: a 1-D array
of the data type that DirectML would bind, read through Strides (zero strides broadcast, NHWC and
padding are expressed by strides). Nothing is ever cast: a value of another dtype is an error.

Packed tensors (no Strides, or Strides equal to the packed ones) travel through the backends as
logical arrays; a buffer is reshaped without a copy. Strided tensors travel as buffers and each
backend reads them through the strides itself (ONNX: Reshape/Transpose/Expand or Gather; torch:
``as_strided``), so the read happens where DirectML would do it. Strided outputs come back as
buffers laid out as declared; NumPy callers get a view of shape Sizes over that buffer.
"""
from __future__ import annotations

import numpy as np

from .errors import DmlOpsError
from .types import TensorDesc


def is_strided(td: TensorDesc) -> bool:
    """True when the tensor's Strides differ from packed ones (it then travels as a buffer)."""
    return td.strides is not None and tuple(td.strides) != td.packed_strides


def buffer_elements(td: TensorDesc) -> int:
    """Elements of the data type in a buffer of TotalTensorSizeInBytes."""
    return td.total_tensor_size_in_bytes * 8 // td.data_type.size_in_bits


def needed_elements(td: TensorDesc) -> int:
    """Elements the Sizes and Strides reach (the last element's offset + 1)."""
    strides = td.strides if td.strides is not None else td.packed_strides
    return sum((s - 1) * st for s, st in zip(td.sizes, strides)) + 1


def _describe(value) -> str:
    return f"{value.dtype} array of shape {tuple(value.shape)}"


def check_array(td: TensorDesc, value, path: str, *, dtype_name: str | None = None, shape=None, dtype=None) -> str:
    """Check an input's dtype and shape; return "logical" or "buffer". Raises DmlOpsError naming ``path``.

    ``shape``/``dtype``/``dtype_name`` let the torch backend pass a tensor's attributes.
    """
    shape = tuple(value.shape) if shape is None else tuple(shape)
    expected = td.data_type.numpy_dtype
    found = np.dtype(value.dtype) if dtype is None else dtype
    if found != expected:
        raise DmlOpsError(f"{path}: expected {td.data_type.name} data ({expected.name}); got {dtype_name or found}. "
                          "dmlops never casts inputs; convert the array first.")
    rng = td.data_type.four_bit_range
    if rng is not None and value.size and bool(((value < rng[0]) | (value > rng[1])).any()):
        raise DmlOpsError(f"{path}: {td.data_type.name} holds {rng[0]} to {rng[1]}; the array has values outside "
                          f"that range (min {value.min()}, max {value.max()}).")
    if shape == tuple(td.sizes):
        return "logical"
    if len(shape) == 1:
        if shape[0] < needed_elements(td):
            raise DmlOpsError(f"{path}: a buffer of {shape[0]} elements is too small; Sizes {list(td.sizes)} and "
                              f"Strides {list(td.strides or td.packed_strides)} reach {needed_elements(td)} elements.")
        return "buffer"
    raise DmlOpsError(f"{path}: shape {shape} matches neither Sizes {list(td.sizes)} nor a 1-D buffer "
                      f"of at least {needed_elements(td)} elements.")


def numpy_input(td: TensorDesc, value, path: str) -> np.ndarray:
    """A NumPy input in the form its backend expects: logical for packed tensors, a buffer for strided ones."""
    if not isinstance(value, np.ndarray):
        if np.isscalar(value) or isinstance(value, (list, tuple)):
            raise DmlOpsError(f"{path}: expected a NumPy array; got {type(value).__name__}. "
                              f"Use numpy.asarray(value, dtype=numpy.{td.data_type.numpy_dtype.name}).")
        raise DmlOpsError(f"{path}: expected a NumPy array; got {type(value).__name__}.")
    # Whatever the caller's layout (every other element, negative strides, a broadcast_to view), the input is the
    # values the array represents: strided reads below index a C-ordered copy, never the caller's memory layout.
    value = np.ascontiguousarray(value)
    form = check_array(td, value, path)
    if not is_strided(td):
        if form == "buffer":
            value = value[: td.element_count].reshape(td.sizes)
        return value
    if form == "buffer":
        return value
    return logical_to_buffer(td, value, path)


def logical_to_buffer(td: TensorDesc, logical: np.ndarray, path: str) -> np.ndarray:
    """Write a logical array into a zero-filled buffer through the Strides.

    Where strides overlap (zero strides broadcast one buffer element to many logical ones) the
    logical values must agree, or the array cannot be the read of any buffer.
    """
    buffer = np.zeros(max(buffer_elements(td), needed_elements(td)), dtype=td.data_type.numpy_dtype)
    view = strided_view(td, buffer)
    view[...] = logical
    if not np.array_equal(view, logical, equal_nan=True):
        raise DmlOpsError(f"{path}: Strides {list(td.strides or td.packed_strides)} make several elements share one buffer element, "
                          "but the array's values there differ; pass the 1-D buffer instead.")
    return buffer


def strided_view(td: TensorDesc, buffer: np.ndarray) -> np.ndarray:
    """The logical view (shape Sizes) of a 1-D buffer read through the Strides."""
    strides = td.strides if td.strides is not None else td.packed_strides
    item = buffer.itemsize
    return np.lib.stride_tricks.as_strided(buffer, shape=td.sizes, strides=[s * item for s in strides])


def read(td: TensorDesc, value: np.ndarray) -> np.ndarray:
    """The logical values of an input already in its backend form (see ``numpy_input``)."""
    if is_strided(td):
        return np.ascontiguousarray(strided_view(td, value))
    return value


def write(td: TensorDesc, logical: np.ndarray) -> np.ndarray:
    """An output's buffer: zeros where no element lands, the logical values through the Strides."""
    buffer = np.zeros(max(buffer_elements(td), needed_elements(td)), dtype=td.data_type.numpy_dtype)
    strided_view(td, buffer)[...] = logical
    return buffer


def reinterpret(frm: TensorDesc, to: TensorDesc, value: np.ndarray) -> np.ndarray:
    """The logical value (Sizes of ``to``) that a consumer reading through ``to`` sees in the buffer that
    ``frm``'s producer wrote with the logical ``value``: a graph edge's reshape, broadcast or transpose."""
    if not is_strided(frm) and not is_strided(to) and frm.element_count == to.element_count:
        return value.reshape(to.sizes)
    buffer = write(frm, value)
    if buffer.size < needed_elements(to):  # the producer's byte size was rounded up past its last element
        buffer = np.concatenate([buffer, np.zeros(needed_elements(to) - buffer.size, buffer.dtype)])
    return np.ascontiguousarray(strided_view(to, buffer))


def to_bytes(td: TensorDesc, value: np.ndarray) -> bytes:
    """The bytes DirectML reads for an input in its backend form (logical when packed, buffer when strided):
    UINT4 / INT4 two elements to a byte, the first in the low nibble (DML_TENSOR_DATA_TYPE_UINT4), an odd tail
    nibble 0."""
    a = np.ascontiguousarray(value, dtype=td.data_type.numpy_dtype).reshape(-1)
    if td.data_type.four_bit_range is None:
        return a.tobytes()
    nibbles = a.view(np.uint8) & 0x0F
    if nibbles.size % 2:
        nibbles = np.concatenate([nibbles, np.zeros(1, np.uint8)])
    return (nibbles[0::2] | (nibbles[1::2] << 4)).astype(np.uint8).tobytes()


def from_bytes(td: TensorDesc, raw: bytes | np.ndarray) -> np.ndarray:
    """A tensor's backend form (logical when packed, the 1-D buffer when strided) from the bytes of its
    TotalTensorSizeInBytes; UINT4 / INT4 unpacked as ``to_bytes`` packs them, INT4 sign-extended."""
    count = buffer_elements(td)
    if td.data_type.four_bit_range is None:
        flat = np.frombuffer(raw, td.data_type.numpy_dtype, count=count).copy()
    else:
        packed = np.frombuffer(raw, np.uint8, count=(count + 1) // 2)
        nibbles = np.stack([packed & 0x0F, packed >> 4], axis=1).reshape(-1)[:count]
        flat = (nibbles.astype(np.int8) ^ 8) - 8 if td.data_type.four_bit_range[0] < 0 else nibbles
        flat = flat.astype(td.data_type.numpy_dtype)
    if is_strided(td):
        need = needed_elements(td)
        return flat if flat.size >= need else np.concatenate([flat, np.zeros(need - flat.size, flat.dtype)])
    return flat[: td.element_count].reshape(td.sizes)


def numpy_output(td: TensorDesc, value: np.ndarray) -> np.ndarray:
    """What a NumPy caller gets: shape Sizes; for strided outputs a view over the declared buffer layout."""
    if is_strided(td):
        return strided_view(td, value)
    return value


def output_problem(td: TensorDesc) -> str | None:
    """Why an output tensor cannot be written (strides that make outputs overlap), or None."""
    if td.strides is not None and any(st == 0 and s > 1 for s, st in zip(td.sizes, td.strides)):
        return f"Strides {list(td.strides)} broadcast (zero stride); an output's elements cannot share memory."
    return None


def permuted_layout(td: TensorDesc):
    """How to read a strided tensor with Reshape/Transpose/Expand instead of a gather, or None.

    Returns ``(span, packed_shape, perm, kept_shape)``: the buffer's first ``span`` elements reshape
    to ``packed_shape`` (the non-broadcast dimensions, outermost stride first), ``perm`` transposes
    them back into Sizes order, ``kept_shape`` re-inserts size-1 broadcast dimensions before Expand.
    """
    strides = td.packed_strides if td.strides is None else td.strides
    dims = [i for i, (s, st) in enumerate(zip(td.sizes, strides)) if s > 1 and st > 0]
    order = sorted(dims, key=lambda i: -strides[i])
    step = 1
    for i in reversed(order):
        if strides[i] != step:
            return None
        step *= td.sizes[i]
    packed_shape = [td.sizes[i] for i in order] or [1]
    perm = [order.index(i) for i in dims] if order else [0]
    kept_shape = [s if i in dims else 1 for i, s in enumerate(td.sizes)]
    return step, packed_shape, perm, kept_shape


def gather_indices(td: TensorDesc) -> np.ndarray:
    """Buffer offsets of every logical element (shape Sizes), for a general strided read."""
    offsets = np.zeros(td.sizes, dtype=np.int64)
    strides = td.packed_strides if td.strides is None else td.strides
    for axis, (size, stride) in enumerate(zip(td.sizes, strides)):
        shape = [1] * len(td.sizes)
        shape[axis] = size
        offsets = offsets + (np.arange(size, dtype=np.int64) * stride).reshape(shape)
    return offsets


__all__ = ["is_strided", "buffer_elements", "needed_elements", "check_array", "numpy_input", "logical_to_buffer",
           "strided_view", "read", "write", "reinterpret", "to_bytes", "from_bytes", "numpy_output", "output_problem", "permuted_layout", "gather_indices"]
