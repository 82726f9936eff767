"""Models exported from PyTorch for the ``dmlops check`` tests: torchvision's resnet18 and mobilenet_v3_small built
without weights, an LSTM model and a transformer encoder layer (TorchScript exporter, ``dynamo=False``).

torchvision on PyPI is a CUDA build: beside the CPU build of torch its C extension does not load, and torchvision
0.28's ``import torchvision`` then fails registering a fake kernel for ``torchvision::nms`` ("operator
torchvision::nms does not exist"). :func:`import_torchvision` declares the schemas of the two operators that import
needs (``nms``, ``qnms``; nothing here calls them) and imports again; the models themselves are torchvision's own
code, unchanged.
"""
from __future__ import annotations

import importlib
import sys


def import_torchvision():
    """torchvision, importable beside a CPU build of torch whose ABI its C extension does not match."""
    try:
        return importlib.import_module("torchvision")
    except RuntimeError as e:
        if "torchvision::nms does not exist" not in str(e):
            raise
    import torch

    for name in [m for m in sys.modules if m == "torchvision" or m.startswith("torchvision.")]:
        del sys.modules[name]
    lib = torch.library.Library("torchvision", "DEF")  # schemas only: the meta registrations need them to exist
    lib.define("nms(Tensor dets, Tensor scores, float iou_threshold) -> Tensor")
    lib.define("qnms(Tensor dets, Tensor scores, float iou_threshold) -> Tensor")
    import_torchvision.library = lib  # type: ignore[attr-defined]  # keep the fragment alive
    return importlib.import_module("torchvision")


def export(module, example, path, opset: int) -> str:
    """``module`` exported to ``path`` at ``opset`` (TorchScript exporter, constant folding on)."""
    import torch

    module.eval()
    with torch.no_grad():
        torch.onnx.export(module, (example,), str(path), opset_version=opset, dynamo=False)
    return str(path)


def lstm_model():
    """A 2-layer LSTM over 16 features and a linear head on the last step."""
    import torch

    class Net(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.lstm = torch.nn.LSTM(16, 32, num_layers=2, batch_first=True)
            self.head = torch.nn.Linear(32, 4)

        def forward(self, x):
            y, _ = self.lstm(x)
            return self.head(y[:, -1])

    return Net(), torch.randn(2, 10, 16)


def encoder_layer():
    """One transformer encoder layer (d_model 64, 4 heads); PyTorch's fused fast path off so it exports as ops."""
    import torch

    class Net(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.layer = torch.nn.TransformerEncoderLayer(d_model=64, nhead=4, dim_feedforward=128, dropout=0.0,
                                                          batch_first=True)

        def forward(self, x):
            return self.layer(x, is_causal=False)

    return Net(), torch.randn(2, 10, 64)


def export_all(folder) -> dict[str, str]:
    """Every test model exported into ``folder``: name (``resnet18_13``) -> path."""
    import torch

    tv = import_torchvision()
    torch.manual_seed(0)
    image = torch.randn(1, 3, 224, 224)
    out = {}
    fast = torch.backends.mha.get_fastpath_enabled()
    torch.backends.mha.set_fastpath_enabled(False)
    try:
        for opset in (13, 17):
            out[f"resnet18_{opset}"] = export(tv.models.resnet18(weights=None), image, folder / f"resnet18_{opset}.onnx",
                                              opset)
            out[f"mobilenet_v3_small_{opset}"] = export(tv.models.mobilenet_v3_small(weights=None), image,
                                                        folder / f"mobilenet_v3_small_{opset}.onnx", opset)
            net, x = lstm_model()
            out[f"lstm_{opset}"] = export(net, x, folder / f"lstm_{opset}.onnx", opset)
        for opset in (14, 17):  # scaled_dot_product_attention exports from opset 14 on
            net, x = encoder_layer()
            out[f"encoder_{opset}"] = export(net, x, folder / f"encoder_{opset}.onnx", opset)
    finally:
        torch.backends.mha.set_fastpath_enabled(fast)
    return out
