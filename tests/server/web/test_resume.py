"""A run's page picks its stream up where it was: after a reload (the page replays the run and
shows each event once) and after the network drops mid-run (it reconnects with the number of
the last event it showed, and nothing is lost or shown twice)."""

from __future__ import annotations

import pytest

from taor.testing import Reply, ToolCall, text, tool_calls

from ..test_runs_api import create, until
from .conftest import Relay, Tab, Web

pytestmark = [pytest.mark.slow, pytest.mark.asyncio(loop_scope="module")]


async def shown(tab: Tab) -> dict[str, int]:
    """What the timeline holds, and how many of its items have a number shown twice."""
    counts: dict[str, int] = await tab.page.evaluate(
        """() => {
          const items = [...document.querySelectorAll('#timeline > *')];
          const seqs = items.map((n) => n.dataset.seq);
          return {
            narration: document.querySelectorAll('.narration').length,
            tools: document.querySelectorAll('details.tool').length,
            cards: document.querySelectorAll('.permission').length,
            prompts: document.querySelectorAll('.msg.user').length,
            twice: seqs.length - new Set(seqs).size,
          };
        }"""
    )
    return counts


LAST_SEQ = "Math.max(...[...document.querySelectorAll('#timeline > *')].map((n) => +n.dataset.seq))"


async def test_a_reload_mid_run_resumes_the_stream_with_no_duplicate(tab: Tab, web: Web) -> None:
    first = ToolCall(name="shell", arguments={"command": "echo first"})
    web.served.model.push(Reply(text="Part one.", tool_calls=(first,)), text("Part two."))
    await tab.sign_in()
    page = tab.page
    async with web.served.client(web.served.admin) as client:
        run = await create(client, "two parts")
        await page.goto(f"{tab.url}/runs/{run['id']}")
        await page.locator(".permission.open").wait_for()
        before = await shown(tab)
        assert before == {"narration": 1, "tools": 1, "cards": 1, "prompts": 1, "twice": 0}
        await page.reload()
        await page.locator(".permission.open").wait_for()
        assert await shown(tab) == before
        await page.click(".permission.open button[data-decision=allow]")
        await page.wait_for_selector(".narration:has-text('Part two.')")
        await tab.finished()
        await until(client, run["id"], "finished")
    assert await shown(tab) == {"narration": 2, "tools": 1, "cards": 1, "prompts": 1, "twice": 0}


async def test_a_network_drop_mid_run_resumes_after_the_last_event_shown(
    tab: Tab, web: Web
) -> None:
    first = ToolCall(name="shell", arguments={"command": "echo first"})
    second = ToolCall(name="shell", arguments={"command": "echo second"})
    web.served.model.push(
        Reply(text="Part one.", tool_calls=(first,)), tool_calls(second), text("Part three.")
    )
    page = tab.page
    async with Relay(web.served.url) as relay, web.served.client(web.served.admin) as client:
        await tab.sign_in(at=relay.url)
        run = await create(client, "three parts")
        await page.goto(f"{relay.url}/runs/{run['id']}")
        await page.click(".permission.open button[data-decision=allow]")
        await page.locator(".permission.open:has-text('echo second')").wait_for()
        seen = await page.evaluate(LAST_SEQ)
        relay.cut()  # the network drops while the run waits ...
        pending = (await until(client, run["id"], "awaiting_permission"))["pending"]
        answer = f"/runs/{run['id']}/permissions/{pending[0]['request_id']}"
        await client.post(answer, json={"decision": "allow"})  # ... and goes on meanwhile
        await page.wait_for_selector(".narration:has-text('Part three.')")
        await tab.finished()
    after = await shown(tab)
    assert after == {"narration": 2, "tools": 2, "cards": 2, "prompts": 1, "twice": 0}
    assert await page.locator(".narration").all_inner_texts() == ["Part one.", "Part three."]
    outputs = await page.locator("details.tool .output").all_text_contents()
    assert outputs == ["first\n", "second\n"]
    resumed = [h.get("last-event-id") for url, h in tab.fetches if url.endswith("/events")]
    assert resumed[0] is None and resumed[1] is not None and int(resumed[1]) >= seen, resumed
    after = await shown(tab)
    assert after == {"narration": 2, "tools": 2, "cards": 2, "prompts": 1, "twice": 0}
    texts = await page.locator(".narration").all_inner_texts()
    assert texts == ["Part one.", "Part three."]
    outputs = await page.locator("details.tool .output").all_text_contents()
    assert outputs == ["first\n", "second\n"]
