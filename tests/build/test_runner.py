"""``BuildRun`` over a real session with a scripted model, in a real folder: each way a build
ends, what the model is told, and the report written."""

from __future__ import annotations

from pathlib import Path

import pytest

from taor.agent.config import PermissionConfig, SessionConfig
from taor.agent.events import LoopDetection, SteeringInjected, ToolCallEnd
from taor.agent.profiles import Profile
from taor.agent.profiles.compat import compat_profile
from taor.agent.profiles.small import small_profile
from taor.agent.session import Session
from taor.build import BuildInputs, BuildRun, ReportGuard, build_config, build_hooks
from taor.build.events import BuildReportReady, BuildStreamEvent, Phase, SectionSummary
from taor.env.local import LocalEnvironment
from taor.testing import Reply, ScriptedModel, text, tool_calls

from .scripts import BRIEF, DONE, HANDOFF, LIST, PLAN, QNA, REPORT, SCAFFOLD, TESTS

INPUTS = BuildInputs(brief=BRIEF, qna=QNA, plan=PLAN)


async def build(
    workspace: Path, replies: list[Reply], *, cap: int = 150, profile: Profile | None = None
) -> tuple[list[BuildStreamEvent], BuildRun, ScriptedModel]:
    model = ScriptedModel(replies)
    base = SessionConfig(permissions=PermissionConfig(mode="bypass"))
    guard = ReportGuard(INPUTS)
    session = Session(
        model,
        environment=LocalEnvironment(str(workspace)),
        config=build_config(base, INPUTS, max_tool_calls=cap),
        hooks=build_hooks(guard),
        profile=profile or compat_profile(),  # its prompt carries the build's instructions
    )
    title = "Build report: Tally"
    run = BuildRun(session, workspace=workspace, guard=guard, title=title, inputs=INPUTS)
    async with session:
        events = [event async for event in run.run()]
    return events, run, model


def kinds(events: list[BuildStreamEvent], kind: str) -> list[BuildStreamEvent]:
    return [e for e in events if e.kind == kind]


async def test_a_build_narrates_its_phases_and_milestones_and_ends_with_its_report(
    tmp_path: Path,
) -> None:
    events, run, model = await build(tmp_path, [SCAFFOLD, TESTS, DONE, REPORT])
    assert [e.name for e in events if isinstance(e, Phase)] == ["Scaffolding", "Tests"]
    assert [e.text for e in events if isinstance(e, SectionSummary)] == [
        "`tally.py` counts words.",
        "the test runs green.",
    ]
    assert kinds(events, "narration")
    report = events[-1]
    assert isinstance(report, BuildReportReady) and report.complete
    assert report.files == ("tally.py", "test_tally.py")
    written = (tmp_path / "BUILD_REPORT.md").read_text()
    assert written == report.markdown
    assert "Status: **complete**" in written and "- `tally.py` (created)" in written
    assert "A word counter in `tally.py`." in written and "`python3 tally.py`" in written
    assert "Named in this report but not in the workspace: `missing.py`." in written
    assert "python3 test_tally.py`: passed" in written
    assert run.report is not None and run.report.complete
    system = model.requests[0].system
    assert BRIEF.strip() in system and QNA.strip() in system and PLAN.strip() in system
    assert '"we" and "us"' in system and "Summary:" in system
    assert "The plan is done" in model.requests[-1].messages[-1].text


async def test_a_small_models_build_gets_no_answer_checks(tmp_path: Path) -> None:
    """Its replies without tools are narration, and its report is asked for with no tool to
    call: the small profile's answer checks would send it back to the tools."""
    events, run, model = await build(
        tmp_path, [SCAFFOLD, TESTS, DONE, REPORT], profile=small_profile()
    )
    steering = [e for e in events if isinstance(e, SteeringInjected)]
    assert all(e.source != "check" for e in steering)
    assert run.report is not None and run.report.complete
    assert model.remaining == 0 and len(model.requests) == 4


async def test_no_tool_runs_while_the_report_is_written(tmp_path: Path) -> None:
    sneaky = tool_calls(("write_file", {"path": "late.py", "content": "x"}))
    events, _, _ = await build(tmp_path, [SCAFFOLD, DONE, sneaky, REPORT])
    refused = [e for e in events if isinstance(e, ToolCallEnd)]
    refused = [e for e in refused if e.is_error]
    assert len(refused) == 1 and "write the report" in refused[0].output
    assert not (tmp_path / "late.py").exists()
    assert "A word counter" in (tmp_path / "BUILD_REPORT.md").read_text()


async def test_at_the_cap_the_build_hands_over_and_its_report_is_incomplete(
    tmp_path: Path,
) -> None:
    events, _, model = await build(tmp_path, [SCAFFOLD, LIST, HANDOFF], cap=2)
    assert kinds(events, "turn_limit")
    assert "action limit" in model.requests[-1].messages[-1].text
    assert "how to continue" in model.requests[-1].messages[-1].text
    report = events[-1]
    assert isinstance(report, BuildReportReady) and not report.complete
    assert "action limit" in report.why
    written = (tmp_path / "BUILD_REPORT.md").read_text()
    assert "Status: **incomplete: we reached the action limit" in written
    assert "## Where we stopped\n\nWe reached our limit. Scaffolding is done" in written
    assert "- `tally.py` (created)" in written


async def test_a_repetition_gets_one_other_approach_then_stops_with_the_handoff(
    tmp_path: Path,
) -> None:
    same = tool_calls(("shell", {"command": "python3 missing.py"}), text="Trying again. ")
    other = tool_calls(("shell", {"command": "ls"}), text="Another way. ")
    replies = [same, same, same, other, same, same, same, HANDOFF]
    events, _, model = await build(tmp_path, replies)
    detections = [e for e in events if isinstance(e, LoopDetection)]
    assert [d.stopped for d in detections] == [False, True]
    steered = [e for e in events if isinstance(e, SteeringInjected)]
    assert steered and "different approach" in steered[0].text
    report = events[-1]
    assert isinstance(report, BuildReportReady) and not report.complete
    assert "repeating" in report.why
    assert "kept repeating" in model.requests[-1].messages[-1].text


async def test_a_build_that_fails_writes_what_it_knows(tmp_path: Path) -> None:
    from taor.testing import server_error

    failing = [server_error()] * 5  # every retry fails too
    events, _, _ = await build(tmp_path, [SCAFFOLD, *failing])
    report = events[-1]
    assert isinstance(report, BuildReportReady) and not report.complete
    assert "Run `taor build --continue`" in report.markdown
    assert "- `tally.py` (created)" in report.markdown


@pytest.mark.parametrize("reply", [text(""), text("No headings here, just words.")])
async def test_a_report_without_headings_is_kept_whole_or_made_of_the_milestones(
    tmp_path: Path, reply: Reply
) -> None:
    await build(tmp_path, [SCAFFOLD, TESTS, DONE, reply])
    written = (tmp_path / "BUILD_REPORT.md").read_text()
    expected = reply.text or "- `tally.py` counts words."
    assert f"## What we built\n\n{expected}" in written


async def test_a_model_that_names_no_phase_works_in_the_plans_first_step(tmp_path: Path) -> None:
    plain = tool_calls(("write_file", {"path": "tally.py", "content": "x = 1\n"}), text="Go. ")
    events, _, _ = await build(tmp_path, [plain, DONE, REPORT])
    phases = [e.name for e in events if isinstance(e, Phase)]
    assert phases == ["Scaffolding"]
    first = next(i for i, e in enumerate(events) if isinstance(e, Phase))
    assert events[first + 1].kind == "tool_call_start"


async def test_a_model_that_narrates_the_plan_without_doing_it_is_told_to_do_it(
    tmp_path: Path,
) -> None:
    talk = text("**Scaffolding**\nWe will create the files. Done, moving on.")
    events, _, model = await build(tmp_path, [talk, talk, SCAFFOLD, DONE, REPORT])
    nudges = [e for e in events if isinstance(e, SteeringInjected) and e.source == "hook"]
    assert len(nudges) == 2 and "Make the tool call for the first step now." in nudges[0].text
    assert "The first step: 1. Scaffolding: create tally.py" in nudges[0].text
    assert (tmp_path / "tally.py").is_file()
    kickoff = model.requests[0].messages[0].text
    assert "**Scaffolding**" in kickoff and PLAN.strip() in kickoff  # the plan, its first phase


async def test_a_model_that_never_acts_is_told_twice_then_reported(tmp_path: Path) -> None:
    talk = text("We will do it.")
    events, _, _ = await build(tmp_path, [talk, talk, talk, REPORT])
    assert len([e for e in events if isinstance(e, SteeringInjected)]) == 2
    assert isinstance(events[-1], BuildReportReady)


async def test_a_model_that_stops_at_a_phase_heading_is_told_to_go_on(tmp_path: Path) -> None:
    heading = text("**Tests**")
    events, _, _ = await build(tmp_path, [SCAFFOLD, heading, TESTS, DONE, REPORT])
    steered = [e.text for e in events if isinstance(e, SteeringInjected)]
    assert steered == ["Go on with Tests now: make its first tool call."]
    assert (tmp_path / "test_tally.py").is_file()
    assert [e.name for e in events if isinstance(e, Phase)] == ["Scaffolding", "Tests", "Tests"]


async def test_a_failed_last_check_is_said_in_the_status(tmp_path: Path) -> None:
    failing = tool_calls(("shell", {"command": "python3 -c 'raise SystemExit(1)'  # test"}))
    await build(tmp_path, [SCAFFOLD, failing, DONE, REPORT])
    status = (tmp_path / "BUILD_REPORT.md").read_text().splitlines()[2]
    assert status == (
        "Status: **complete** (the last check, `python3 -c 'raise SystemExit(1)'  # test`, failed)"
    )
