"""DML_OPERATOR_CAST: each element converted to OutputTensor's DataType.

The DirectML page gives no conversion rules. dmlops uses these, and every backend applies them explicitly
(ONNX Cast and torch's .to() leave out-of-range conversions undefined):
* to a float type: IEEE round to nearest even; overflow gives ±inf (70000 -> FLOAT16 inf);
* float to integer: truncation toward zero (1.9 -> 1, -1.9 -> -1), as ONNX, torch, C, and DirectML's own
  CLIP page ("truncating toward zero") do; out-of-range values saturate to the type's range and NaN gives 0,
  as Direct3D's float-to-integer conversion (ftoi/ftou) does;
* integer to integer: the value when it fits, else saturated (300 -> INT8 127, -1 -> UINT8 0).
Out-of-range behaviour on DirectML hardware is unverified.
"""
from __future__ import annotations

import numpy as np

from ..sample import Sample, td
from . import _elementwise as ew


def reference(desc, x):
    """``saturating_cast`` of the input to the output's dtype."""
    return {"OutputTensor": ew.saturating_cast(x["InputTensor"], desc.output_tensor.data_type.numpy_dtype)}


def to_onnx(desc, g, x):
    """ONNX Cast, with Clip/Min/Max first where the target cannot hold every input value."""
    return {"OutputTensor": ew.onnx_saturating_cast(g, x["InputTensor"], desc.output_tensor.data_type.numpy_dtype)}


def to_torch(desc, torch, x):
    """Tensor.to, with a clamp first where the target cannot hold every input value."""
    from ..backends.torch import torch_dtype

    return {"OutputTensor": ew.torch_saturating_cast(torch, x["InputTensor"],
                                                     torch_dtype(torch, desc.output_tensor.data_type))}


def _samples():
    from ..descs import Cast

    def sample(name, src, dst, values, expected, **kw):
        v = np.array(values, dtype=np.dtype(src.lower()))
        y = np.array(expected, dtype=np.dtype(dst.lower()))
        desc = Cast(input_tensor=td(src, [len(values)]), output_tensor=td(dst, [len(values)]))
        return Sample(name, desc, {"InputTensor": v}, {"OutputTensor": y}, atol=0, rtol=0, why="exact", **kw)

    inf, nan = np.inf, np.nan
    return [
        # 0.1 -> 1638/16384 = 0.0999755859375 (nearest half); 65520 and 70000 overflow to inf; 1e-8 is below
        # half the smallest subnormal (2**-25) and flushes to -0.
        sample("float32_to_float16", "FLOAT32", "FLOAT16", [1, 0.1, 65504, 65520, -70000, -1e-8],
               [1, 0.0999755859375, 65504, inf, -inf, -0.0], float16=False),
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
        # 70000 overflows FLOAT16; 2049 ties between 2048 and 2050 and goes to the even 2048.
        sample("int64_to_float16", "INT64", "FLOAT16", [70000, 2049, -2051, 3], [inf, 2048, -2052, 3]),
        sample("uint64_to_float32", "UINT64", "FLOAT32", [2**64 - 1, 2**63, 1], [2.0**64, 2.0**63, 1]),
        sample("int32_to_int8_out_of_range", "INT32", "INT8", [300, -300, 127, -128], [127, -128, 127, -128]),
        sample("uint32_to_int32", "UINT32", "INT32", [2**32 - 1, 2**31, 5, 0], [2**31 - 1, 2**31 - 1, 5, 0]),
        sample("int8_to_uint8", "INT8", "UINT8", [-1, -128, 5, 127], [0, 0, 5, 127]),
        sample("uint64_to_int64", "UINT64", "INT64", [2**64 - 1, 2**63, 1, 2**63 - 1], [2**63 - 1, 2**63 - 1, 1,
                                                                                      2**63 - 1]),
        sample("int64_to_uint64", "INT64", "UINT64", [-1, 2**63 - 1, 0, -2**63], [0, 2**63 - 1, 0, 0]),
        sample("uint16_to_int16", "UINT16", "INT16", [65535, 32768, 32767, 1], [32767, 32767, 32767, 1]),
        sample("int16_to_uint32", "INT16", "UINT32", [-32768, -1, 32767, 0], [0, 0, 32767, 0]),
        sample("uint8_to_int64", "UINT8", "INT64", [255, 0, 128, 1], [255, 0, 128, 1]),
        Sample("strided", Cast(input_tensor=td("FLOAT32", [2, 3], [1, 2]), output_tensor=td("INT32", [2, 3])),
               {"InputTensor": np.array([1.5, 4.5, -2.5, 5.5, 3.5, -6.5], np.float32)},
               {"OutputTensor": np.array([[1, -2, 3], [4, 5, -6]], np.int32)}, atol=0, rtol=0, why="exact"),
    ]


SAMPLES = _samples()
