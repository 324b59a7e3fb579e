"""A run started from the web page's form, followed live: its narration streams in as rendered
Markdown, its tool calls open to show their arguments, output and diff, and the model's own
HTML is shown as text."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

import pytest

from taor.testing import ToolCall, text, tool_calls

from ..test_runs_api import create, until
from .conftest import TO_BOTTOM, Tab, Web

pytestmark = [pytest.mark.slow, pytest.mark.asyncio(loop_scope="module")]


def held(reply: Any) -> tuple[Any, threading.Event]:
    """A model step that answers only once released (the page is watching by then)."""
    release = threading.Event()

    def step(_request: Any) -> Any:
        release.wait(30)
        return reply

    return step, release


async def test_a_run_started_from_the_form_streams_its_narration(tab: Tab, web: Web) -> None:
    narration = (
        "# Plan\n\nI will **greet** you, then stop.\n\n- one\n- two\n\nHello from `the model`."
    )
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
    await tab.finished()
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
    sent = {headers.get("authorization") for _, headers in tab.fetches}
    assert sent == {"Bearer not-a-token", f"Bearer {web.served.admin}"}  # on every API call


async def test_a_tool_call_opens_to_its_arguments_output_and_diff(tab: Tab, web: Web) -> None:
    write = ToolCall(name="write_file", arguments={"path": "a.txt", "content": "one\n"})
    edit = ToolCall(
        name="edit_file", arguments={"path": "a.txt", "old_string": "one", "new_string": "two"}
    )
    shell = ToolCall(name="shell", arguments={"command": "cat a.txt; echo from-the-shell"})
    web.served.model.push(tool_calls(write), tool_calls(edit), tool_calls(shell), text("Done."))
    await tab.sign_in()
    async with web.served.client(web.served.admin) as client:
        run = await create(client, "edit a file", permission_mode="bypass")
        await until(client, run["id"], "finished", "failed")
    page = tab.page
    await page.goto(f"{tab.url}/runs/{run['id']}")
    rows = page.locator("details.tool")
    await tab.finished()
    assert await rows.count() == 3
    row = rows.nth(2)
    assert "from-the-shell" in await row.locator(".tool-summary").inner_text()
    assert not await row.locator(".output").is_visible()
    await row.locator("summary").click()
    assert "cat a.txt; echo from-the-shell" in await row.locator(".arguments").inner_text()
    assert await row.locator(".output").inner_text() == "two\nfrom-the-shell\n"
    assert await row.locator(".tool-state.ok").count() == 1
    edited = rows.nth(1)
    await edited.locator("summary").click()
    assert await edited.locator(".diff-del").all_inner_texts() == ["-one\n"]
    assert await edited.locator(".diff-add").all_inner_texts() == ["+two\n"]
    assert await page.locator(".narration").inner_text() == "Done."


async def test_a_permission_is_granted_and_another_denied_from_their_buttons(
    tab: Tab, web: Web
) -> None:
    write = ToolCall(name="write_file", arguments={"path": "out.txt", "content": "made\n"})
    shell = ToolCall(name="shell", arguments={"command": "touch forbidden.txt && echo no"})
    model = web.served.model
    model.push(tool_calls(write), tool_calls(shell), text("Understood: I will not."))
    before = len(model.requests)
    await tab.sign_in()
    async with web.served.client(web.served.admin) as client:
        run = await create(client, "write, then run")
        page = tab.page
        await page.goto(f"{tab.url}/runs/{run['id']}")
        card = page.locator(".permission.open")
        await card.wait_for()
        await page.wait_for_selector("#status.status-awaiting_permission")
        assert await card.locator(".diff-add").all_inner_texts() == ["+made\n"]
        assert "out.txt" in await card.locator(".perm-summary").inner_text()
        await card.locator("button[data-decision=allow]").click()
        await page.wait_for_selector(".permission.allowed")
        second = page.locator(".permission.open")
        await second.wait_for()
        assert await second.locator(".command").inner_text() == "$ touch forbidden.txt && echo no"
        await page.evaluate(TO_BOTTOM)
        await tab.screenshot("permission-prompt-light", full_page=False)
        await second.locator("button[data-decision=deny]").click()
        await page.wait_for_selector(".permission.denied")
        await tab.finished()
        done = await until(client, run["id"], "finished")
    workspace = done["workspace"]
    assert (_read(workspace, "out.txt")) == "made\n"  # the granted call ran
    assert _read(workspace, "forbidden.txt") is None  # the denied one did not
    denial = model.requests[before + 2].tool_results
    assert any("Permission denied for shell" in result for result in denial), denial
    assert await page.locator(".perm-result").all_inner_texts() == ["Allowed once", "Denied"]
    assert await page.locator("details.tool .tool-state.error").count() == 1


async def test_steering_typed_in_the_box_reaches_the_model(tab: Tab, web: Web) -> None:
    shell = ToolCall(name="shell", arguments={"command": "echo step"})
    model = web.served.model
    model.push(tool_calls(shell), text("Steered."))
    await tab.sign_in()
    async with web.served.client(web.served.admin) as client:
        run = await create(client, "do a step")
        page = tab.page
        await page.goto(f"{tab.url}/runs/{run['id']}")
        await page.locator(".permission.open").wait_for()
        await page.fill("#message", "Also write the tests first.")
        await page.click("#steer")
        await page.wait_for_selector(".msg.steer.queued")
        assert await page.input_value("#message") == ""
        await page.click(".permission.open button[data-decision=allow]")
        await page.wait_for_selector(".msg.steer:not(.queued)")
        await tab.finished()
        await until(client, run["id"], "finished")
    last = model.requests[-1].body.decode()
    assert "Also write the tests first." in last
    assert await page.locator(".narration").inner_text() == "Steered."


def _read(folder: str, name: str) -> str | None:
    path = Path(folder) / name
    return path.read_text() if path.exists() else None


async def test_a_queued_run_shows_its_place_and_the_buttons_stop_runs(tab: Tab, web: Web) -> None:
    asks = [ToolCall(name="shell", arguments={"command": f"echo {n}"}) for n in (1, 2)]
    web.served.model.push(*(tool_calls(call) for call in asks))
    await tab.sign_in()
    page = tab.page
    async with web.served.client(web.served.admin) as client:
        busy = [await create(client, f"hold a worker {n}") for n in (1, 2)]
        for run in busy:  # both workers wait on a person now
            await until(client, run["id"], "awaiting_permission")
        queued = await create(client, "wait in the queue")
        await page.goto(f"{tab.url}/runs/{queued['id']}")
        await page.wait_for_selector("#status.status-queued")
        assert await page.inner_text("#queue") == "Waiting for a worker: next in the queue."
        await tab.screenshot("queued-run-light", full_page=False)
        assert await page.is_disabled("#steer") and await page.is_disabled("#interrupt")
        await page.click("#cancel")
        await page.click("#cancel.confirm")  # a second click confirms
        await page.wait_for_selector("#status.status-cancelled")
        assert (await until(client, queued["id"], "cancelled"))["status"] == "cancelled"
        await page.goto(f"{tab.url}/runs/{busy[0]['id']}")
        await page.locator(".permission.open").wait_for()
        await page.click("#interrupt")
        await page.wait_for_selector("#status.status-interrupted")
        await page.wait_for_selector(".permission.expired")
        await page.wait_for_selector(".note:has-text('Interrupted')")
        await page.goto(f"{tab.url}/runs/{busy[1]['id']}")
        await page.locator(".permission.open").wait_for()
        await page.click("#cancel")
        await page.click("#cancel.confirm")
        await page.wait_for_selector("#status.status-cancelled")
        await until(client, busy[0]["id"], "interrupted")
        await until(client, busy[1]["id"], "cancelled")


async def test_a_follow_up_runs_queued_while_working_and_after_the_run_ended(
    tab: Tab, web: Web
) -> None:
    ask = ToolCall(name="shell", arguments={"command": "echo now"})
    web.served.model.push(tool_calls(ask), text("First done."), text("Tidied."), text("Again."))
    await tab.sign_in()
    page = tab.page
    async with web.served.client(web.served.admin) as client:
        run = await create(client, "one thing, then another")
        await page.goto(f"{tab.url}/runs/{run['id']}")
        await page.locator(".permission.open").wait_for()
        await page.fill("#message", "Then tidy up.")
        await page.click("#follow-up")
        queued = page.locator(".msg.user.queued")
        await queued.wait_for()
        assert await queued.locator(".msg-text").inner_text() == "Then tidy up."
        await page.click(".permission.open button[data-decision=allow]")
        await page.wait_for_selector(".narration:has-text('First done.')")
        await page.wait_for_selector(".narration:has-text('Tidied.')")  # the follow-up ran
        assert (await until(client, run["id"], "finished"))["status"] == "finished"
        await page.wait_for_selector("#status.status-finished")
        await page.fill("#message", "Once more.")
        await page.click("#follow-up")  # the ended run goes on
        await page.wait_for_selector(".narration:has-text('Again.')")
        await page.wait_for_selector("#status.status-finished")
    sent = web.served.model.requests[-1].json["messages"]
    assert [m["content"] for m in sent if m["role"] == "user"][-2:] == [
        "Then tidy up.",
        "Once more.",
    ]
