"""A run started from the web page's form, followed live: its narration streams in as rendered
Markdown, its tool calls open to show their arguments, output and diff, and the model's own
HTML is shown as text."""

from __future__ import annotations

import threading
from typing import Any

import pytest

from taor.testing import ToolCall, text, tool_calls

from ..test_runs_api import create, until
from .conftest import Tab, Web

pytestmark = [pytest.mark.slow, pytest.mark.asyncio(loop_scope="module")]


def held(reply: Any) -> tuple[Any, threading.Event]:
    """A model step that answers only once released (the page is watching by then)."""
    release = threading.Event()

    def step(_request: Any) -> Any:
        release.wait(30)
        return reply

    return step, release


async def test_a_run_started_from_the_form_streams_its_narration(tab: Tab, web: Web) -> None:
    narration = "# Plan\n\nI will **greet** you, then stop.\n\n- one\n- two\n\nHello from `the model`."
    step, release = held(text(narration, chunk=8))
    web.served.model.push(step)
    page = tab.page
    await page.goto(tab.url + "/")
    tab.secrets.append("not-a-token")
    await page.fill("#token", "not-a-token")
    await page.click("#sign-in-form button")
    await page.wait_for_selector("#sign-in-error:not([hidden])")
    await tab.sign_in()
    await page.fill("#prompt", "Say hello")
    await page.click("#start")
    await page.wait_for_url("**/runs/run*")
    await page.wait_for_selector("#stream-state.live")
    release.set()
    await page.wait_for_selector(".narration h1:text('Plan')")
    await page.wait_for_selector("#status.status-finished")
    block = page.locator(".narration")
    assert await block.count() == 1
    assert await block.locator("strong").inner_text() == "greet"
    assert await block.locator("li").all_inner_texts() == ["one", "two"]
    assert await block.locator("code").inner_text() == "the model"
    assert await page.locator(".msg.user .msg-text").inner_text() == "Say hello"
    await tab.screenshot("finished-run-light")
    await page.click(".back")
    item = page.locator(".run-item").first
    await item.locator(".badge.status-finished").wait_for()
    assert await item.locator(".run-prompt").inner_text() == "Say hello"
    assert await item.locator(".run-model").inner_text() == "openai-compat:m"
    assert await item.locator(".run-user").inner_text() == "admin"
    await tab.screenshot("runs-light")
    sent = {h.get("authorization") for h in tab.api_headers}
    assert sent == {"Bearer not-a-token", f"Bearer {web.served.admin}"}  # on every API call
