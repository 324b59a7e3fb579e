"""Every command that does not apply to a run in its state is 409, and says the state: one
test per row, against one service holding a run in each state (queued, running, awaiting a
permission answer, finished, cancelled)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import httpx2
import pytest
import pytest_asyncio

from taor.testing import FakeProviderServer, Reply, ToolCall, stall, text, tool_calls

from .conftest import Served, serve
from .test_runs_api import create, until

pytestmark = pytest.mark.asyncio(loop_scope="module")

Runs = tuple[httpx2.AsyncClient, dict[str, str]]  # the admin's client, a run id per state


async def streaming(client: httpx2.AsyncClient, run_id: str) -> None:
    """Return once the run's model is streaming (stalled, here)."""
    async with client.stream("GET", f"/runs/{run_id}/events") as stream:
        async for line in stream.aiter_lines():
            if line == "event: assistant_text_delta":
                return


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def runs(tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[Runs]:
    write = ToolCall(name="write_file", arguments={"path": "a.txt", "content": "a\n"})
    steps = [text("Done."), stall(60, after=2, reply=Reply(text="slow", chunk=1))]
    with FakeProviderServer([*steps, tool_calls(write)]) as model:
        data = tmp_path_factory.mktemp("matrix")
        served: Served
        async with serve(data, model, workers=2) as served, served.client(served.admin) as c:
            finished = (await create(c, "done"))["id"]
            await until(c, finished, "finished")
            running = (await create(c, "slow"))["id"]
            await streaming(c, running)
            awaiting = (await create(c, "write"))["id"]
            await until(c, awaiting, "awaiting_permission")
            queued, cancelled = (await create(c, "waits"))["id"], (await create(c, "no"))["id"]
            assert (await c.post(f"/runs/{cancelled}/cancel")).status_code == 202
            yield (
                c,
                {
                    "queued": queued,
                    "running": running,
                    "awaiting_permission": awaiting,
                    "finished": finished,
                    "cancelled": cancelled,
                },
            )
            for run_id in (queued, awaiting, running):
                await c.post(f"/runs/{run_id}/cancel")


TEXT = {"text": "more"}
ANSWER = {"decision": "allow"}
ROWS: list[tuple[str, str, str, dict[str, Any] | None]] = [
    ("queued", "POST", "/steer", TEXT),
    ("queued", "POST", "/interrupt", None),
    ("queued", "POST", "/follow_up", TEXT),
    ("queued", "POST", "/continue", None),
    ("queued", "POST", "/permissions/req_1", ANSWER),
    ("queued", "DELETE", "", None),
    ("running", "POST", "/permissions/req_1", ANSWER),
    ("running", "POST", "/continue", None),
    ("running", "DELETE", "", None),
    ("awaiting_permission", "POST", "/continue", None),
    ("awaiting_permission", "DELETE", "", None),
    ("finished", "POST", "/steer", TEXT),
    ("finished", "POST", "/interrupt", None),
    ("finished", "POST", "/cancel", None),
    ("finished", "POST", "/permissions/req_1", ANSWER),
    ("cancelled", "POST", "/steer", TEXT),
    ("cancelled", "POST", "/interrupt", None),
    ("cancelled", "POST", "/follow_up", TEXT),
    ("cancelled", "POST", "/continue", None),
    ("cancelled", "POST", "/cancel", None),
    ("cancelled", "POST", "/permissions/req_1", ANSWER),
]


@pytest.mark.parametrize(("state", "method", "path", "body"), ROWS)
async def test_a_command_that_does_not_apply_is_409_with_the_state(
    runs: Runs, state: str, method: str, path: str, body: dict[str, Any] | None
) -> None:
    client, ids = runs
    answer = await client.request(method, f"/runs/{ids[state]}{path}", json=body)
    assert answer.status_code == 409, answer.text
    assert f"run {ids[state]} is {state}" in answer.json()["detail"]
    assert (await client.get(f"/runs/{ids[state]}")).json()["status"] == state  # unchanged
