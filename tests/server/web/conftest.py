"""The web page in headless Chromium (Debian's ``chromium``, driven by Playwright, never a
browser of Playwright's own), against the real service under uvicorn with the fake provider
server as its model. One service and one browser per module; each test gets a fresh browser
context, whose every request is recorded so the token can be shown never to be in a URL.

Screenshots go to a folder under the test run's temporary directory (printed), and are also
copied to ``$TAOR_WEB_SHOTS`` when it is set.
"""

from __future__ import annotations

import asyncio
import os
import shutil
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
import pytest_asyncio

from taor.testing import FakeProviderServer

from ..conftest import Served, serve

CHROMIUM = shutil.which("chromium")
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-domain-reliability",
]
TO_BOTTOM = "window.scrollTo(0, document.documentElement.scrollHeight)"
PHONE = {"width": 390, "height": 844}
DESKTOP = {"width": 1200, "height": 860}


@dataclass
class Web:
    served: Served
    browser: Any  # playwright's Browser
    shots: Path
    copies: Path | None

    def shot(self, name: str) -> Path:
        return self.shots / f"{name}.png"


@dataclass
class Tab:
    """A browser context and its page, with every URL it requested."""

    web: Web
    context: Any
    page: Any
    urls: list[str] = field(default_factory=list)
    fetches: list[tuple[str, dict[str, str]]] = field(default_factory=list)  # the API calls
    secrets: list[str] = field(default_factory=list)  # the tokens it was given
    errors: list[str] = field(default_factory=list)  # what the page's console reported

    @property
    def url(self) -> str:
        return self.web.served.url

    async def sign_in(self, token: str | None = None, *, at: str | None = None) -> None:
        """Open the runs page (of the service, or of ``at``) and sign in through its box."""
        token = token or self.web.served.admin
        self.secrets.append(token)
        await self.page.goto((at or self.url) + "/")
        await self.page.fill("#token", token)
        await self.page.click("#sign-in-form button")
        await self.page.wait_for_selector("#main:not([hidden])")

    async def finished(self) -> None:
        """Wait until the run on the page has finished and its stream has been read to its end."""
        await self.page.wait_for_selector("#status.status-finished")
        await self.page.wait_for_selector("#stream-state.ended", state="attached")

    async def screenshot(self, name: str, *, full_page: bool = True) -> None:
        await self.page.screenshot(path=self.web.shot(name), full_page=full_page)


@pytest_asyncio.fixture(loop_scope="module", scope="module")
async def web(tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[Web]:
    if CHROMIUM is None:
        pytest.skip("chromium is not installed (apt-get install chromium)")
    playwright = pytest.importorskip("playwright.async_api")
    root = tmp_path_factory.mktemp("web")
    shots = root / "screenshots"
    shots.mkdir()
    copies = Path(os.environ["TAOR_WEB_SHOTS"]) if os.environ.get("TAOR_WEB_SHOTS") else None
    with FakeProviderServer([]) as model:
        async with serve(root / "data", model) as served, playwright.async_playwright() as pw:
            browser = await pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
            try:
                yield Web(served=served, browser=browser, shots=shots, copies=copies)
            finally:
                await browser.close()
    print(f"\nscreenshots of the web page: {shots}")
    if copies is not None:
        copies.mkdir(parents=True, exist_ok=True)
        for png in shots.glob("*.png"):
            shutil.copy(png, copies / png.name)


class Relay:
    """A TCP relay on loopback in front of the service, to drop the network under a page:
    ``cut()`` breaks every connection open through it; new ones go through as before."""

    def __init__(self, target: str) -> None:
        self._port = int(target.rsplit(":", 1)[1])
        self._open: set[asyncio.StreamWriter] = set()
        self._server: asyncio.Server | None = None
        self.url = ""

    async def __aenter__(self) -> Relay:
        self._server = await asyncio.start_server(self._relay, "127.0.0.1", 0)
        self.url = f"http://127.0.0.1:{self._server.sockets[0].getsockname()[1]}"
        return self

    async def __aexit__(self, *exc: object) -> None:
        assert self._server is not None
        self._server.close()
        self.cut()
        await self._server.wait_closed()

    def cut(self) -> None:
        for writer in list(self._open):
            writer.transport.abort()
        self._open.clear()

    async def _relay(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        up_reader, up_writer = await asyncio.open_connection("127.0.0.1", self._port)
        self._open.update((writer, up_writer))
        await asyncio.gather(_pipe(reader, up_writer), _pipe(up_reader, writer))


async def _pipe(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    try:
        while data := await reader.read(65536):
            writer.write(data)
            await writer.drain()
    except (ConnectionError, RuntimeError):
        pass
    finally:
        writer.transport.abort()


async def open_tab(web: Web, **options: Any) -> Tab:
    context = await web.browser.new_context(viewport=DESKTOP, **options)
    tab = Tab(web=web, context=context, page=await context.new_page())

    def record(request: Any) -> None:
        tab.urls.append(request.url)
        if request.resource_type == "fetch":
            tab.fetches.append((request.url, dict(request.headers)))

    def console(message: Any) -> None:
        if message.type == "error" and "Failed to load resource" not in message.text:
            tab.errors.append(message.text)  # a CSP violation, say

    context.on("request", record)
    tab.page.on("console", console)
    tab.page.on("pageerror", lambda error: tab.errors.append(f"uncaught: {error}"))
    return tab


@pytest_asyncio.fixture(loop_scope="module")
async def tab(web: Web) -> AsyncIterator[Tab]:
    """A desktop-sized page in the light theme; after the test, no URL it asked for holds a
    token, and its console reported no error (a script's or a policy's)."""
    opened = await open_tab(web, color_scheme="light")
    try:
        yield opened
    finally:
        await opened.context.close()
        await stop_runs(web.served)  # a test that failed midway leaves no worker busy
    assert_no_token_in(opened.urls, opened.secrets)
    assert opened.errors == []


async def stop_runs(served: Served) -> None:
    async with served.client(served.admin) as client:
        for run in (await client.get("/runs", params={"limit": 200})).json()["runs"]:
            if run["status"] in ("queued", "running", "awaiting_permission"):
                await client.post(f"/runs/{run['id']}/cancel")


def assert_no_token_in(urls: list[str], secrets: list[str]) -> None:
    assert urls, "the page asked for nothing"
    for url in urls:
        for secret in secrets:
            assert secret not in url, f"a token is in a requested URL: {url}"
