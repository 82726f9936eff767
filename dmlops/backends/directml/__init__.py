"""The native DirectML backend: pure ctypes over DirectML, D3D12 and DXGI / DXCore, loaded on first use."""
