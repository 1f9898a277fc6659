"""The HTML report in a real browser: headless Chromium (Debian's ``chromium``) loads the demo's
report, its DOM has the four charts and the tables, and a screenshot shows the charts drawn in
the palette's colours (decoded from the PNG here, stdlib only).
"""

from __future__ import annotations

import shutil
import struct
import subprocess
import zlib
from pathlib import Path

import pytest

from tests.golden.cases import GOLDEN

pytestmark = pytest.mark.e2e
REPORT = GOLDEN / "demo" / "report" / "report.html"
BROWSER = next(
    (p for p in map(shutil.which, ("chromium", "chromium-browser", "google-chrome")) if p), None
)
needs_browser = pytest.mark.skipif(BROWSER is None, reason="no Chromium (apt-get install chromium)")
FLAGS = ("--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars", "--mute-audio")


def run_browser(*args: str) -> subprocess.CompletedProcess[str]:
    assert BROWSER is not None
    return subprocess.run(
        [BROWSER, *FLAGS, *args], capture_output=True, text=True, timeout=120, check=True
    )


def png_pixels(data: bytes) -> tuple[int, int, list[bytes]]:
    """Width, height and RGB(A) rows of an 8-bit, non-interlaced PNG."""
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    position, chunks, header = 8, [], b""
    while position < len(data):
        (length,) = struct.unpack(">I", data[position : position + 4])
        kind = data[position + 4 : position + 8]
        body = data[position + 8 : position + 8 + length]
        if kind == b"IHDR":
            header = body
        elif kind == b"IDAT":
            chunks.append(body)
        position += 12 + length
    width, height, depth, color, _, _, interlace = struct.unpack(">IIBBBBB", header)
    assert depth == 8 and interlace == 0 and color in (2, 6)
    channels = 4 if color == 6 else 3
    raw = zlib.decompress(b"".join(chunks))
    stride = width * channels
    rows: list[bytes] = []
    previous = bytearray(stride)
    for y in range(height):
        start = y * (stride + 1)
        kind, line = raw[start], bytearray(raw[start + 1 : start + 1 + stride])
        for i in range(stride):
            left = line[i - channels] if i >= channels else 0
            up = previous[i]
            corner = previous[i - channels] if i >= channels else 0
            if kind == 1:
                line[i] = (line[i] + left) & 0xFF
            elif kind == 2:
                line[i] = (line[i] + up) & 0xFF
            elif kind == 3:
                line[i] = (line[i] + (left + up) // 2) & 0xFF
            elif kind == 4:
                guess = left + up - corner
                pa, pb, pc = abs(guess - left), abs(guess - up), abs(guess - corner)
                best = left if pa <= pb and pa <= pc else up if pb <= pc else corner
                line[i] = (line[i] + best) & 0xFF
        rows.append(bytes(line))
        previous = line
    colours = [bytes(r[i : i + 3]) for r in rows for i in range(0, stride, channels)]
    return width, height, colours


@needs_browser
def test_report_dom_has_its_charts_and_tables():
    dom = run_browser("--dump-dom", REPORT.as_uri()).stdout
    assert dom.count("<svg") == 4
    for title in (
        "Leader imbalance ratio per broker",
        "Partitions led per broker",
        "Leader elections per hour, by trigger",
        "Partitions without a leader",
    ):
        assert f">{title}</text>" in dom, title
    for table in ("unclean-table", "broker-table", "rebalance-table", "controller-table"):
        assert f'id="{table}"' in dom, table
    assert "audit-0" in dom and "threshold 10 %" in dom


@needs_browser
def test_report_screenshot_shows_the_charts(tmp_path: Path):
    shot = tmp_path / "report.png"
    run_browser("--window-size=1100,2600", f"--screenshot={shot}", REPORT.as_uri())
    width, height, pixels = png_pixels(shot.read_bytes())
    assert (width, height) == (1100, 2600)
    seen = set(pixels)
    assert len(seen) > 50  # text, cards, charts: far from a blank page
    palette = {bytes.fromhex(c) for c in ("0072B2", "E69F00", "009E73", "D55E00", "C0392B")}
    assert len(palette & seen) >= 4  # the series colours and the threshold line are drawn
