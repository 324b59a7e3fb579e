"""Runs through the real service under uvicorn, its model the fake provider server: a run is
queued, carried out and streamed over SSE (resumed by ``Last-Event-ID``), a permission request
is answered through the API, and each bad request gets its status."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import httpx2

from taor.testing import ToolCall, text, tool_calls

from .conftest import Served


def is_folder(path: Path) -> bool:
    return path.is_dir()


async def create(client: httpx2.AsyncClient, prompt: str = "hello", **body: Any) -> dict[str, Any]:
    answer = await client.post("/runs", json={"prompt": prompt, **body})
    assert answer.status_code == 201, answer.text
    run: dict[str, Any] = answer.json()
    return run


async def until(client: httpx2.AsyncClient, run_id: str, *statuses: str) -> dict[str, Any]:
    for _ in range(500):
        run: dict[str, Any] = (await client.get(f"/runs/{run_id}")).json()
        if run["status"] in statuses:
            return run
        await asyncio.sleep(0.02)
    raise AssertionError(f"run {run_id} stayed {run['status']}")


async def sse(
    client: httpx2.AsyncClient, run_id: str, last: int | None = None
) -> list[dict[str, Any]]:
    """Every SSE event of the run's stream (of a run that has ended), to its ``end``: the
    stream's last message, with no id."""
    headers = {"last-event-id": str(last)} if last is not None else {}
    found: list[dict[str, Any]] = []
    async with client.stream("GET", f"/runs/{run_id}/events", headers=headers) as stream:
        assert stream.headers["content-type"].startswith("text/event-stream")
        current: dict[str, Any] = {}
        async for line in stream.aiter_lines():
            if not line:
                if "data" in current:
                    found.append(current)
                current = {}
            elif not line.startswith(":"):
                key, _, value = line.partition(":")
                current[key] = value.strip()
    *events, end = found
    assert end == {"event": "end", "data": '{"kind": "end"}'}, end
    return events


async def test_a_run_is_carried_out_and_streamed_and_replayed_from_any_id(served: Served) -> None:
    served.model.push(text("Hello from the model."))
    async with served.client(served.admin) as client:
        run = await create(client)
        assert run["status"] in ("queued", "running") and run["user"] == "admin"
        done = await until(client, run["id"], "finished", "failed")
        assert done["status"] == "finished" and done["stop_reason"] == "completed"
        events = await sse(client, run["id"])
        kinds = [e["event"] for e in events]
        assert "assistant_text_end" in kinds and kinds[-2:] == ["processing_end", "session_end"]
        ids = [int(e["id"]) for e in events]
        assert ids == sorted(ids) and len(set(ids)) == len(ids)
        assert json.loads(events[0]["data"])["kind"] == events[0]["event"]
        ended = next(e for e in events if e["event"] == "assistant_text_end")
        assert json.loads(ended["data"])["text"] == "Hello from the model."
        again = await sse(client, run["id"], last=ids[2])
        assert [int(e["id"]) for e in again] == ids[3:]


async def test_a_permission_request_is_answered_through_the_api(served: Served) -> None:
    write = ToolCall(name="write_file", arguments={"path": "out.txt", "content": "made\n"})
    served.model.push(tool_calls(write), text("Written."))
    async with served.client(served.admin) as client:
        run = await create(client, "write the file")
        asking = await until(client, run["id"], "awaiting_permission", "finished", "failed")
        assert asking["status"] == "awaiting_permission", asking
        [pending] = asking["pending"]
        assert pending["tool"] == "write_file" and "out.txt" in pending["summary"]
        wrong = await client.post(f"/runs/{run['id']}/permissions/nope", json={"decision": "allow"})
        assert wrong.status_code == 404
        bad = await client.post(
            f"/runs/{run['id']}/permissions/{pending['request_id']}", json={"decision": "maybe"}
        )
        assert bad.status_code == 422 and "decision" in bad.text
        answer = await client.post(
            f"/runs/{run['id']}/permissions/{pending['request_id']}", json={"decision": "allow"}
        )
        assert answer.status_code == 202
        done = await until(client, run["id"], "finished", "failed")
    assert done["status"] == "finished"
    assert (Path(done["workspace"]) / "out.txt").read_text() == "made\n"


async def test_users_see_only_their_own_runs(served: Served) -> None:
    served.model.push(text("One."))
    ann = await served.user("ann")
    async with served.client(ann) as client:
        run = await create(client)
        await until(client, run["id"], "finished")
    bob = await served.user("bob")
    async with served.client(bob) as client:
        assert (await client.get(f"/runs/{run['id']}")).status_code == 404
        assert (await client.get(f"/runs/{run['id']}/events")).status_code == 404
        assert (await client.post(f"/runs/{run['id']}/interrupt")).status_code == 404
        assert (await client.delete(f"/runs/{run['id']}")).status_code == 404
        assert (await client.get("/runs")).json()["runs"] == []
    async with served.client(served.admin) as client:
        assert [r["id"] for r in (await client.get("/runs")).json()["runs"]] == [run["id"]]


async def test_each_bad_request_gets_its_status(served: Served) -> None:
    served.model.push(text("Done."))
    async with served.client(served.admin) as client:
        assert (await client.post("/runs", json={})).status_code == 422
        assert (await client.post("/runs", json={"prompt": ""})).status_code == 422
        over = await client.post("/runs", json={"prompt": "x", "limits": {"max_turns": 0}})
        assert over.status_code == 422 and "max_turns" in over.text
        unknown = await client.post("/runs", json={"prompt": "x", "colour": "red"})
        assert unknown.status_code == 422 and "colour" in unknown.text
        assert (await client.get("/runs/run_nope")).status_code == 404
        run = await create(client)
        workspace = Path((await until(client, run["id"], "finished"))["workspace"])
        assert is_folder(workspace)
        late = await client.post(f"/runs/{run['id']}/steer", json={"text": "also this"})
        assert late.status_code == 409 and "finished" in late.json()["detail"]
        assert (await client.post(f"/runs/{run['id']}/cancel")).status_code == 409
        assert (await client.delete(f"/runs/{run['id']}")).status_code == 204
        assert (await client.get(f"/runs/{run['id']}")).status_code == 404
        assert not is_folder(workspace)  # deleted with the run
