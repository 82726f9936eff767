"""DML_OPERATOR_CAST: each element converted to OutputTensor's DataType.

The DirectML page gives no conversion rules; DirectML's vectors (CAST edge_*) do, and every backend applies them
explicitly (ONNX Cast and torch's .to() leave out-of-range conversions undefined; see ew.convert):
* to FLOAT32: IEEE round to nearest even (INT32 16777219 -> 16777220);
* to FLOAT16: through float32, then toward zero (dmlops.lower stores every FLOAT16 result so): 65520 and 70000 ->
  65504 (not inf), the ties 2051 -> 2050 and 1 + 3 * 2**-11 -> 1 + 2**-10, 2**-25 -> 0; ±inf and NaN stay;
* float to integer: truncation toward zero (1.9 -> 1, -1.9 -> -1), saturated to the type's range, NaN giving 0;
* integer to integer: DirectML holds the value in a 32-bit register (64 bits when either type has 64), extended by
  the source's signedness, reads it with the target's signedness and saturates to the target's range. So casts
  between signed and unsigned types of 32 or 64 bits wrap (UINT32 4294967295 -> INT32 -1; INT64 -1 -> UINT64
  2**64 - 1; INT8 -1 -> UINT32 4294967295), narrowing saturates (INT32 300 -> INT8 127, UINT16 65535 -> INT16
  32767), and negative values to narrow unsigned types give the maximum (INT8 -1 -> UINT8 255, INT32 -300 ->
  UINT16 65535), where ONNX Runtime and torch wrap or saturate to 0.
"""
from __future__ import annotations

import numpy as np

from ..sample import Sample, td
from . import _elementwise as ew


def _target(desc):
    """The dtype to convert to: float32 for FLOAT16 (dmlops.lower rounds it toward zero into FLOAT16)."""
    dtype = desc.output_tensor.data_type.numpy_dtype
    return np.dtype(np.float32) if dtype == np.float16 else dtype


def reference(desc, x):
    """ew.convert of the input to the output's dtype."""
    return {"OutputTensor": ew.convert(x["InputTensor"], _target(desc))}


def to_onnx(desc, g, x):
    """ONNX Cast, with the conversions of ew.convert spelled out (Clip, Max/Min, equal-width casts)."""
    return {"OutputTensor": ew.onnx_convert(g, x["InputTensor"], _target(desc))}


def to_torch(desc, torch, x):
    """Tensor.to, with the conversions of ew.convert spelled out (clamp, int64 bit arithmetic)."""
    from ..backends.torch_dtypes import torch_dtype

    target = _target(desc)
    dtype = torch.float32 if target == np.float32 else torch_dtype(torch, desc.output_tensor.data_type)
    v = x["InputTensor"]
    if desc.input_tensor.data_type.name == "UINT32" and v.dtype == torch.int32 and dtype.is_floating_point:
        # UINT32 bits in torch-directml's int32 carrier: converted from their 16-bit halves, one rounding.
        return {"OutputTensor": ew.torch_uint32_bits_to_float(torch, v, dtype)}
    return {"OutputTensor": ew.torch_convert(torch, v, dtype)}


def _samples():
    from ..descs import Cast

    def sample(name, src, dst, values, expected, **kw):
        v = np.array(values, dtype=np.dtype(src.lower()))
        y = np.array(expected, dtype=np.dtype(dst.lower()))
        desc = Cast(input_tensor=td(src, [len(values)]), output_tensor=td(dst, [len(values)]))
        return Sample(name, desc, {"InputTensor": v}, {"OutputTensor": y}, atol=0, rtol=0, why="exact", **kw)

    inf, nan = np.inf, np.nan
    return [
        # Toward zero (DirectML's vector float32_to_float16): 0.1 -> 0.0999755859375; 65520 and 70000 -> 65504;
        # -1e-8 is below the smallest subnormal (2**-24) and gives -0.
        sample("float32_to_float16", "FLOAT32", "FLOAT16", [1, 0.1, 65504, 65520, -70000, -1e-8],
               [1, 0.0999755859375, 65504, 65504, -65504, -0.0], float16=False),
        sample("float16_to_float32", "FLOAT16", "FLOAT32", [0.5, -2, 65504, 2**-24], [0.5, -2, 65504, 2**-24]),
        # Truncation toward zero.
        sample("float32_to_int32", "FLOAT32", "INT32", [1.9, -1.9, 2.5, -2.5, 0.4, -0.0],
               [1, -1, 2, -2, 0, 0], float16=False),
        # Saturation: -1 -> 0, 255.9 -> 255, 256 and 300 and inf -> 255, NaN -> 0, -inf -> 0.
        sample("float32_to_uint8_out_of_range", "FLOAT32", "UINT8", [-1, 255.9, 256, 300, nan, inf, -inf, 7.7],
               [0, 255, 255, 255, 0, 255, 0, 7]),
        sample("float32_to_int8_out_of_range", "FLOAT32", "INT8", [-129, 127.5, -128.5, 1e4, -0.5, 100.25],
               [-128, 127, -128, 127, 0, 100]),
        # float32(1e19) = 9999999980506447872 fits UINT64; 2e19 and inf saturate to 2**64 - 1.
        sample("float32_to_uint64", "FLOAT32", "UINT64", [1e19, 2e19, -5, inf], [9999999980506447872, 2**64 - 1, 0,
                                                                                2**64 - 1], float16=False),
        sample("float32_to_int64", "FLOAT32", "INT64", [1e19, -1e19, 3.7, -2.0**63], [2**63 - 1, -2**63, 3, -2**63],
               float16=False),
        sample("float32_to_uint32", "FLOAT32", "UINT32", [4294967296.0, 4294967040.0, -0.9, 12.5],
               [2**32 - 1, 4294967040, 0, 12], float16=False),
        sample("float64_to_float32", "FLOAT64", "FLOAT32", [1 + 2**-30, 1e300, 2**-149, 0.1],
               [1, inf, 2**-149, np.float32(0.1)]),
        sample("float16_to_int16", "FLOAT16", "INT16", [65504, -65504, -3.75, 0.5], [32767, -32768, -3, 0]),
        # 2**24 + 1 has no float32: it rounds to the even neighbour 2**24.
        sample("int32_to_float32", "INT32", "FLOAT32", [2**24 + 1, -3, 0, 2**31 - 1], [2**24, -3, 0, 2**31]),
        # Toward zero: 70000 -> 65504; 2049 -> 2048 and -2051 -> -2050 (not to the even -2052).
        sample("int64_to_float16", "INT64", "FLOAT16", [70000, 2049, -2051, 3], [65504, 2048, -2050, 3]),
        sample("uint64_to_float32", "UINT64", "FLOAT32", [2**64 - 1, 2**63, 1], [2.0**64, 2.0**63, 1]),
        sample("int32_to_int8_out_of_range", "INT32", "INT8", [300, -300, 127, -128], [127, -128, 127, -128]),
        # Integer casts as DirectML's vectors show: equal widths wrap, narrowing saturates, a negative value read
        # as unsigned is above every narrower unsigned type (INT8 -1 -> 0xFFFFFFFF -> UINT8 255).
        sample("uint32_to_int32", "UINT32", "INT32", [2**32 - 1, 2**31, 5, 0], [-1, -2**31, 5, 0]),
        sample("int8_to_uint8", "INT8", "UINT8", [-1, -128, 5, 127], [255, 255, 5, 127]),
        sample("uint64_to_int64", "UINT64", "INT64", [2**64 - 1, 2**63, 1, 2**63 - 1], [-1, -2**63, 1, 2**63 - 1]),
        sample("int64_to_uint64", "INT64", "UINT64", [-1, 2**63 - 1, 0, -2**63], [2**64 - 1, 2**63 - 1, 0, 2**63]),
        sample("uint16_to_int16", "UINT16", "INT16", [65535, 32768, 32767, 1], [32767, 32767, 32767, 1]),
        sample("int16_to_uint32", "INT16", "UINT32", [-32768, -1, 32767, 0], [2**32 - 2**15, 2**32 - 1, 32767, 0]),
        sample("uint8_to_int64", "UINT8", "INT64", [255, 0, 128, 1], [255, 0, 128, 1]),
        Sample("strided", Cast(input_tensor=td("FLOAT32", [2, 3], [1, 2]), output_tensor=td("INT32", [2, 3])),
               {"InputTensor": np.array([1.5, 4.5, -2.5, 5.5, 3.5, -6.5], np.float32)},
               {"OutputTensor": np.array([[1, -2, 3], [4, 5, -6]], np.int32)}, atol=0, rtol=0, why="exact"),
    ]


SAMPLES = _samples()
