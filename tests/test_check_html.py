"""``dmlops check --html``: one self-contained page (no script, no external resource) with a bar per model, checked
by its markup and by rendering it in a real headless browser (Chromium from Debian's packages, where installed) and
measuring the bars in the screenshot (issue 21, part 3)."""
import shutil
import struct
import subprocess
import zlib
from html.parser import HTMLParser

import pytest

from dmlops.check import check_model
from dmlops.check.html import COLORS, page
from dmlops.check.report import BadModel, Verdict
from tests.check_models import gelu_between_relus, resize, unary


def reports():
    # 2 DirectML + 1 CPU fallback; 1 failing; 1 DirectML; and a file that could not be read.
    return [check_model(gelu_between_relus(), feature_level="5.0"), check_model(resize(), feature_level="5.0"),
            check_model(unary("Relu")), BadModel("broken.onnx", "not an ONNX model (3 bytes)")]


class Markup(HTMLParser):
    def __init__(self):
        super().__init__()
        self.tags, self.urls, self.bars = [], [], []

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        self.tags.append(tag)
        self.urls += [v for k, v in attrs if k in ("src", "href") and v and not v.startswith("#")]
        if a.get("class") == "bar":
            self.bars.append([])
        elif tag == "div" and a.get("class") in ("dml", "cpu", "fail", "fold") and self.bars:
            self.bars[-1].append((a["class"], float(a["style"].removeprefix("width:").removesuffix("%"))))


def test_the_page_is_self_contained_and_has_a_bar_per_model():
    text = page(reports(), title="check")
    m = Markup()
    m.feed(text)
    assert "script" not in m.tags and "link" not in m.tags and "img" not in m.tags
    assert m.urls == [] and "http://" not in text and "https://" not in text and "@import" not in text
    # One bar per readable model in the summary table, and again in its own section.
    assert len(m.bars) == 6
    gelu, res, relu = m.bars[0], m.bars[1], m.bars[2]
    assert [c for c, _ in gelu] == ["dml", "cpu"] and [round(w, 1) for _, w in gelu] == [66.7, 33.3]
    assert res == [("fail", 100.0)] and relu == [("dml", 100.0)]
    assert "not an ONNX model (3 bytes)" in text
    assert "the DirectML provider registers no Gelu kernel" in text  # the reason, in the node table
    assert "DML_FEATURE_LEVEL_6_4 (RESAMPLE3 from 6.4 (4D FLOAT32))" in text


def chromium() -> str:
    for name in ("chromium", "chromium-browser", "google-chrome"):
        found = shutil.which(name)
        if found:
            return found
    pytest.skip("no Chromium here (apt-get install chromium): the markup test above checks the page instead")


def render(html_path, tmp_path, *args):
    cmd = [chromium(), "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
           "--disable-component-update", "--disable-sync", "--no-first-run", "--hide-scrollbars",
           "--force-device-scale-factor=1", f"--user-data-dir={tmp_path / 'profile'}", *args, html_path.as_uri()]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=180)


def read_png(path) -> tuple[int, int, list[bytes]]:
    """(width, height, rows of RGB bytes) of an 8-bit, non-interlaced RGB or RGBA PNG."""
    data = path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    pos, idat, width = 8, b"", 0
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + length]
        if kind == b"IHDR":
            width, height, depth, color, _, _, interlace = struct.unpack(">IIBBBBB", body)
            assert depth == 8 and color in (2, 6) and interlace == 0
            channels = 3 if color == 2 else 4
        elif kind == b"IDAT":
            idat += body
        pos += 12 + length
    raw = zlib.decompress(idat)
    stride = width * channels
    rows, prev = [], bytearray(stride)
    for y in range(height):
        f, line = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - channels] if i >= channels else 0
            b, c = prev[i], prev[i - channels] if i >= channels else 0
            if f == 1:
                line[i] = (line[i] + a) & 255
            elif f == 2:
                line[i] = (line[i] + b) & 255
            elif f == 3:
                line[i] = (line[i] + (a + b) // 2) & 255
            elif f == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        prev = line
        rows.append(bytes(v for k, v in enumerate(line) if channels == 3 or k % 4 != 3))
    return width, height, rows


def runs(row: bytes, rgb: tuple[int, int, int]) -> list[int]:
    """Lengths of the horizontal runs of exactly ``rgb`` in a row of RGB bytes."""
    out, k = [], 0
    for x in range(0, len(row), 3):
        if tuple(row[x:x + 3]) == rgb:
            k += 1
        elif k:
            out.append(k)
            k = 0
    return out + ([k] if k else [])


def rgb(color: str) -> tuple[int, int, int]:
    return tuple(int(color[i:i + 2], 16) for i in (1, 3, 5))  # type: ignore[return-value]


def test_a_headless_browser_renders_the_bars_in_proportion(tmp_path):
    html_path = tmp_path / "check.html"
    html_path.write_text(page(reports(), title="check"), encoding="utf-8")
    dom = render(html_path, tmp_path, "--dump-dom")
    assert dom.returncode == 0, dom.stderr[-2000:]
    assert dom.stdout.count('class="bar"') == 6 and "broken.onnx" in dom.stdout
    shot = tmp_path / "check.png"
    done = render(html_path, tmp_path, f"--screenshot={shot}", "--window-size=1200,500")
    assert done.returncode == 0 and shot.is_file(), done.stderr[-2000:]
    width, height, rows = read_png(shot)
    assert (width, height) == (1200, 500)
    green, orange, red = rgb(COLORS[Verdict.DIRECTML]), rgb(COLORS[Verdict.CPU_FALLBACK]), rgb(COLORS[Verdict.FAILS])
    # The first bar drawn is the Gelu model's in the summary table: 2 of 3 nodes green, 1 orange, on one line.
    y = next(y for y, row in enumerate(rows) if any(r >= 150 for r in runs(row, green)))
    g, o = max(runs(rows[y], green)), max(runs(rows[y], orange))
    assert g + o in range(316, 321)  # the 320-pixel bar less its border
    assert abs(g / (g + o) - 2 / 3) < 0.01, (g, o)
    # The bar below it (the Resize model, failing at 5.0) is red all along.
    below = [max(runs(row, red), default=0) for row in rows[y + 16:y + 80]]
    assert max(below) >= 316
