"""A small ONNX graph builder for the op lowerings (``to_onnx(desc, g, x)``).

It names values, tracks each value's NumPy dtype, holds constants as initializers and emits one
ModelProto with a pinned IR version and opset: the newest ``onnx`` writes IR versions that
released onnxruntime builds refuse.
"""
from __future__ import annotations

import numpy as np

from ..types import DataType

OPSET = 18
IR_VERSION = 8  # ONNX 1.13, the IR that goes with opset 18


class OnnxGraph:
    """Values are names (str); ``dtype(v)`` is a value's NumPy dtype.

    ``upcast_float16``: FLOAT16 tensors are computed in float32 (ONNX Runtime's CPU provider has no
    float16 kernels for most operators); the compiled operator reports it.
    """

    def __init__(self, upcast_float16: bool = False):
        import onnx

        self._onnx = onnx
        self.upcast_float16 = upcast_float16
        self.nodes: list = []
        self.initializers: list = []
        self.inputs: list = []
        self.outputs: list = []
        self._dtypes: dict[str, np.dtype] = {}
        self._count = 0

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
