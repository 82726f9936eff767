"""What torch-directml runs on DirectML, and what dmlops refuses there before it can go wrong.

dmlops/data/torch_directml_ops.txt lists the aten overloads torch-directml 0.2.5.dev240914 registers (read from its
native module). An aten op missing there runs on the CPU with only a UserWarning ("... will fall back to run on the
CPU"); dmlops turns that warning into an error. Measured on real DirectML: torch-directml aborts the Python process
(not an exception) on uint16/uint32/uint64 tensors and on tensors of more than 5 dimensions, truncates int64 values
to 32 bits, and refuses 3-D convolution; most DirectML GPUs have no float64. Descriptors that would need any of
these are refused at compile time on a ``dml`` device, with the reason.
"""
from __future__ import annotations

import functools
from pathlib import Path

LIST = Path(__file__).resolve().parent.parent / "data" / "torch_directml_ops.txt"

MAX_RANK = 5
# DataTypes torch-directml cannot hold faithfully: it aborts on the unsigned ones and truncates 64-bit integers.
UNSUPPORTED = {"UINT16": "aborts the process on uint16 tensors", "UINT32": "aborts the process on uint32 tensors",
               "UINT64": "aborts the process on uint64 tensors",
               "INT64": "stores int64 tensors in 32 bits (values beyond int32 come back truncated)"}
FALLBACK = "fall back to run on the CPU"


@functools.cache
def registered() -> frozenset[str]:
    """The overload names torch-directml registers (``add.out``, ``relu``, ``where.self`` ...)."""
    lines = LIST.read_text(encoding="utf-8").splitlines()
    return frozenset(line.strip() for line in lines if line.strip() and not line.startswith("#"))


def _listed(base: str, overload: str) -> bool:
    have = registered()
    return f"{base}.{overload}" in have or (overload in ("", "default") and base in have)


def registers(func) -> bool:
    """Whether torch-directml registers a kernel of its own for the aten overload ``func`` (``convolution.default``
    is listed as ``convolution``)."""
    schema = func._schema
    return _listed(schema.name.removeprefix("aten::"), schema.overload_name)


def _inputs(schema) -> list[tuple[str, str]]:
    return [(a.name, str(a.type)) for a in schema.arguments if not a.is_out]


def runs_on_directml(func) -> bool:
    """Whether torch-directml runs the aten overload ``func`` (an OpOverload) on DirectML: it registers the overload
    itself, or the ``out=`` overload a functional or in-place op's structured kernel is registered as, or the op has
    a backend-independent (composite) kernel that decomposes into other ops there."""
    import torch

    schema = func._schema
    name = schema.name.removeprefix("aten::")
    if registers(func):
        return True
    qualified = f"{schema.name}.{schema.overload_name}" if schema.overload_name else schema.name
    if any(torch._C._dispatch_has_kernel_for_dispatch_key(qualified, key)
           for key in ("CompositeExplicitAutograd", "CompositeImplicitAutograd")):
        return True
    base = name.removesuffix("_")  # in-place add_ shares add.out
    packet = getattr(torch.ops.aten, base, None)
    if packet is None:
        return False
    want = _inputs(schema)
    for other in packet.overloads():
        s = getattr(packet, other)._schema
        if any(a.is_out for a in s.arguments) and _inputs(s) == want and _listed(base, other):
            return True
    return False


def descriptor_problems(graph) -> list[str]:
    """Why ``graph`` cannot run through torch-directml (empty when it can)."""
    from ..graph import slots

    out = []
    for node in graph.nodes:
        op = node.OPERATOR_TYPE
        for kind in ("input", "output"):
            for name, td in slots(node, kind):
                if td is None:
                    continue
                if td.data_type.name in UNSUPPORTED:
                    out.append(f"{op}.{name}: DataType {td.data_type.name}: torch-directml "
                               f"{UNSUPPORTED[td.data_type.name]}.")
                if td.dimension_count > MAX_RANK:
                    out.append(f"{op}.{name}: {td.dimension_count} dimensions: torch-directml aborts the process on "
                               f"tensors of more than {MAX_RANK} dimensions.")
        if op == "CONVOLUTION" and node.input_tensor is not None and node.input_tensor.dimension_count == 5:
            out.append(f"{op}.InputTensor: 3 spatial dimensions: torch-directml has no 3-D convolution.")
    return out


__all__ = ["registered", "registers", "runs_on_directml", "descriptor_problems", "FALLBACK", "MAX_RANK", "UNSUPPORTED"]


def recorder():
    """A TorchDispatchMode that records every aten overload a torch computation dispatches (``.ops``, in order), and
    the dtypes and ranks of the tensors it touches (``.dtypes``, ``.max_rank``). Ops that torch-directml runs only
    through a composite kernel are followed into that kernel, so what they decompose into is recorded too."""
    import torch
    from torch.utils._python_dispatch import TorchDispatchMode
    from torch.utils._pytree import tree_flatten

    explicit = torch._C.DispatchKey.CompositeExplicitAutograd

    class Recorder(TorchDispatchMode):
        def __init__(self) -> None:
            super().__init__()
            self.ops: list = []
            self.dtypes: set = set()
            self.max_rank = 0

        def _note(self, values):
            for v in tree_flatten(values)[0]:
                if isinstance(v, torch.Tensor):
                    self.dtypes.add(v.dtype)
                    self.max_rank = max(self.max_rank, v.dim())

        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            kwargs = kwargs or {}
            self.ops.append(func)
            self._note((args, kwargs))
            name = func._schema.name
            qualified = f"{name}.{func._schema.overload_name}" if func._schema.overload_name else name
            if not registers(func) and torch._C._dispatch_has_kernel_for_dispatch_key(qualified, "CompositeExplicitAutograd"):
                with self:
                    out = func._op_dk(explicit, *args, **kwargs)
            else:
                out = func(*args, **kwargs)
            self._note(out)
            return out

    return Recorder()


__all__ += ["recorder"]
