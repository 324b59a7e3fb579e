"""``taor serve`` stopped mid-run, as a process: by SIGTERM in the middle of a tool call, the run
is ``interrupted`` and ``continue`` finishes it without running the call again; by ``kill -9``
while a client follows the run's events, the next start serves every event the client had
been sent, the same, and the stream resumed by ``Last-Event-ID`` after a ``continue`` goes on
with no duplicate."""

from __future__ import annotations

import json
import signal
import subprocess
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx2

from taor.agent.record.store_load import load
from taor.agent.record.transcript import problems
from taor.testing import FakeProviderServer, Reply, ToolCall, stall, text, tool_calls

from .process import Home, free_port, token_of
from .process import serve as started
from .process import stop as stopped

Sse = tuple[int, str, str]  # id, event, data


def serve(data: Path, port: int, model: FakeProviderServer) -> tuple[subprocess.Popen[str], str]:
    """``taor serve`` running on ``data``; the first admin token when it printed one."""
    home = Home(data.parent / "home")
    home.root.mkdir(exist_ok=True)
    process, lines = started(
        home,
        *("--port", str(port), "--data-dir", str(data)),
        *("--model", "openai-compat:m", "--base-url", model.url),
    )
    found = [line for line in lines if line.startswith("first admin token")]
    return process, token_of(lines) if found else ""


def client(port: int, token: str) -> httpx2.Client:
    return httpx2.Client(
        base_url=f"http://127.0.0.1:{port}",
        headers={"authorization": f"Bearer {token}"},
        timeout=30,
    )


def until(web: httpx2.Client, run_id: str, check: Callable[[dict[str, Any]], bool]) -> Any:
    deadline = time.monotonic() + 60
    while not check(run := web.get(f"/runs/{run_id}").json()):
        assert time.monotonic() < deadline, run
        time.sleep(0.05)
    return run


def follow(web: httpx2.Client, run_id: str, last: int | None = None) -> Iterator[Sse]:
    """The run's SSE events, as they come (to the stream's ``end``, which has no id)."""
    headers = {"last-event-id": str(last)} if last is not None else {}
    with web.stream("GET", f"/runs/{run_id}/events", headers=headers) as stream:
        current: dict[str, str] = {}
        for line in stream.iter_lines():
            if not line:
                if current.get("event") == "end":
                    return
                if "data" in current:
                    yield int(current["id"]), current["event"], current["data"]
                current = {}
            elif not line.startswith(":"):
                key, _, value = line.partition(":")
                current[key] = value.removeprefix(" ")


def stop(process: subprocess.Popen[str]) -> None:
    code, _, err = stopped(process)
    assert code == 0, err


def test_sigterm_mid_tool_call_then_continue_runs_the_call_once(tmp_path: Path) -> None:
    data, port = tmp_path / "service", free_port()
    slow = ToolCall(
        name="shell", arguments={"command": "echo ran >> count.txt; sleep 30", "timeout": 60}
    )
    with FakeProviderServer([tool_calls(slow), text("All done.")]) as model:
        process, token = serve(data, port, model)
        with client(port, token) as web:
            run = web.post("/runs", json={"prompt": "count", "permission_mode": "bypass"}).json()
            count = Path(run["workspace"]) / "count.txt"
            deadline = time.monotonic() + 60
            while not count.exists():  # the command is running
                assert time.monotonic() < deadline
                time.sleep(0.05)
            stop(process)
        process, _ = serve(data, port, model)
        try:
            with client(port, token) as web:
                assert web.get(f"/runs/{run['id']}").json()["status"] == "interrupted"
                before = [seq for seq, _, _ in follow(web, run["id"])]
                assert web.post(f"/runs/{run['id']}/continue").status_code == 202
                done = until(web, run["id"], lambda r: r["status"] not in ("queued", "running"))
                events = list(follow(web, run["id"]))
        finally:
            stop(process)
        assert done["status"] == "finished", done
        assert count.read_text() == "ran\n"  # run once, not again on continue
        ids = [seq for seq, _, _ in events]
        assert ids[: len(before)] == before and ids == sorted(set(ids))
        assert ids[len(before)] == before[-1] + 1  # numbers go on after the last one
        assert [kind for _, kind, _ in events].count("session_end") == 2
        ended = [json.loads(d) for _, kind, d in events if kind == "tool_call_end"]
        assert len(ended) == 1 and "interrupted" in json.dumps(ended[0]).lower()
        assert any("interrupted" in result.lower() for result in model.requests[-1].tool_results)
    transcript = load(data / "runs" / f"{run['id']}.jsonl")
    assert transcript.skipped == () and problems(transcript.turns) == []


def test_kill_9_loses_no_event_a_client_was_sent(tmp_path: Path) -> None:
    data, port = tmp_path / "service", free_port()
    slow = Reply(text="a long answer that streams in small pieces", chunk=3)
    with FakeProviderServer([stall(60, after=4, reply=slow), text("Finished now.")]) as model:
        process, token = serve(data, port, model)
        received: list[Sse] = []
        try:
            with client(port, token) as web:
                run = web.post("/runs", json={"prompt": "talk"}).json()
                for event in follow(web, run["id"]):
                    received.append(event)
                    if event[1] == "assistant_text_delta":
                        break
        finally:
            process.kill()  # kill -9
            process.communicate(timeout=30)
        assert process.returncode == -signal.SIGKILL
        process, _ = serve(data, port, model)
        try:
            with client(port, token) as web:
                assert web.get(f"/runs/{run['id']}").json()["status"] == "interrupted"
                kept = list(follow(web, run["id"]))
                assert kept[: len(received)] == received  # same ids, same data
                last = received[-1][0]
                assert web.post(f"/runs/{run['id']}/continue").status_code == 202
                resumed = list(follow(web, run["id"], last))
                done = until(web, run["id"], lambda r: r["status"] not in ("queued", "running"))
                whole = list(follow(web, run["id"]))
        finally:
            stop(process)
    assert done["status"] == "finished", done
    ids = [seq for seq, _, _ in resumed]
    assert ids == sorted(set(ids)) and ids[0] == last + 1
    assert received + resumed == whole  # nothing lost, nothing twice
    assert next(e for e in whole if e[0] > kept[-1][0])[0] == kept[-1][0] + 1
    assert "Finished now." in [json.loads(d).get("text") for _, k, d in whole if k.endswith("end")]
    transcript = load(data / "runs" / f"{run['id']}.jsonl")  # every record kept, and valid
    assert transcript.skipped == () and problems(transcript.turns) == []
    assert [t.kind for t in transcript.turns].count("user") == 2  # the prompt, then go on
