"""The ``take_screenshot`` tool: a PNG of an http(s) URL, taken with headless Chromium.

Chromium (Debian package ``chromium``) runs as a subprocess of the host, not through the
environment: it reads a URL, not files. It gets a fresh profile in a temporary directory, the
flags that keep it off the network beyond the page itself, and its own process group, which is
killed when the timeout passes or the call is cancelled. ``file://`` and other schemes are refused
(serve the page instead); a missing binary is an error that says how to install it.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import shutil
import tempfile
from collections.abc import Mapping
from dataclasses import field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from taor._records import frozen
from taor.env.process_group import kill_group
from taor.llm.types import ImagePart, TextPart
from taor.tools.base import ToolContext, ToolOutput
from taor.tools.effects import Effects, string_field, text_argument

DEFAULT_CHROMIUM = "/usr/bin/chromium"
DEFAULT_WIDTH, DEFAULT_HEIGHT = 1280, 800
_PNG_MAGIC = b"\x89PNG\r\n\x1a\n"
_STDERR_TAIL = 800
_KILL_GRACE = 1.0

SCREENSHOT_PARAMETERS: Mapping[str, Any] = {
    "type": "object",
    "properties": {
        "url": {
            "type": "string",
            "description": "The http(s) URL to load, e.g. http://127.0.0.1:8000/index.html.",
        },
        "width": {"type": "integer", "minimum": 16, "maximum": 4096, "description": "Pixels."},
        "height": {"type": "integer", "minimum": 16, "maximum": 4096, "description": "Pixels."},
        "timeout": {
            "type": "number",
            "exclusiveMinimum": 0,
            "description": "Seconds before Chromium is stopped (default 30, at most 120).",
        },
    },
    "required": ["url"],
    "additionalProperties": False,
}


def chromium_args(binary: str, url: str, size: tuple[int, int], workdir: Path) -> list[str]:
    """The command line: headless, a fresh profile, no background traffic, one screenshot."""
    return [
        binary,
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--hide-scrollbars",
        f"--user-data-dir={workdir / 'profile'}",
        f"--window-size={size[0]},{size[1]}",
        f"--screenshot={workdir / 'screenshot.png'}",
        url,
    ]


def url_problem(url: str) -> str | None:
    """Why ``url`` cannot be loaded, or None when it is an http(s) URL with a host."""
    parts = urlsplit(url.strip())
    if parts.scheme == "file":
        return (
            f"take_screenshot does not open file:// URLs ({url!r}). Serve the page over HTTP "
            "instead, e.g. run `python3 -m http.server 8000 --bind 127.0.0.1` in the background "
            "from its directory, then pass http://127.0.0.1:8000/<path>."
        )
    if parts.scheme not in ("http", "https") or not parts.netloc:
        return f"take_screenshot needs an http:// or https:// URL with a host; got {url!r}."
    return None


def _missing_chromium(binary: str) -> str | None:
    if os.path.isfile(binary) and os.access(binary, os.X_OK):
        return None
    return (
        f"Chromium is not installed (no executable at {binary}). Install it with "
        "`apt-get install chromium` (Debian/Ubuntu), then take the screenshot again."
    )


async def _wait(proc: asyncio.subprocess.Process, seconds: float, cancelled: asyncio.Event) -> str:
    """Wait for ``proc``: "exited", "timeout" or "cancelled" (the group is then killed)."""
    done = asyncio.ensure_future(proc.wait())
    stop = asyncio.ensure_future(cancelled.wait())
    try:
        await asyncio.wait({done, stop}, timeout=seconds, return_when=asyncio.FIRST_COMPLETED)
    finally:
        stop.cancel()
        if not done.done():
            done.cancel()
            await asyncio.shield(kill_group(proc, grace=_KILL_GRACE))
    if done.cancelled():
        return "cancelled" if cancelled.is_set() else "timeout"
    return "exited"


def _stderr_tail(path: Path) -> str:
    with contextlib.suppress(OSError):
        return path.read_text(errors="replace")[-_STDERR_TAIL:].strip()
    return ""


@frozen
class TakeScreenshotTool:
    """Loads a URL in headless Chromium at ``chromium`` and returns the PNG as an image part.

    ``temp_root`` is where the per-call temporary directory goes (the system default if None).
    """

    name: str = "take_screenshot"
    description: str = (
        "Take a PNG screenshot of a web page (http or https URL, typically a page you serve "
        "from the workspace on 127.0.0.1) with headless Chromium, at width x height pixels "
        "(default 1280x800). file:// URLs are not supported: serve the files over HTTP."
    )
    parameters: Mapping[str, Any] = field(default_factory=lambda: SCREENSHOT_PARAMETERS)
    read_only: bool = True
    chromium: str = DEFAULT_CHROMIUM
    default_timeout: float = 30.0
    max_timeout: float = 120.0
    temp_root: str | None = None

    def effects(self, arguments: Mapping[str, Any]) -> Effects:
        return Effects(
            writes_elsewhere=False,
            subject_style="text",
            subjects=string_field(arguments, "url"),
            summary=text_argument(arguments, "url"),
        )

    async def execute(self, arguments: Mapping[str, Any], context: ToolContext) -> ToolOutput:
        url = str(arguments["url"]).strip()
        problem = url_problem(url) or _missing_chromium(self.chromium)
        if problem:
            return ToolOutput.error(problem)
        size = (
            int(arguments.get("width", DEFAULT_WIDTH)),
            int(arguments.get("height", DEFAULT_HEIGHT)),
        )
        timeout = min(float(arguments.get("timeout", self.default_timeout)), self.max_timeout)
        workdir = Path(tempfile.mkdtemp(prefix="taor-screenshot-", dir=self.temp_root))
        try:
            return await self._shoot(url, size, timeout, workdir, context)
        finally:
            await asyncio.to_thread(shutil.rmtree, workdir, True)

    async def _shoot(
        self, url: str, size: tuple[int, int], seconds: float, workdir: Path, context: ToolContext
    ) -> ToolOutput:
        log = workdir / "chromium.log"
        try:
            with log.open("wb") as err:
                proc = await asyncio.create_subprocess_exec(
                    *chromium_args(self.chromium, url, size, workdir),
                    stdin=asyncio.subprocess.DEVNULL,
                    stdout=err,
                    stderr=err,
                    start_new_session=True,
                )
        except OSError as exc:
            return ToolOutput.error(f"Chromium could not be started ({self.chromium}): {exc}")
        ended = await _wait(proc, seconds, context.cancelled)
        if ended == "cancelled":
            return ToolOutput.error("The screenshot was cancelled; Chromium was stopped.")
        if ended == "timeout":
            return ToolOutput.error(
                f"Chromium did not finish loading {url} within {seconds:g} s and was stopped. "
                "Check that the server answers (e.g. with `curl -sI`), or pass a longer timeout."
            )
        return self._result(url, size, workdir, proc.returncode)

    def _result(
        self, url: str, size: tuple[int, int], workdir: Path, code: int | None
    ) -> ToolOutput:
        png = workdir / "screenshot.png"
        data = png.read_bytes() if png.is_file() else b""
        if not data.startswith(_PNG_MAGIC):
            tail = _stderr_tail(workdir / "chromium.log")
            return ToolOutput.error(
                f"Chromium (exit code {code}) wrote no screenshot of {url}."
                + (f" Its last output:\n{tail}" if tail else "")
            )
        text = f"Screenshot of {url} at {size[0]}x{size[1]} ({len(data)} bytes, PNG)."
        meta = {"url": url, "width": size[0], "height": size[1], "bytes": len(data)}
        return ToolOutput.of(
            (TextPart(text=text), ImagePart(data=data, media_type="image/png")), metadata=meta
        )
