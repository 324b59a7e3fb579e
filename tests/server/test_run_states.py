"""The queue shows each waiting run's place; a permission answer for a request not pending is
404; the per-user quota and the queue's size are 429 with ``Retry-After``. Through the real
service, its runs stalled in the fake model's stream (the 409 matrix: ``test_run_matrix``)."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import httpx2

from taor.testing import FakeProviderServer, Reply, ToolCall, stall, text, tool_calls

from .conftest import serve
from .test_runs_api import create, sse, until

SLOW = Reply(text="a long answer", chunk=4)


def stalled() -> Any:
    return stall(60, after=2, reply=SLOW)


async def refused(answer: httpx2.Response, state: str) -> None:
    assert answer.status_code == 409, answer.text
    assert f"is {state}" in answer.json()["detail"], answer.text


async def test_queued_runs_show_their_place(tmp_path: Path) -> None:
    with FakeProviderServer([stalled()]) as model:
        async with serve(tmp_path, model, workers=1) as served, served.client(served.admin) as c:
            first = await create(c, "slow")
            await until(c, first["id"], "running")
            second, third = await create(c, "two"), await create(c, "three")
            assert (await c.get(f"/runs/{second['id']}")).json()["queue_position"] == 1
            assert (await c.get(f"/runs/{third['id']}")).json()["queue_position"] == 2
            assert (await c.get(f"/runs/{first['id']}")).json()["queue_position"] is None
            assert (await c.post(f"/runs/{second['id']}/cancel")).status_code == 202
            assert (await c.get(f"/runs/{third['id']}")).json()["queue_position"] == 1
            assert (await c.get(f"/runs/{second['id']}")).json()["queue_position"] is None
            assert (await c.delete(f"/runs/{second['id']}")).status_code == 204
            assert (await c.post(f"/runs/{third['id']}/cancel")).status_code == 202
            assert (await c.post(f"/runs/{first['id']}/cancel")).status_code == 202
            assert (await until(c, first["id"], "cancelled"))["status"] == "cancelled"
            await refused(await c.post(f"/runs/{first['id']}/cancel"), "cancelled")


async def test_an_answer_to_a_request_not_pending_is_404_while_one_is(tmp_path: Path) -> None:
    write = ToolCall(name="write_file", arguments={"path": "a.txt", "content": "a\n"})
    with FakeProviderServer([tool_calls(write), text("Written.")]) as model:
        async with serve(tmp_path, model) as served, served.client(served.admin) as c:
            run = await create(c, "write")
            asking = await until(c, run["id"], "awaiting_permission")
            [pending] = asking["pending"]
            assert pending["arguments"] == {"path": "a.txt", "content": "a\n"}
            assert pending["diff"] and "+a" in pending["diff"]
            path = f"/runs/{run['id']}"
            await refused(await c.delete(path), "awaiting_permission")
            answer = await c.post(f"{path}/permissions/nope", json={"decision": "allow"})
            assert answer.status_code == 404
            await c.post(f"{path}/permissions/{pending['request_id']}", json={"decision": "deny"})
            assert (await until(c, run["id"], "finished"))["pending"] == []


async def test_the_quota_and_the_queue_answer_429_saying_which(tmp_path: Path) -> None:
    with FakeProviderServer([stalled()]) as model:
        async with (
            serve(tmp_path, model, workers=1, max_runs_per_user=2, max_queue=1) as served,
            served.client(served.admin) as admin,
        ):
            first = await create(admin, "slow")
            await until(admin, first["id"], "running")
            second = await create(admin, "waits")
            over = await admin.post("/runs", json={"prompt": "one too many"})
            assert over.status_code == 429 and int(over.headers["retry-after"]) > 0
            assert "max_runs_per_user=2" in over.json()["detail"]
            async with served.client(await served.user("ann")) as ann:
                full = await ann.post("/runs", json={"prompt": "me too"})
                assert full.status_code == 429 and "retry-after" in full.headers
                assert "queue is full" in full.json()["detail"] and "max_queue=1" in full.text
                await admin.post(f"/runs/{second['id']}/cancel")
                taken = await ann.post("/runs", json={"prompt": "me too"})
                assert taken.status_code == 201
                await ann.post(f"/runs/{taken.json()['id']}/cancel")
            await admin.post(f"/runs/{first['id']}/cancel")
            await until(admin, first["id"], "cancelled")


async def test_a_client_following_a_queued_run_gets_its_events_once_it_runs(
    tmp_path: Path,
) -> None:
    with FakeProviderServer([stalled(), text("My turn now.")]) as model:
        async with serve(tmp_path, model, workers=1) as served, served.client(served.admin) as c:
            first = await create(c, "slow")
            await until(c, first["id"], "running")
            second = await create(c, "waits")
            following = asyncio.create_task(sse(c, second["id"]))
            await until(c, second["id"], "queued")
            assert (await c.post(f"/runs/{first['id']}/cancel")).status_code == 202
            events = await following
    kinds = [e["event"] for e in events]
    assert kinds[0] == "session_start" and kinds[-1] == "session_end"
    texts = [json.loads(e["data"])["text"] for e in events if e["event"] == "assistant_text_end"]
    assert texts == ["My turn now."]
