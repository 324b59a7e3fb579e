"""A run goes on after its first input: a follow-up sent while it works runs next; an
interrupted run is continued by a follow-up (or ``continue``) with its session resumed, its
event numbers going on; what a page needs is in the run (usage, cost, stop reason, the pending
request with its command)."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

from taor.testing import FakeProviderServer, Reply, ToolCall, stall, text, tool_calls

from .conftest import Served, serve
from .test_runs_api import create, sse, until


def sent(served: Served) -> str:
    """What the model was sent last, as text."""
    return json.dumps(served.model.requests[-1].json)


async def test_a_follow_up_sent_while_the_run_works_runs_next(served: Served) -> None:
    write = ToolCall(name="write_file", arguments={"path": "a.txt", "content": "a\n"})
    served.model.push(tool_calls(write), text("Written."), text("Also done."))
    async with served.client(served.admin) as client:
        run = await create(client, "write a")
        asking = await until(client, run["id"], "awaiting_permission")
        later = await client.post(f"/runs/{run['id']}/follow_up", json={"text": "then say so"})
        assert later.status_code == 202
        request = asking["pending"][0]["request_id"]
        await client.post(f"/runs/{run['id']}/permissions/{request}", json={"decision": "allow"})
        done = await until(client, run["id"], "finished", "failed", "interrupted")
        kinds = [e["event"] for e in await sse(client, run["id"])]
    assert done["status"] == "finished" and "then say so" in sent(served)
    assert kinds.count("processing_end") == 2 and kinds[-1] == "session_end"


async def test_an_interrupted_run_is_continued_by_a_follow_up(served: Served) -> None:
    served.model.push(stall(60, after=2, reply=Reply(text="a long answer", chunk=4)))
    served.model.push(text("Continued."), text("And again."))
    async with served.client(served.admin) as client:
        run = await create(client, "talk")
        await until(client, run["id"], "running")
        async with client.stream("GET", f"/runs/{run['id']}/events") as stream:
            async for line in stream.aiter_lines():  # until the model is streaming, stalled
                if line == "event: assistant_text_delta":
                    break
        assert (await client.post(f"/runs/{run['id']}/interrupt")).status_code == 202
        stopped = await until(client, run["id"], "interrupted", "finished", "failed")
        assert stopped["status"] == "interrupted" and stopped["stop_reason"] == "interrupted"
        first = await sse(client, run["id"])
        more = await client.post(f"/runs/{run['id']}/follow_up", json={"text": "go on please"})
        assert more.status_code == 202
        done = await until(client, run["id"], "finished", "failed", "interrupted")
        assert done["status"] == "finished" and "go on please" in sent(served)
        assert done["usage"]["output_tokens"] > (stopped["usage"] or {}).get("output_tokens", 0)
        assert (await client.post(f"/runs/{run['id']}/continue", json={})).status_code == 202
        again = await until(client, run["id"], "finished", "failed", "interrupted")
        events = await sse(client, run["id"])
    assert again["status"] == "finished" and again["error"] is None
    for name, count in done["usage"].items():  # the run's usage adds up over its sessions
        assert again["usage"][name] >= count
    assert again["usage"]["input_tokens"] > done["usage"]["input_tokens"]
    ids = [int(e["id"]) for e in events]
    assert ids == sorted(set(ids)) and ids[len(first)] == int(first[-1]["id"]) + 1
    assert [e["event"] for e in events].count("session_start") == 3
    texts = [json.loads(e["data"])["text"] for e in events if e["event"] == "assistant_text_end"]
    assert texts[-2:] == ["Continued.", "And again."]
    assert "Go on with the task" in sent(served)  # a continue without text nudges


async def test_a_run_shows_what_a_page_needs(served: Served) -> None:
    listing = ToolCall(name="shell", arguments={"command": "ls -la"})
    served.model.push(tool_calls(listing), text("Not listed."))
    async with served.client(served.admin) as client:
        run = await create(client, "list")
        asking = await until(client, run["id"], "awaiting_permission")
        [pending] = asking["pending"]
        assert pending["tool"] == "shell" and pending["command"] == "ls -la"
        assert pending["diff"] is None and pending["rules"]
        request = pending["request_id"]
        await client.post(f"/runs/{run['id']}/permissions/{request}", json={"decision": "deny"})
        done = await until(client, run["id"], "finished", "failed")
    assert done["stop_reason"] == "completed" and done["pending"] == []
    assert done["usage"]["input_tokens"] > 0 and "cost" in done  # None: the model has no price


async def test_a_run_stopped_while_asking_asks_again_when_continued(tmp_path: Path) -> None:
    write = ToolCall(name="write_file", arguments={"path": "a.txt", "content": "a\n"})
    with FakeProviderServer([tool_calls(write), text("Written.")]) as model:
        async with serve(tmp_path, model) as served, served.client(served.admin) as client:
            token = served.admin
            run = await create(client, "write a")
            [asked] = (await until(client, run["id"], "awaiting_permission"))["pending"]
        async with serve(tmp_path, model) as served, served.client(token) as client:
            assert (await client.get(f"/runs/{run['id']}")).json()["status"] == "interrupted"
            assert (await client.post(f"/runs/{run['id']}/continue")).status_code == 202
            [again] = (await until(client, run["id"], "awaiting_permission"))["pending"]
            assert again["request_id"] == asked["request_id"]  # the same request, asked again
            path = f"/runs/{run['id']}/permissions/{again['request_id']}"
            assert (await client.post(path, json={"decision": "allow"})).status_code == 202
            done = await until(client, run["id"], "finished", "failed", "interrupted")
    assert done["status"] == "finished" and len(model.requests) == 2
    assert (Path(done["workspace"]) / "a.txt").read_text() == "a\n"


async def test_two_continues_at_once_queue_the_run_once(served: Served) -> None:
    # the second reply is slow, so the run carried out again is still going when the other
    # command arrives (a run that has ended again could rightly be continued once more)
    served.model.push(text("First."), text("Second.", delay=2.0), text("Never asked for."))
    async with served.client(served.admin) as client:
        run = await create(client, "talk")
        await until(client, run["id"], "finished")
        both = [
            client.post(f"/runs/{run['id']}/follow_up", json={"text": "more"}),
            client.post(f"/runs/{run['id']}/continue", json={}),
        ]
        answers = sorted([a.status_code for a in await asyncio.gather(*both)])
        done = await until(client, run["id"], "finished", "failed")
        kinds = [e["event"] for e in await sse(client, run["id"])]
    assert answers == [202, 409] and done["status"] == "finished"
    assert len(served.model.requests) == 2  # carried out once more, not twice
    assert kinds.count("session_start") == 2
