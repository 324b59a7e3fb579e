"""What the model writes cannot become markup on the page, and the page holds together in the
dark theme and on a phone-sized screen."""

from __future__ import annotations

import random
from typing import Any

import pytest

from taor.testing import Reply, ToolCall, text, tool_calls

from ..test_runs_api import create, until
from .conftest import PHONE, TO_BOTTOM, Tab, Web, assert_no_token_in, open_tab

pytestmark = [pytest.mark.slow, pytest.mark.asyncio(loop_scope="module")]

HOSTILE = (
    'Look: <script>window.pwned = 1</script> and <img src=x onerror="window.pwned = 2">\n\n'
    "[click](javascript:window.pwned=3) and [fine](https://example.org/a_b?c=1&d=2)\n\n"
    '`<b onclick="x">`'
)

# Every element and attribute the renderer may write; a property of its output for any text.
ALLOWED = {
    "P": set(),
    "BR": set(),
    "HR": set(),
    "H1": set(),
    "H2": set(),
    "H3": set(),
    "H4": set(),
    "H5": set(),
    "H6": set(),
    "STRONG": set(),
    "EM": set(),
    "DEL": set(),
    "CODE": {"class"},
    "PRE": set(),
    "UL": set(),
    "OL": {"start"},
    "LI": set(),
    "BLOCKQUOTE": set(),
    "A": {"href", "rel", "target"},
}
PIECES = [
    "<", ">", "script", "img", " src=x", " onerror=", "alert(1)", '"', "'", "`", "```", "*",
    "**", "_", "[", "](", ")", "javascript:", "JaVaScRiPt:", "https://a.b/", "http://c.d/x_y",
    "data:text/html,", "#", "# ", "\n", "\n\n", "- ", "1. ", "> ", "&", "&lt;", "&#60;", "\u0000",
    "\r", "x", " ", "~~", "<svg onload=alert(1)>", "<a href=", "</code>", "<!--", "-->",
]  # fmt: skip
CHECK = """([texts, allowed]) => import('/static/markdown.js').then(({ renderMarkdown }) => {
  const bad = [];
  for (const text of texts) {
    const box = document.createElement('template');
    box.innerHTML = renderMarkdown(text);
    for (const node of box.content.querySelectorAll('*')) {
      const names = allowed[node.tagName];
      if (!names) { bad.push([text, node.tagName]); continue; }
      for (const attr of node.attributes) {
        if (!names.includes(attr.name)) bad.push([text, `${node.tagName}[${attr.name}]`]);
      }
      if (node.tagName === 'A' && !/^https?:\\/\\//i.test(node.getAttribute('href'))) {
        bad.push([text, node.getAttribute('href')]);
      }
    }
  }
  return bad;
})"""


async def test_html_in_the_model_text_is_shown_as_text(tab: Tab, web: Web) -> None:
    web.served.model.push(text(HOSTILE))
    await tab.sign_in()
    async with web.served.client(web.served.admin) as client:
        run = await create(client, "be hostile")
        await until(client, run["id"], "finished")
    page = tab.page
    await page.goto(f"{tab.url}/runs/{run['id']}")
    narration = page.locator(".narration")
    await narration.wait_for()
    shown = await narration.inner_text()
    assert "<script>window.pwned = 1</script>" in shown
    assert '<img src=x onerror="window.pwned = 2">' in shown
    assert "[click](javascript:window.pwned=3)" in shown
    assert await page.evaluate("window.pwned") is None
    assert await narration.locator("script, img, [onclick], [onerror]").count() == 0
    links = narration.locator("a")
    assert await links.count() == 1
    assert await links.get_attribute("href") == "https://example.org/a_b?c=1&d=2"
    assert await narration.locator("code").inner_text() == '<b onclick="x">'


async def test_the_renderer_writes_only_its_own_markup_for_any_text(tab: Tab) -> None:
    await tab.page.goto(tab.url + "/")  # any page of the service: the module loads from it
    chance = random.Random(20)
    texts = ["".join(chance.choices(PIECES, k=chance.randint(1, 40))) for _ in range(600)]
    allowed = {tag: sorted(names) for tag, names in ALLOWED.items()}
    assert await tab.page.evaluate(CHECK, [texts, allowed]) == []


async def no_sideways_scroll(page: Any) -> bool:
    result: bool = await page.evaluate(
        "document.documentElement.scrollWidth <= document.documentElement.clientWidth"
    )
    return result


async def test_the_dark_theme_and_a_phone_sized_screen(tab: Tab, web: Web) -> None:
    long_url = "https://example.org/" + "very-long-path-segment/" * 8
    narration = (
        "## What I found\n\nThe build fails in `src/app/handlers/registration_form_validation.py`:"
        f" see {long_url}\n\n```python\n"
        + "result = compute(" + ", ".join(f"argument_{n}" for n in range(30)) + ")\n```\n\n"
        "1. Fix the validator\n2. Run **the tests** again"
    )  # fmt: skip
    read = ToolCall(name="shell", arguments={"command": "ls -la && echo " + "x" * 160})
    write = ToolCall(
        name="write_file",
        arguments={"path": "src/app/config.py", "content": "DEBUG = False\n" + "#" * 150 + "\n"},
    )
    web.served.model.push(
        Reply(text=narration, tool_calls=(read,)), tool_calls(write), text("All set.")
    )
    await tab.sign_in()
    async with web.served.client(web.served.admin) as client:
        run = await create(client, "Find why the build fails and fix the configuration")
        page = tab.page
        await page.goto(f"{tab.url}/runs/{run['id']}")
        await page.click(".permission.open button[data-decision=allow]")
        await page.locator(".permission.open:has-text('config.py')").wait_for()
        await page.locator("details.tool").first.locator("summary").click()
        assert await no_sideways_scroll(page)
        await tab.screenshot("run-light", full_page=False)
        for scheme in ("dark", "light"):
            phone = await open_tab(web, color_scheme=scheme, is_mobile=True, has_touch=True)
            phone.context.set_default_timeout(15000)
            try:
                await phone.sign_in()
                await phone.page.set_viewport_size(PHONE)
                assert await no_sideways_scroll(phone.page)
                await phone.screenshot(f"phone-runs-{scheme}", full_page=False)
                await phone.page.goto(f"{tab.url}/runs/{run['id']}")
                await phone.page.locator(".permission.open:has-text('config.py')").wait_for()
                await phone.page.locator("details.tool").first.locator("summary").click()
                assert await no_sideways_scroll(phone.page)
                await phone.page.evaluate(TO_BOTTOM)
                await phone.screenshot(f"phone-run-{scheme}", full_page=False)
            finally:
                await phone.context.close()
            assert_no_token_in(phone.urls, phone.secrets)
            assert phone.errors == []
        dark = await open_tab(web, color_scheme="dark")
        try:
            await dark.sign_in()
            await dark.page.goto(f"{tab.url}/runs/{run['id']}")
            await dark.page.locator(".permission.open:has-text('config.py')").wait_for()
            await dark.page.locator("details.tool").first.locator("summary").click()
            await dark.screenshot("run-dark", full_page=False)
            await dark.page.evaluate(TO_BOTTOM)
            await dark.screenshot("permission-prompt-dark", full_page=False)
            await dark.page.goto(tab.url + "/")
            await dark.page.locator(".run-item").first.wait_for()
            await dark.screenshot("runs-dark", full_page=False)
        finally:
            await dark.context.close()
        assert_no_token_in(dark.urls, dark.secrets)
        assert dark.errors == []
        await page.click(".permission.open button[data-decision=allow]")
        await tab.finished()
        await until(client, run["id"], "finished")
        await tab.screenshot("finished-run-with-tools-light")


SSE_WIRE = (
    ": a heartbeat\r\n\r\n"
    'id: 1\r\nevent: user_input\r\ndata: {"a": 1}\r\n\r\n'
    "id: 2\nevent: assistant_text_delta\ndata: line one\ndata: line two\n\n"
    "id: 3\revent: usage\rdata:no space\r\r"
    "data: no id or event\r\n\r\n"
)
SSE_SPLITS = """(wire) => import('/static/sse.js').then(({ SSEParser }) => {
  const read = (pieces) => {
    const parser = new SSEParser();
    return pieces.flatMap((piece) => parser.feed(piece));
  };
  const whole = read([wire]);
  const differ = [];
  for (let i = 0; i <= wire.length; i += 1) {
    for (const j of [i, i + 1, i + 7]) {
      const split = read([wire.slice(0, i), wire.slice(i, j), wire.slice(j)]);
      if (JSON.stringify(split) !== JSON.stringify(whole)) differ.push([i, j]);
    }
  }
  return { whole, differ };
})"""


async def test_the_stream_parser_reads_events_however_the_bytes_are_split(tab: Tab) -> None:
    await tab.page.goto(tab.url + "/")
    found = await tab.page.evaluate(SSE_SPLITS, SSE_WIRE)
    assert found["differ"] == []
    assert found["whole"] == [
        {"id": "1", "event": "user_input", "data": '{"a": 1}'},
        {"id": "2", "event": "assistant_text_delta", "data": "line one\nline two"},
        {"id": "3", "event": "usage", "data": "no space"},
        {"id": "3", "event": "message", "data": "no id or event"},  # the id is kept, per spec
    ]
