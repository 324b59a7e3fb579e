"""The local provider with the real model (``taor models install``; skipped without it): the
server starts, answers and stops; a killed taor leaves no server; ``taor --model local`` writes
a file and reads it back through real tool calls, with a valid transcript and no server left; a
tool call the server cannot parse is recovered.

Run with ``pytest -m e2e tests/e2e`` (the default run leaves them out; CI runs them after the
unit tests). Two threads, the default 8K context; under two minutes on two shared cores."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
import sys
import time
import uuid
from collections.abc import AsyncIterator
from dataclasses import replace
from pathlib import Path

import pytest

from taor import Limits, PermissionConfig, Session, SessionConfig
from taor.agent.events import ErrorEvent, Event, Retry
from taor.agent.record.store import load
from taor.agent.record.transcript import problems
from taor.env.local import LocalEnvironment
from taor.llm import Message, Request, complete, connect
from taor.llm.events import StreamEvent
from taor.llm.local import LocalModel
from taor.llm.local.install import is_installed
from taor.llm.local.known import DEFAULT, KNOWN, models_dir

from ..cli.support import data_home, taor

pytestmark = [
    pytest.mark.e2e,
    pytest.mark.skipif(
        not is_installed(KNOWN[DEFAULT], models_dir()),
        reason=f"the local model is not installed: run `taor models install` ({models_dir()})",
    ),
]
MODELS = {"TAOR_MODELS_DIR": str(models_dir()), "TAOR_LOCAL_THREADS": "2"}


def alive(pid: int) -> bool:
    """Running (a zombie waiting for a parent that never reaps it counts as gone)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (FileNotFoundError, ProcessLookupError):
        return False
    return state != "Z"


def servers_marked(mark: str) -> list[int]:
    """The pids of llama.cpp server children whose environment carries ``mark``."""
    found = []
    for entry in Path("/proc").iterdir():
        try:
            cmdline = (entry / "cmdline").read_bytes()
            environ = (entry / "environ").read_bytes()
        except OSError:
            continue
        if (
            b"taor.llm.local.serve" in cmdline
            and mark.encode() in environ
            and alive(int(entry.name))
        ):
            found.append(int(entry.name))
    return found


def gone_within(pid: int, seconds: float) -> bool:
    deadline = time.monotonic() + seconds
    while alive(pid) and time.monotonic() < deadline:
        time.sleep(0.1)
    return not alive(pid)


def test_the_server_starts_answers_and_stops() -> None:
    model = connect("local", env=MODELS)
    assert isinstance(model, LocalModel)
    request = Request(
        messages=(Message.user("Reply with one word: ready"),), max_tokens=8, temperature=0
    )

    async def ask() -> tuple[str, int | None]:
        try:
            response = await complete(model, request)
            return response.text, model.server.pid
        finally:
            await model.aclose()

    text, pid = asyncio.run(ask())
    assert text.strip()
    assert pid is not None and not alive(pid)
    assert model.server.started_in is not None


def test_the_next_server_starts_from_the_saved_prompt_prefix_and_only_taor_may_use_it(
    tmp_path: Path,
) -> None:
    """The second server restores the prefix the first one saved. Another local user reaches
    the port but not the conversation: every request but /health needs the key, the slot
    listing is off, and the saved prefix is 0600 in a 0700 folder."""
    env = {**MODELS, "TAOR_LOCAL_PREFIX_DIR": str(tmp_path)}
    request = Request(
        system="You answer in one word. " * 30,
        messages=(Message.user("Reply with one word: ready"),),
        max_tokens=4,
        temperature=0,
    )

    async def ask(probe: bool = False) -> tuple[int, int, bool, dict[str, int]]:
        model = connect("local", env=env)
        assert isinstance(model, LocalModel)
        try:
            usage = (await complete(model, request)).usage
            statuses = await strangers_requests(model) if probe else {}
            return (
                usage.input_tokens,
                usage.cache_read_tokens,
                model.server.prefix_restored,
                statuses,
            )
        finally:
            await model.aclose()

    prompt, cached, restored, _ = asyncio.run(ask())
    assert not restored and cached == 0 and len(list(tmp_path.glob("prefix-*.bin"))) == 1
    prompt, cached, restored, statuses = asyncio.run(ask(probe=True))
    assert restored and cached >= prompt - 8  # all but the last few tokens came from the file
    assert not list(tmp_path.glob("*.part"))
    assert statuses["health"] == 200
    assert statuses["chat"] == statuses["save"] == statuses["wrong key"] == 401
    assert statuses["slots"] != 200
    assert not list(tmp_path.glob("stolen*"))
    (saved,) = tmp_path.glob("prefix-*.bin")
    assert saved.stat().st_mode & 0o777 == 0o600 and tmp_path.stat().st_mode & 0o777 == 0o700


async def strangers_requests(model: LocalModel) -> dict[str, int]:
    """What the running server answers another local user: without the key, with a wrong
    one, and the slot listing with the right one."""
    import httpx2

    assert model.server.base_url is not None
    address = model.server.base_url.removesuffix("/v1")
    api_key = getattr(model.server, "api_key", "")
    key = {"Authorization": f"Bearer {api_key}"} if api_key else {}
    chat = {"model": "m", "messages": [{"role": "user", "content": "hi"}]}
    steal = {"filename": "stolen.bin"}
    wrong = {"Authorization": "Bearer guess"}
    async with httpx2.AsyncClient(timeout=30) as client:
        return {
            "health": (await client.get(f"{address}/health")).status_code,
            "chat": (await client.post(f"{address}/v1/chat/completions", json=chat)).status_code,
            "save": (await client.post(f"{address}/slots/0?action=save", json=steal)).status_code,
            "wrong key": (
                await client.post(f"{address}/slots/0?action=save", json=steal, headers=wrong)
            ).status_code,
            "slots": (await client.get(f"{address}/slots", headers=key)).status_code,
        }


def test_installing_prepares_the_prompt_cache_for_the_first_run(tmp_path: Path) -> None:
    """``taor models install`` (the model already installed) saves the prompt prefix once, so
    the first real run restores it; a second install leaves it be."""
    cwd = tmp_path / "work"
    cwd.mkdir()
    env = {**MODELS, "TAOR_LOCAL_PREFIX_DIR": str(tmp_path / "prefix")}
    done = taor("models", "install", cwd=cwd, env=env, timeout=600)  # a model call, on loaded cores
    assert done.returncode == 0, done.stderr
    (saved,) = (tmp_path / "prefix").glob("prefix-*.bin")
    assert "prepared the prompt cache" in done.stderr and saved.stat().st_size > 1_000_000
    again = taor("models", "install", cwd=cwd, env=env)
    assert again.returncode == 0 and "prompt cache" not in again.stderr
    model = connect("local", env=env)
    assert isinstance(model, LocalModel) and model.server.prefix_path == saved

    async def first_run() -> bool:
        try:
            await complete(model, Request(messages=(Message.user("Say hi"),), max_tokens=1))
            return model.server.prefix_restored
        finally:
            await model.aclose()

    assert asyncio.run(first_run())


CHILD = """
import asyncio, sys
from taor.llm import Message, Request, complete, connect
model = connect("local")
asyncio.run(complete(model, Request(messages=(Message.user("Say hi"),), max_tokens=1)))
print(model.server.pid, flush=True)
sys.stdin.read()
"""


def test_a_killed_parent_takes_its_server_along() -> None:
    with subprocess.Popen(
        [sys.executable, "-c", CHILD],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
        env={**os.environ, **MODELS},
    ) as parent:
        assert parent.stdout is not None
        server = int(parent.stdout.readline())
        assert alive(server)
        parent.send_signal(signal.SIGKILL)
    assert gone_within(server, 15), "the server outlived the process that started it"


def test_taor_writes_a_file_and_reads_it_back_with_the_local_model(tmp_path: Path) -> None:
    mark = uuid.uuid4().hex
    task = (
        "Create a file named hello.py containing exactly one line: print('hello'). "
        "Then read hello.py to check it."
    )
    done = taor(
        "-p",
        task,
        "--model",
        "local",
        "--permission-mode",
        "bypass",
        "--max-turns",
        "4",
        "--output-format",
        "stream-json",
        cwd=tmp_path,
        env={**MODELS, "TAOR_E2E_MARK": mark},
        timeout=600,  # four calls of a 1.5B model on two cores shared with other work
    )
    assert done.returncode in (0, 3), done.stderr  # done, or stopped by --max-turns
    events = [json.loads(line) for line in done.stdout.splitlines()]
    starts = {e["call_id"]: e for e in events if e.get("kind") == "tool_call_start"}
    ends = [e for e in events if e.get("kind") == "tool_call_end"]
    assert len(ends) == len(starts)  # every call that started ended
    ran = [(starts[e["call_id"]]["name"], starts[e["call_id"]]["arguments"]) for e in ends]
    on_hello = [name for name, arguments in ran if "hello.py" in json.dumps(arguments)]
    # A 1.5B model picks its tools freely (write_file or shell to write, read_file or shell to
    # read back) and may go on to edit: the mechanics are asserted, and that the file is there.
    assert len(on_hello) >= 2, ran
    assert (tmp_path / "hello.py").is_file()
    assert [e.get("kind") for e in events][-2:] == ["processing_end", None]  # then the result
    (transcript,) = sorted((data_home(tmp_path) / "taor" / "sessions").glob("*/*.jsonl"))
    assert problems(load(transcript).turns) == []
    assert servers_marked(mark) == []  # the command stopped its server


class FirstReplyMalformed:
    """The real local model, whose first request ends with the start of a reply that calls a
    tool with single-quoted arguments: the real server fails on the call the model completes."""

    def __init__(self, model: LocalModel) -> None:
        self.model, self.calls = model, 0
        self.provider, self.model_id = model.provider, model.model_id

    async def stream(self, request: Request) -> AsyncIterator[StreamEvent]:
        self.calls += 1
        if self.calls == 1:
            start = '```json\n{"name": "write_file", "arguments": {\'path\': \'a.txt\', '
            request = replace(request, messages=(*request.messages, Message.assistant(start)))
        async for event in self.model.stream(request):
            yield event

    async def aclose(self) -> None:
        await self.model.aclose()


def test_a_tool_call_the_server_cannot_parse_is_recovered(tmp_path: Path) -> None:
    local = connect("local", env=MODELS)
    assert isinstance(local, LocalModel)
    model = FirstReplyMalformed(local)
    config = SessionConfig(
        permissions=PermissionConfig(mode="bypass"), limits=Limits(max_model_calls=3)
    )

    async def run() -> tuple[list[Event], list[str]]:
        try:
            env = LocalEnvironment(str(tmp_path))
            async with Session(model, environment=env, config=config) as s:
                events = [event async for event in s.submit("Create a.txt containing hello.")]
                return events, problems(s.history)
        finally:
            await model.aclose()

    events, broken = asyncio.run(run())
    retries = [e for e in events if isinstance(e, Retry)]
    assert retries and retries[0].error_type == "MalformedToolCallError", retries
    assert "local MalformedToolCallError (HTTP 500)" in retries[0].cause
    assert not [e for e in events if isinstance(e, ErrorEvent)]  # the run went on
    assert model.calls >= 2 and broken == []
    assert local.server.pid is None
