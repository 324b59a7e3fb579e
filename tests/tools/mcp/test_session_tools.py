"""MCP servers' tools through a session: listed with their schemas, called, their results as
parts, their hints as effects, over stdio and streamable HTTP."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from taor.agent.policy.decisions import Decision
from taor.agent.policy.hooks import ChangeArguments, Hooks, ToolCallInfo
from taor.llm.types import ImagePart
from taor.testing import ScriptedModel, text, tool_calls

from .support import collect, config, demo, http_server, mcp_session, of_kind


async def test_tools_are_listed_and_called_over_stdio(tmp_path: Path) -> None:
    model = ScriptedModel(
        [
            tool_calls(
                ("mcp__demo__echo", {"text": "hi"}),
                ("mcp__demo__add", {"a": 2, "b": 3}),
                ("mcp__demo__pixel", {}),
            ),
            text("done"),
        ]
    )
    async with mcp_session(model, tmp_path, demo()) as session:
        events = [e async for e in _opening(session)]
        run = await collect(session, "go")
    statuses = [(e.server, e.status, e.tools) for e in of_kind(events, "mcp_server_status")]
    assert statuses[-1] == ("demo", "connected", 7)
    offered = {t.name: t for t in model.requests[0].tools}
    assert offered["mcp__demo__add"].parameters["required"] == ["a", "b"]
    ends = {e.name: e for e in of_kind(run, "tool_call_end")}
    assert ends["mcp__demo__echo"].output == "echo: hi" and not ends["mcp__demo__echo"].is_error
    assert '"sum": 5' in ends["mcp__demo__add"].output
    results = model.requests[1].messages[-1].parts
    pixel = next(p for p in results if getattr(p, "name", "") == "mcp__demo__pixel")
    assert isinstance(pixel.content[0], ImagePart) and pixel.content[0].data.startswith(b"\x89PNG")


async def _opening(session):  # type: ignore[no-untyped-def]
    """The events a reader joining after start sees first (session_start, statuses)."""
    stream = session.events()
    async for event in stream:
        yield event
        if event.kind == "mcp_server_status" and event.status == "connected":
            break


async def test_tools_are_called_over_streamable_http(tmp_path: Path) -> None:
    model = ScriptedModel([tool_calls(("mcp__web__echo", {"text": "over http"})), text("ok")])
    with http_server("web") as url:
        server = demo("web").__class__(name="web", url=url)
        async with mcp_session(model, tmp_path, server) as session:
            run = await collect(session, "go")
    (end,) = of_kind(run, "tool_call_end")
    assert end.output == "echo: over http" and not end.is_error


async def test_read_only_hints_skip_the_question_and_destructive_ones_are_asked(
    tmp_path: Path,
) -> None:
    model = ScriptedModel(
        [
            tool_calls(
                ("mcp__demo__echo", {"text": "a"}), ("mcp__demo__write_note", {"text": "b"})
            ),
            text("done"),
        ]
    )
    asked: list[str] = []

    async def can_use_tool(name: str, arguments: dict[str, Any]) -> Decision:
        asked.append(name)
        return Decision.deny("not now")

    async with mcp_session(
        model, tmp_path, demo(), config=config("default"), can_use_tool=can_use_tool
    ) as session:
        run = await collect(session, "go")
    assert asked == ["mcp__demo__write_note"]
    ends = {e.name: e for e in of_kind(run, "tool_call_end")}
    assert not ends["mcp__demo__echo"].is_error and ends["mcp__demo__write_note"].is_error


async def test_permission_rules_and_hooks_apply_to_mcp_tools(tmp_path: Path) -> None:
    model = ScriptedModel(
        [
            tool_calls(
                ("mcp__demo__echo", {"text": "a"}), ("mcp__demo__write_note", {"text": "b"})
            ),
            text("done"),
        ]
    )
    seen: list[str] = []

    async def louder(call: ToolCallInfo) -> ChangeArguments | None:
        seen.append(call.name)
        if call.name == "mcp__demo__echo":
            return ChangeArguments(arguments={"text": "LOUD"})
        return None

    rules = config("default", allow=("mcp__demo__*",), deny=("mcp__demo__write_note",))
    async with mcp_session(
        model, tmp_path, demo(), config=rules, hooks=Hooks(before_tool=(louder,))
    ) as session:
        run = await collect(session, "go")
    ends = {e.name: e for e in of_kind(run, "tool_call_end")}
    assert ends["mcp__demo__echo"].output == "echo: LOUD"
    assert ends["mcp__demo__write_note"].is_error
    assert not of_kind(run, "permission_request")
    assert "mcp__demo__echo" in seen
