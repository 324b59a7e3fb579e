"""Build runs in the service: made through the API and ``Client.create_build``, carried out by
a worker with the narration in the run's events, the report as the run's result and in its
workspace, each end (the cap, a repetition steered once then stopped), bad inputs refused before any model call, and a build
interrupted then continued from its transcript."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import httpx2

from taor.build.events import BuildReportReady, Narration, Phase, SectionSummary
from taor.server import Client
from taor.testing import Reply, stall, tool_calls

from ..build.scripts import BRIEF, DONE, HANDOFF, LIST, PLAN, QNA, REPORT, SCAFFOLD, TESTS
from .conftest import Served
from .test_runs_api import sse, until

BUILD = {"brief": BRIEF, "qna": QNA, "plan": PLAN}


def report_in(run: dict[str, Any]) -> str:
    return (Path(run["workspace"]) / "BUILD_REPORT.md").read_text()


async def create_build(client: httpx2.AsyncClient, **build: Any) -> dict[str, Any]:
    body = {"kind": "build", "build": {**BUILD, **build}, "permission_mode": "bypass"}
    answer = await client.post("/runs", json=body)
    assert answer.status_code == 201, answer.text
    run: dict[str, Any] = answer.json()
    return run


async def test_a_build_run_narrates_and_ends_with_its_report(served: Served) -> None:
    served.model.push(SCAFFOLD, TESTS, DONE, REPORT)
    async with served.client(served.admin) as client:
        run = await create_build(client)
        assert run["prompt"] == "Tally"
        done = await until(client, run["id"], "finished", "failed", "interrupted")
        events = await sse(client, run["id"])
    assert done["status"] == "finished" and done["stop_reason"] == "completed"
    kinds = [e["event"] for e in events]
    assert {"phase", "narration", "section_summary", "tool_call_start"} <= set(kinds)
    assert kinds[-3:] == ["build_report", "processing_end", "session_end"]
    assert kinds.count("processing_end") == 1
    numbers = [int(e["id"]) for e in events]
    assert numbers == sorted(set(numbers))
    report = json.loads(events[-3]["data"])
    assert report["complete"] and report["files"] == ["tally.py", "test_tally.py"]
    result = json.loads(events[-2]["data"])["text"]
    assert result == report["markdown"]
    assert report_in(done) == result
    system = served.model.requests[0].json["messages"][0]["content"]
    assert BRIEF.strip() in system and QNA.strip() in system


async def test_the_client_makes_a_build_and_reads_its_narration_typed(served: Served) -> None:
    served.model.push(SCAFFOLD, TESTS, DONE, REPORT)
    async with Client(served.url, served.admin) as client:
        run = await client.create_build(BRIEF, QNA, PLAN, permission_mode="bypass")
        events = [event async for event in client.build_events(run.id)]
        plain = [event.kind async for event in client.events(run.id)]
    assert [e.name for e in events if isinstance(e, Phase)] == ["Scaffolding", "Tests"]
    assert len([e for e in events if isinstance(e, SectionSummary)]) == 2
    assert any(isinstance(e, Narration) for e in events)
    assert isinstance(events[-3], BuildReportReady) and events[-3].complete
    assert "phase" not in plain and plain[-1] == "session_end"


async def test_bad_build_inputs_are_refused_before_any_model_call(served: Served) -> None:
    async with served.client(served.admin) as client:
        no_steps = await client.post(
            "/runs", json={"kind": "build", "build": {**BUILD, "plan": "Build it well."}}
        )
        assert no_steps.status_code == 422 and "no steps" in no_steps.text
        missing = await client.post("/runs", json={"kind": "build"})
        assert missing.status_code == 422 and "needs build" in missing.text
        empty = await client.post("/runs", json={"kind": "build", "build": {**BUILD, "qna": ""}})
        assert empty.status_code == 422
    assert served.model.requests == []


async def test_a_build_stopped_at_its_cap_hands_over(served: Served) -> None:
    served.model.push(SCAFFOLD, LIST, HANDOFF)
    async with served.client(served.admin) as client:
        run = await create_build(client, max_tool_calls=2)
        done = await until(client, run["id"], "finished", "failed", "interrupted")
    assert done["stop_reason"] == "turn_limit"
    report = report_in(done)
    assert "Status: **incomplete: we reached the action limit" in report
    assert "We reached our limit." in report


async def test_a_repetition_is_steered_once_then_stopped_with_the_handoff(
    served: Served,
) -> None:
    same = tool_calls(("shell", {"command": "python3 nothing.py"}), text="Running it. ")
    other = tool_calls(("read_file", {"path": "brief.md"}), text="Another way. ")
    served.model.push(same, same, same, other, same, same, same, HANDOFF)
    async with served.client(served.admin) as client:
        run = await create_build(client)
        done = await until(client, run["id"], "finished", "failed", "interrupted")
        events = await sse(client, run["id"])
    kinds = [e["event"] for e in events]
    assert kinds.count("loop_detection") == 2
    assert done["stop_reason"] == "loop_detected"
    report = report_in(done)
    assert "Status: **incomplete" in report and "We reached our limit." in report
    steering = [json.loads(e["data"]) for e in events if e["event"] == "steering_injected"]
    assert len(steering) == 1


async def test_an_interrupted_build_is_continued_from_its_transcript(served: Served) -> None:
    served.model.push(SCAFFOLD, stall(60, after=2, reply=Reply(text="Thinking about it", chunk=4)))
    async with served.client(served.admin) as client:
        run = await create_build(client)
        tool_ran = False
        async with client.stream("GET", f"/runs/{run['id']}/events") as stream:
            async for line in stream.aiter_lines():  # until the second reply streams, stalled
                tool_ran = tool_ran or line == "event: tool_call_end"
                if tool_ran and line == "event: assistant_text_delta":
                    break
        assert (await client.post(f"/runs/{run['id']}/interrupt")).status_code == 202
        stopped = await until(client, run["id"], "interrupted", "finished", "failed")
        assert stopped["status"] == "interrupted"
        first = report_in(stopped)
        assert "Status: **incomplete: the build was interrupted" in first
        served.model.push(TESTS, DONE, REPORT)
        assert (await client.post(f"/runs/{run['id']}/continue", json={})).status_code == 202
        done = await until(client, run["id"], "finished", "failed", "interrupted")
        events = await sse(client, run["id"])
    assert done["status"] == "finished" and done["stop_reason"] == "completed"
    assert "We were interrupted" in json.dumps(served.model.requests[2].json)
    report = report_in(done)
    assert "Status: **complete**" in report and "- `tally.py` (created)" in report
    numbers = [int(e["id"]) for e in events]
    assert numbers == sorted(set(numbers))
    assert [e["event"] for e in events].count("build_report") == 2
