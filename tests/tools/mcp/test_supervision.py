"""Supervision: a server that dies on a call is restarted, one that never answers is left out,
an interrupt cancels a running call on the server, a changed tool list reaches the model at its
next request."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from taor.agent.events import Event
from taor.agent.session import Session
from taor.env.local import LocalEnvironment
from taor.testing import ScriptedModel, text, tool_calls
from taor.tools.mcp.config import McpServerConfig

from .support import collect, config, demo, mcp_session, of_kind, wait_for_file


async def test_a_server_that_dies_on_a_call_gives_an_error_result_and_is_restarted(
    tmp_path: Path,
) -> None:
    marker = tmp_path / "crashed"
    model = ScriptedModel(
        [
            tool_calls(("mcp__demo__crash", {})),
            text("noted"),
            tool_calls(("mcp__demo__crash", {})),
            text("ok"),
        ]
    )
    async with mcp_session(model, tmp_path, demo("demo", "--crash-marker", str(marker))) as session:
        seen: list[Event] = []
        watcher = asyncio.create_task(_until_connected_again(session, seen))
        first = await collect(session, "crash it")
        await asyncio.wait_for(watcher, 60)
        second = await collect(session, "again")
    (end,) = of_kind(first, "tool_call_end")
    assert end.is_error and "exited during the call" in end.output and "exit status 3" in end.output
    statuses = [e.status for e in of_kind(seen, "mcp_server_status")]
    after = statuses[statuses.index("exited") :]
    assert after == ["exited", "restarting", "connecting", "connected"]
    (again,) = of_kind(second, "tool_call_end")
    assert again.output == "alive again" and not again.is_error
    assert "mcp__demo__crash" in [t.name for t in model.requests[-1].tools]


async def _until_connected_again(session, seen: list[Event]) -> None:  # type: ignore[no-untyped-def]
    async for event in session.events():
        seen.append(event)
        statuses = [e.status for e in seen if e.kind == "mcp_server_status"]
        if "exited" in statuses and statuses[-1] == "connected":
            return


async def test_servers_that_never_answer_or_never_start_are_reported_and_left_out(
    tmp_path: Path,
) -> None:
    hanging = demo("hang", "--hang", startup_timeout=0.5)
    missing = McpServerConfig(name="gone", command=str(tmp_path / "no-such-server"))
    model = ScriptedModel([text("still here")])
    async with mcp_session(model, tmp_path, hanging, missing, demo()) as session:
        opening: list[Event] = []
        async for event in session.events():
            opening.append(event)
            if len([e for e in opening if e.kind == "mcp_server_status"]) >= 6:
                break
        result = await session.run("hello")
    assert result.text == "still here"
    final = {e.server: e for e in of_kind(opening, "mcp_server_status") if e.status != "connecting"}
    assert (
        final["hang"].status == "failed" and "did not answer within 0.5 s" in final["hang"].message
    )
    assert final["gone"].status == "failed" and "could not start" in final["gone"].message
    assert final["demo"].status == "connected"
    names = [t.name for t in model.requests[0].tools]
    assert "mcp__demo__echo" in names and not [n for n in names if "hang" in n or "gone" in n]


async def test_an_interrupt_cancels_a_running_call_on_the_server(tmp_path: Path) -> None:
    flag = tmp_path / "slow-flag"
    model = ScriptedModel([tool_calls(("mcp__demo__slow", {"flag": str(flag)})), text("next")])
    async with mcp_session(model, tmp_path, demo()) as session:
        reader = asyncio.create_task(collect(session, "wait"))
        await wait_for_file(Path(str(flag) + ".started"))
        session.interrupt()
        events = await reader
        await wait_for_file(flag)  # the server's handler was cancelled by notifications/cancelled
        (end,) = of_kind(events, "tool_call_end")
        assert end.is_error and events[-1].stop_reason == "interrupted"
        assert flag.read_text() == "cancelled"
        assert (await session.run("go on")).text == "next"


async def test_a_changed_tool_list_is_offered_from_the_next_model_request(tmp_path: Path) -> None:
    model = ScriptedModel(
        [tool_calls(("mcp__demo__grow", {})), tool_calls(("mcp__demo__extra", {})), text("ok")]
    )
    async with mcp_session(model, tmp_path, demo()) as session:
        changed = asyncio.create_task(_tool_list_changed(session))
        await collect(session, "grow")
    before, *after = ([t.name for t in r.tools] for r in model.requests)
    assert "mcp__demo__extra" not in before
    assert changed.done() or changed.cancel()
    ends = [e for e in model.requests[-1].messages[-1].parts if getattr(e, "name", "")]
    assert any("mcp__demo__extra" in names for names in after)
    assert ends and not ends[-1].is_error


async def _tool_list_changed(session) -> None:  # type: ignore[no-untyped-def]
    async for event in session.events():
        if event.kind == "mcp_server_status" and event.message == "tool list changed":
            return


async def test_a_call_past_its_timeout_is_an_error_and_secrets_stay_out_of_the_record(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    flag = tmp_path / "slow-flag"
    secret = "s3cret-value-0123456789"
    monkeypatch.setenv("DEMO_SECRET", secret)
    server = demo("demo", call_timeout=0.5, env={"DEMO_TOKEN": "${DEMO_SECRET}"})
    model = ScriptedModel([tool_calls(("mcp__demo__slow", {"flag": str(flag)})), text("late")])
    path = tmp_path / "session.jsonl"
    session = Session.recorded(
        path,
        model,
        environment=LocalEnvironment(str(tmp_path)),
        mcp_servers=[server],
        profile=None,
        config=config(),
    )
    async with session:
        events = await collect(session, "wait")
    (end,) = of_kind(events, "tool_call_end")
    assert end.is_error and "timed out" in end.output.lower() and "setting" in end.output
    await wait_for_file(flag)  # the server was told to stop (notifications/cancelled)
    assert secret not in path.read_text() and secret not in repr(server.expanded())
    assert server.expanded().env == {"DEMO_TOKEN": secret}
