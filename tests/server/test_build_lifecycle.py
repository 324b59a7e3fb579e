"""A build run in ``taor serve`` killed with SIGKILL mid-command: the next start has it
``interrupted``, and ``continue`` goes on from its transcript (the killed command answered
``interrupted``, never run again) to its report."""

from __future__ import annotations

import json
import signal
from pathlib import Path

from taor.testing import FakeProviderServer, tool_calls

from ..build.scripts import BRIEF, DONE, PLAN, QNA, REPORT, SCAFFOLD, TESTS
from .process import free_port
from .test_lifecycle import client, follow, serve, stop, until


def test_a_build_killed_mid_command_is_continued_to_its_report(tmp_path: Path) -> None:
    data, port = tmp_path / "service", free_port()
    slow = tool_calls(("shell", {"command": "sleep 60 && touch slept"}), text="Waiting. ")
    with FakeProviderServer([SCAFFOLD, slow]) as model:
        process, token = serve(data, port, model)
        try:
            with client(port, token) as web:
                body = {"kind": "build", "build": {"brief": BRIEF, "qna": QNA, "plan": PLAN},
                        "permission_mode": "bypass"}  # fmt: skip
                run = web.post("/runs", json=body).json()
                for _, kind, event in follow(web, run["id"]):
                    if kind == "tool_call_start" and "sleep" in event:
                        break
        finally:
            process.kill()  # kill -9
            process.communicate(timeout=30)
        assert process.returncode == -signal.SIGKILL
        workspace = Path(run["workspace"])
        assert not (workspace / "BUILD_REPORT.md").exists()
        model.push(TESTS, DONE, REPORT)
        process, _ = serve(data, port, model)
        try:
            with client(port, token) as web:
                assert web.get(f"/runs/{run['id']}").json()["status"] == "interrupted"
                assert web.post(f"/runs/{run['id']}/continue").status_code == 202
                done = until(web, run["id"], lambda r: r["status"] not in ("queued", "running"))
                events = list(follow(web, run["id"]))
        finally:
            stop(process)
    assert done["status"] == "finished" and done["stop_reason"] == "completed", done
    sent = json.dumps(model.requests[2].json)
    assert "interrupted" in sent and "We were interrupted" in sent
    report = (workspace / "BUILD_REPORT.md").read_text()
    assert "Status: **complete**" in report and "- `tally.py` (created)" in report
    assert not (workspace / "slept").exists()
    ids = [seq for seq, _, _ in events]
    assert ids == sorted(set(ids))
    kinds = [kind for _, kind, _ in events]
    assert kinds.count("build_report") == 1 and kinds[-1] == "session_end"
