"""Reading a model for ``dmlops check`` without reading its weights, and refusing bad input in one line."""
from __future__ import annotations

import os
from pathlib import Path

from ..errors import DmlOpsError

# Protobuf cannot parse a message of 2 GiB or more; a model that large keeps its weights in external data files.
MAX_PROTO_BYTES = (1 << 31) - 1


class ModelInputError(DmlOpsError):
    """The input is not an ONNX model dmlops can check (missing, unreadable, not ONNX, truncated, too large)."""


def size_text(n: int) -> str:
    """``2.0 GiB``, ``3.1 MiB``, ``12 bytes``."""
    for unit, scale in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if n >= scale:
            return f"{n / scale:.1f} {unit}"
    return f"{n} bytes"


def load(path: str | os.PathLike):
    """The ModelProto in ``path``, its initializers' external data left unread (``load_external_data=False``).

    Raises ModelInputError with one line for a missing or unreadable file, a folder, a file of 2 GiB or more, and
    anything protobuf cannot parse as an ONNX ModelProto.
    """
    import onnx

    p = Path(path)
    try:
        st = p.stat()
    except OSError as e:
        raise ModelInputError(f"{path}: cannot read it ({e.strerror or e}).") from None
    if p.is_dir():
        raise ModelInputError(f"{path}: a folder, not a model file (the command line checks every .onnx file in a "
                              "folder).")
    if st.st_size > MAX_PROTO_BYTES:
        raise ModelInputError(f"{path}: {size_text(st.st_size)}; an ONNX model file holds at most 2 GiB (protobuf's "
                              "limit): a larger model keeps its weights in external data files.")
    try:
        with open(p, "rb") as f:
            data = f.read()
    except OSError as e:
        raise ModelInputError(f"{path}: cannot read it ({e.strerror or e}).") from None
    try:
        model = onnx.ModelProto()
        model.ParseFromString(data)
    except Exception as e:  # protobuf's DecodeError (google.protobuf.message, no type stubs here) and kin
        looks = data[:1] == b"\x08"  # field 1 (ir_version) as a varint: how every ONNX writer starts a model
        what = "a truncated or corrupt ONNX model" if looks else "not an ONNX model"
        raise ModelInputError(f"{path}: {what} ({size_text(len(data))} that protobuf cannot parse as an "
                              f"onnx.ModelProto: {type(e).__name__}).") from None
    check_parsed(model, str(path))
    return model


def check_parsed(model, label: str) -> None:
    """Refuse a ModelProto that parsed but is not a model: no IR version or no graph (what an empty file or
    arbitrary bytes can parse into)."""
    if not model.ir_version or not model.HasField("graph"):
        raise ModelInputError(f"{label}: not an ONNX model (no IR version or no graph).")


def external_data_notes(model, base: Path | None) -> list[str]:
    """Notes on initializers stored in external files: the files are looked at (size), never read."""
    import onnx

    notes: list[str] = []
    files: dict[str, int] = {}
    for t in _all_initializers(model.graph):
        if t.data_location != onnx.TensorProto.EXTERNAL:
            continue
        info = {e.key: e.value for e in t.external_data}
        location = info.get("location", "")
        files[location] = files.get(location, 0) + 1
        if base is None:
            continue
        target = base / location
        try:
            size = target.stat().st_size
        except OSError:
            notes.append(f"initializer {t.name!r}: its external data file {location!r} is missing; ONNX Runtime "
                         "cannot load the model without it")
            continue
        end = int(info.get("offset", 0) or 0) + int(info.get("length", 0) or 0)
        if end > size:
            notes.append(f"initializer {t.name!r}: {location!r} is {size_text(size)}, shorter than the "
                         f"{size_text(end)} the model points into")
    if files:
        notes.insert(0, f"weights in external data ({', '.join(f'{k!r}: {v} tensor(s)' for k, v in files.items())}) "
                        "were not read")
    return notes


def _all_initializers(graph):
    yield from graph.initializer
    for node in graph.node:
        for a in node.attribute:
            if a.type == 5:  # GRAPH
                yield from _all_initializers(a.g)
            elif a.type == 10:  # GRAPHS
                for g in a.graphs:
                    yield from _all_initializers(g)
