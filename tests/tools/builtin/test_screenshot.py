"""take_screenshot with a real headless Chromium against pages served on 127.0.0.1."""

from __future__ import annotations

import asyncio
import http.server
import os
import shutil
import socket
import struct
import threading
import zlib
from collections.abc import Iterator
from pathlib import Path

import pytest

from taor.llm.types import ImagePart
from taor.tools.base import Tool, ToolContext
from taor.tools.builtin.screenshot import TakeScreenshotTool
from taor.tools.registry import ToolRegistry

CHROMIUM = shutil.which("chromium")
needs_chromium = pytest.mark.skipif(
    CHROMIUM is None, reason="needs Chromium: apt-get install chromium"
)
_RED_PAGE = b"<html><body style='margin:0;background:#ff0000'></body></html>"


class _RedPage(http.server.BaseHTTPRequestHandler):
    def do_GET(self) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "text/html")
        self.send_header("Content-Length", str(len(_RED_PAGE)))
        self.end_headers()
        self.wfile.write(_RED_PAGE)

    def log_message(self, format: str, *args: object) -> None:
        pass


@pytest.fixture
def red_page_url() -> Iterator[str]:
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _RedPage)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}/"
    server.shutdown()
    server.server_close()


@pytest.fixture
def silent_server() -> Iterator[socket.socket]:
    """A listening socket that takes connections (in its backlog) and never answers."""
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen(16)
        yield listener


@pytest.fixture
def silent_url(silent_server: socket.socket) -> str:
    return f"http://127.0.0.1:{silent_server.getsockname()[1]}/"


def _was_connected(listener: socket.socket) -> bool:
    """True when a client connected to ``listener`` (a connection waits in its backlog)."""
    listener.setblocking(False)
    try:
        connection, _ = listener.accept()
    except BlockingIOError:
        return False
    connection.close()
    return True


def _paeth(a: int, b: int, c: int) -> int:
    p = a + b - c
    pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
    return a if pa <= pb and pa <= pc else (b if pb <= pc else c)


def _unfilter(kind: int, line: bytearray, prev: bytes, bpp: int) -> bytes:
    for i in range(len(line)):
        a = line[i - bpp] if i >= bpp else 0
        c = prev[i - bpp] if i >= bpp else 0
        pred = (0, a, prev[i], (a + prev[i]) // 2, _paeth(a, prev[i], c))[kind]
        line[i] = (line[i] + pred) & 0xFF
    return bytes(line)


def _pixels(png: bytes) -> tuple[int, int, list[bytes]]:
    """Width, height and RGB pixels of an 8-bit RGB/RGBA PNG (small images only)."""
    pos, idat, header = 8, b"", b""
    while pos < len(png):
        (length,) = struct.unpack(">I", png[pos : pos + 4])
        kind, body = png[pos + 4 : pos + 8], png[pos + 8 : pos + 8 + length]
        header = body if kind == b"IHDR" else header
        idat += body if kind == b"IDAT" else b""
        pos += 12 + length
    width, height, depth, color = struct.unpack(">IIBB", header[:10])
    assert depth == 8 and color in (2, 6)
    bpp, raw = (3 if color == 2 else 4), zlib.decompress(idat)
    stride, prev, pixels = width * bpp, bytes(width * (3 if color == 2 else 4)), []
    for y in range(height):
        row = raw[y * (stride + 1) : (y + 1) * (stride + 1)]
        prev = _unfilter(row[0], bytearray(row[1:]), prev, bpp)
        pixels += [prev[i * bpp : i * bpp + 3] for i in range(width)]
    return width, height, pixels


def _live_processes_mentioning(text: str) -> list[str]:
    found = []
    for proc in Path("/proc").iterdir():
        try:
            cmdline = (proc / "cmdline").read_bytes()
            state = (proc / "stat").read_text().rsplit(")", 1)[1].split()[0]
        except OSError:
            continue
        if text.encode() in cmdline and state not in ("Z", "X"):
            found.append(proc.name)
    return found


def test_is_a_read_only_tool() -> None:
    tool = TakeScreenshotTool()
    assert isinstance(tool, Tool)
    assert tool.name == "take_screenshot" and tool.read_only
    ToolRegistry([tool])  # the schema compiles


async def test_missing_chromium_says_how_to_install(tmp_path: Path) -> None:
    tool = TakeScreenshotTool(chromium=str(tmp_path / "no-chromium"))
    out = await tool.execute({"url": "http://127.0.0.1:9/"}, ToolContext())
    assert out.is_error
    assert "not installed" in out.text and "apt-get install chromium" in out.text


@pytest.mark.parametrize("url", ["file:///etc/passwd", "FILE:///tmp/index.html"])
async def test_file_urls_are_refused(url: str) -> None:
    out = await TakeScreenshotTool().execute({"url": url}, ToolContext())
    assert out.is_error and "file://" in out.text and "http.server" in out.text


@pytest.mark.parametrize("url", ["javascript:alert(1)", "127.0.0.1:8000/x", "http:///x"])
async def test_other_non_http_urls_are_refused(url: str) -> None:
    out = await TakeScreenshotTool().execute({"url": url}, ToolContext())
    assert out.is_error and "http:// or https://" in out.text


@needs_chromium
async def test_screenshot_of_a_red_page(red_page_url: str, tmp_path: Path) -> None:
    tool = TakeScreenshotTool(chromium=CHROMIUM or "", temp_root=str(tmp_path))
    # 90 s: Chromium shares two cores with three test workers (it once took over 30 s in CI)
    args = {"url": red_page_url, "width": 64, "height": 48, "timeout": 90}
    out = await tool.execute(args, ToolContext())
    assert not out.is_error, out.text
    assert out.text.startswith(f"Screenshot of {red_page_url} at 64x48")
    image = out.content[1]
    assert isinstance(image, ImagePart) and image.media_type == "image/png"
    assert image.data is not None and image.data.startswith(b"\x89PNG\r\n\x1a\n")
    width, height, pixels = _pixels(image.data)
    assert (width, height) == (64, 48)
    red = sum(1 for r, g, b in pixels if r > 200 and g < 50 and b < 50)
    assert red >= 0.9 * len(pixels)
    assert os.listdir(tmp_path) == []  # the temporary profile is gone


@needs_chromium
async def test_timeout_stops_chromium(
    silent_server: socket.socket, silent_url: str, tmp_path: Path
) -> None:
    tool = TakeScreenshotTool(chromium=CHROMIUM or "", temp_root=str(tmp_path))
    # 5 s: time enough for Chromium to start and connect on a busy machine
    out = await tool.execute({"url": silent_url, "timeout": 5}, ToolContext())
    assert out.is_error and "within 5 s" in out.text and "was stopped" in out.text
    assert _was_connected(silent_server)  # stopped while it waited for the page
    assert _live_processes_mentioning(str(tmp_path)) == []
    assert os.listdir(tmp_path) == []


@needs_chromium
async def test_cancellation_stops_chromium(silent_url: str, tmp_path: Path) -> None:
    tool = TakeScreenshotTool(chromium=CHROMIUM or "", temp_root=str(tmp_path))
    context = ToolContext()
    asyncio.get_running_loop().call_later(1.0, context.cancelled.set)
    out = await tool.execute({"url": silent_url, "timeout": 60}, context)
    assert out.is_error and "cancelled" in out.text
    assert _live_processes_mentioning(str(tmp_path)) == []
    assert os.listdir(tmp_path) == []


@needs_chromium
async def test_cancelling_the_task_stops_chromium(silent_url: str, tmp_path: Path) -> None:
    tool = TakeScreenshotTool(chromium=CHROMIUM or "", temp_root=str(tmp_path))
    task = asyncio.create_task(tool.execute({"url": silent_url, "timeout": 60}, ToolContext()))
    await asyncio.sleep(1.0)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert _live_processes_mentioning(str(tmp_path)) == []
    assert os.listdir(tmp_path) == []
