"""``taor mcp serve`` driven by the ``mcp`` SDK's own client, over stdio and streamable HTTP,
with the fake provider server as the model: the tool, a task that writes a file, progress,
permission requests answered through elicitation (on both protocol generations), a client
that cannot answer, bad arguments and cancellation."""

from __future__ import annotations

import socket
from collections.abc import Callable
from pathlib import Path
from typing import Any

import anyio
import mcp_types as types
import pytest
from mcp import Client

from taor.mcp_server.app import build
from taor.mcp_server.asking import NO_ELICITATION
from taor.mcp_server.command import flags, parser
from taor.mcp_server.job import Jobs
from taor.mcp_server.task import Defaults
from taor.testing import FakeProviderServer, text, tool_calls

from ..cli.support import environ, local
from .support import http, stdio

WRITE = tool_calls(("shell", {"command": "echo hello > out.txt"}))


class Progress:
    def __init__(self) -> None:
        self.lines: list[str] = []

    async def __call__(self, progress: float, total: float | None, message: str | None) -> None:
        self.lines.append(message or "")


def answering(decisions: list[str], asked: list[str]) -> Any:
    """An elicitation callback that gives these answers in turn, and keeps the questions."""

    async def elicit(context: Any, params: types.ElicitRequestParams) -> types.ElicitResult:
        asked.append(params.message)
        return types.ElicitResult(action="accept", content={"decision": decisions.pop(0)})

    return elicit


def said(result: types.CallToolResult) -> str:
    return "\n".join(part.text for part in result.content if isinstance(part, types.TextContent))


async def test_the_tool_is_listed_and_a_task_writes_a_file_with_progress_in_sentences(
    tmp_path: Path, server: FakeProviderServer
) -> None:
    server.push(WRITE, text("I wrote out.txt. It says hello.\nDone"))
    progress = Progress()
    async with Client(stdio(tmp_path, server, "--permission-mode", "bypass")) as client:
        (tool,) = (await client.list_tools()).tools
        assert tool.name == "run_task"
        assert {"task", "folder", "model", "max_turns"} <= set(tool.input_schema["properties"])
        result = await client.call_tool("run_task", {"task": "write hello"}, None, progress)
    assert (tmp_path / "out.txt").read_text() == "hello\n"
    assert said(result) == "I wrote out.txt. It says hello.\nDone"
    assert not result.is_error
    assert result.structured_content is not None
    assert result.structured_content["stop_reason"] == "completed"
    assert progress.lines == [
        "shell: echo hello > out.txt",
        "I wrote out.txt.",
        "It says hello.",
        "Done",
    ]


@pytest.mark.parametrize("mode", ["auto", "legacy"])  # 2026-07-28, and the handshake era
async def test_a_permission_request_is_answered_by_elicitation(
    tmp_path: Path, server: FakeProviderServer, mode: str
) -> None:
    server.push(WRITE, text("Finished."), WRITE, text("Not this time."))
    asked: list[str] = []
    elicit = answering(["allow", "deny"], asked)
    async with Client(stdio(tmp_path, server), mode=mode, elicitation_callback=elicit) as client:
        allowed = await client.call_tool("run_task", {"task": "write hello"})
        assert said(allowed) == "Finished."
        assert (tmp_path / "out.txt").read_text() == "hello\n"
        (tmp_path / "out.txt").unlink()
        denied = await client.call_tool("run_task", {"task": "write hello again"})
    assert said(denied) == "Not this time.\n\n(denied: shell)"
    assert not (tmp_path / "out.txt").exists()
    assert len(asked) == 2
    assert asked[0].splitlines()[0] == "taor wants to run shell: echo hello > out.txt"
    assert "allow_always adds: shell(echo hello > out.txt)" in asked[0]


async def test_a_client_without_elicitation_gets_a_denial_the_model_is_told_about(
    tmp_path: Path, server: FakeProviderServer
) -> None:
    server.push(WRITE, text("I could not write it."))
    async with Client(stdio(tmp_path, server)) as client:
        result = await client.call_tool("run_task", {"task": "write hello"})
    assert not (tmp_path / "out.txt").exists()
    assert said(result) == "I could not write it.\n\n(denied: shell)"
    assert NO_ELICITATION in str(server.requests[-1].json["messages"][-1])


BAD = [
    ({}, "task"),
    ({"task": "go", "max_turns": 0}, "max_turns"),
    ({"task": "go", "folder": "no/such/folder"}, "'no/such/folder' is not a directory"),
    ({"task": "go", "model": "nonsense"}, "nonsense"),
    ({"task": "   "}, "task is empty"),
]


async def test_bad_arguments_are_a_clear_tool_error(
    tmp_path: Path, server: FakeProviderServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The server in this process (the SDK's in-memory transport): the same tool, composing
    the same sessions, without a process start."""
    for name, value in environ(tmp_path).items():
        monkeypatch.setenv(name, value)
    defaults = Defaults(flags=flags(parser().parse_args(local(server))), folder=tmp_path)
    async with Client(build(defaults, Jobs())) as client:
        for arguments, says in BAD:
            result = await client.call_tool("run_task", arguments)
            assert result.is_error, arguments
            assert says in said(result), said(result)
    assert not server.requests


async def test_over_streamable_http_with_elicitation(
    tmp_path: Path, server: FakeProviderServer
) -> None:
    server.push(WRITE, text("Written."))
    asked: list[str] = []
    progress = Progress()
    async with (
        http(tmp_path, server) as url,
        Client(url, elicitation_callback=answering(["allow"], asked)) as client,
    ):
        result = await client.call_tool("run_task", {"task": "write hello"}, None, progress)
    assert said(result) == "Written."
    assert (tmp_path / "out.txt").read_text() == "hello\n"
    assert asked and "shell: echo hello > out.txt" in progress.lines


async def until(check: Callable[[], object], seconds: float = 30.0) -> bool:
    """Whether ``check`` comes true within ``seconds`` (a file another process writes)."""
    for _ in range(int(seconds / 0.05)):
        if check():
            return True
        await anyio.sleep(0.05)
    return False


def alive(pid: int) -> bool:
    try:
        return Path(f"/proc/{pid}/stat").read_text().split()[2] != "Z"
    except (FileNotFoundError, ProcessLookupError):  # gone (also between open and read)
        return False


async def test_a_cancelled_call_stops_its_task_and_the_server_goes_on(
    tmp_path: Path, server: FakeProviderServer
) -> None:
    server.push(tool_calls(("shell", {"command": "echo $$ > pid; exec sleep 600"})))
    pidfile = tmp_path / "pid"
    async with Client(stdio(tmp_path, server, "--permission-mode", "bypass")) as client:
        with anyio.fail_after(60):
            async with anyio.create_task_group() as group:
                group.start_soon(client.call_tool, "run_task", {"task": "wait"})
                assert await until(lambda: pidfile.exists() and pidfile.read_text().strip())
                pid = int(pidfile.read_text())
                assert alive(pid)
                group.cancel_scope.cancel()
            # the session's close kills the command's process group
            assert await until(lambda: not alive(pid))
        assert (await client.list_tools()).tools[0].name == "run_task"


def test_bad_flags_and_a_port_in_use_are_one_line_and_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from taor.mcp_server.command import run

    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))  # no config of the person's

    assert run(["--permission-mode", "reckless"]) == 2
    assert "reckless" in capsys.readouterr().err
    assert run(["--cwd", str(tmp_path / "nowhere")]) == 2
    assert "is not a directory" in capsys.readouterr().err
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        assert run(["--http", "--port", str(port)]) == 2
    assert f"cannot listen on 127.0.0.1:{port}" in capsys.readouterr().err
