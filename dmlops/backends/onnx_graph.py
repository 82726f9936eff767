"""A small ONNX graph builder for the op lowerings (``to_onnx(desc, g, x)``).

It names values, tracks each value's NumPy dtype, holds constants as initializers and emits one
ModelProto with a pinned IR version and opset: the newest ``onnx`` writes IR versions that
released onnxruntime builds refuse.
"""
from __future__ import annotations

import numpy as np

from ..errors import DmlOpsError
from ..types import DataType

OPSET = 18
IR_VERSION = 8  # ONNX 1.13, the IR that goes with opset 18

# The most bytes of constants (initializers) one model may hold. Protobuf cannot write a message of 2 GiB or more,
# and each constant byte is held three or four times while a session is made (the NumPy array, the TensorProto, the
# serialized model, ONNX Runtime's copy), so half that limit: a model over it is refused before the constant is
# copied into it, with the sizes; work that big is generated in the graph (FILL_VALUE_SEQUENCE) or read from inputs.
MAX_CONSTANT_BYTES = 1 << 30


def size_text(nbytes: int) -> str:
    """``nbytes`` with its binary unit: "2147483648 bytes (2.0 GiB)"."""
    for unit, scale in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if nbytes >= scale:
            return f"{nbytes} bytes ({nbytes / scale:.1f} {unit})"
    return f"{nbytes} bytes"


class ConstantsTooLarge(DmlOpsError):
    """A model would hold more than MAX_CONSTANT_BYTES of constants; the backend adds the operator's name."""


class OnnxGraph:
    """Values are names (str); ``dtype(v)`` is a value's NumPy dtype.

    ``upcast_float16``: FLOAT16 tensors are computed in float32 (ONNX Runtime's CPU provider has no
    float16 kernels for most operators); the compiled operator reports it.
    ``provider``: the ONNX Runtime device kind the model is built for ("cpu", "cuda" or "dml"), for the few
    lowerings whose exact form differs by provider (dmlops/ops/_integer_linear.py: DirectML's own integer
    kernels on "dml", float64 products elsewhere).
    """

    def __init__(self, upcast_float16: bool = False, provider: str = "cpu"):
        import onnx

        self._onnx = onnx
        self.upcast_float16 = upcast_float16
        self.provider = provider
        self.nodes: list = []
        self.initializers: list = []
        self.inputs: list = []
        self.outputs: list = []
        self._dtypes: dict[str, np.dtype] = {}
        self._count = 0
        self.constant_bytes = 0  # what the initializers hold so far

    def check_constant(self, nbytes: int, what: str = "a constant") -> None:
        """Raise ConstantsTooLarge if ``nbytes`` more of constants would put the model over MAX_CONSTANT_BYTES; call
        it before computing a large constant, so that it is never allocated."""
        total = self.constant_bytes + int(nbytes)
        if total > MAX_CONSTANT_BYTES:
            raise ConstantsTooLarge(
                f"its ONNX model would hold {size_text(total)} of constants ({what}: {size_text(int(nbytes))}); the "
                f"onnxruntime backend builds models with at most {size_text(MAX_CONSTANT_BYTES)} of constants "
                "(protobuf cannot write a model of 2 GiB).")

    # values -----------------------------------------------------------------------------------
    def fresh(self, hint: str = "v") -> str:
        """A new unique value name."""
        self._count += 1
        return f"{hint}_{self._count}"

    def dtype(self, value: str) -> np.dtype:
        """The NumPy dtype of a value."""
        return self._dtypes[value]

    def compute_dtype(self, data_type: DataType) -> np.dtype:
        """The dtype a tensor of ``data_type`` is computed in (float32 for FLOAT16 when upcasting)."""
        if self.upcast_float16 and data_type == DataType.FLOAT16:
            return np.dtype(np.float32)
        return data_type.numpy_dtype

    def elem_type(self, dtype) -> int:
        """The onnx.TensorProto element type of a NumPy dtype."""
        return self._onnx.helper.np_dtype_to_tensor_dtype(np.dtype(dtype))

    # building ---------------------------------------------------------------------------------
    def input(self, name: str, dtype, shape) -> str:
        """Declare a graph input; ``shape`` entries may be strings (symbolic)."""
        self.inputs.append(self._onnx.helper.make_tensor_value_info(name, self.elem_type(dtype), list(shape)))
        self._dtypes[name] = np.dtype(dtype)
        return name

    def output(self, value: str, name: str, shape) -> str:
        """Expose ``value`` as graph output ``name`` of ``shape`` (an Identity node renames it when needed)."""
        if value != name:
            self.nodes.append(self._onnx.helper.make_node("Identity", [value], [name]))
            self._dtypes[name] = self._dtypes[value]
        self.outputs.append(self._onnx.helper.make_tensor_value_info(name, self.elem_type(self._dtypes[name]), list(shape)))
        return name

    def const(self, value, dtype=None) -> str:
        """An initializer holding ``value`` (array or scalar) as ``dtype`` (default: the value's own)."""
        array = np.asarray(value, dtype=dtype)
        self.check_constant(array.nbytes, f"a {array.dtype} constant of shape {list(array.shape)}")
        self.constant_bytes += array.nbytes
        name = self.fresh("c")
        self.initializers.append(self._onnx.numpy_helper.from_array(array, name))
        self._dtypes[name] = array.dtype
        return name

    def constant_value(self, value: str):
        """The array of initializer ``value``, or None when ``value`` is computed by a node or is an input."""
        for init in self.initializers:
            if init.name == value:
                return self._onnx.numpy_helper.to_array(init)
        return None

    def scalar(self, value, like: str) -> str:
        """A 0-d constant with the dtype of value ``like``."""
        return self.const(np.asarray(value, dtype=self.dtype(like)))

    def ints(self, values) -> str:
        """An int64 1-D constant (shapes, axes, pads)."""
        return self.const(np.asarray(list(values), dtype=np.int64))

    def node(self, op_type: str, inputs, *, outputs: int = 1, dtype=None, domain: str = "", **attrs):
        """Add a node; return its output name (or a tuple when ``outputs`` > 1).

        Outputs take ``dtype`` when given, else the dtype of the first input. ``""`` or None in
        ``inputs`` marks an omitted optional input.
        """
        inputs = ["" if i is None else i for i in inputs]
        names = [self.fresh(op_type.lower()) for _ in range(outputs)]
        out_dtype = np.dtype(dtype) if dtype is not None else self._dtypes[next(i for i in inputs if i)]
        attrs = {k: v for k, v in attrs.items() if v is not None}
        self.nodes.append(self._onnx.helper.make_node(op_type, inputs, names, domain=domain or None, **attrs))
        for n in names:
            self._dtypes[n] = out_dtype
        return names[0] if outputs == 1 else tuple(names)

    def cast(self, value: str, dtype) -> str:
        """``value`` as ``dtype`` (no node when it already is)."""
        dtype = np.dtype(dtype)
        if self.dtype(value) == dtype:
            return value
        return self.node("Cast", [value], dtype=dtype, to=self.elem_type(dtype))

    def model(self):
        """The ModelProto (checked by onnx.checker)."""
        h = self._onnx.helper
        graph = h.make_graph(self.nodes, "dmlops", self.inputs, self.outputs, self.initializers)
        model = h.make_model(graph, opset_imports=[h.make_opsetid("", OPSET)], producer_name="dmlops")
        model.ir_version = IR_VERSION
        self._onnx.checker.check_model(model)
        return model
