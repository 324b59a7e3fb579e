"""``BuildRun``: a session driven through a build, from the plan to the report.

The build is one input (the kickoff; ``GO_ON`` when a build that was stopped is continued from
its transcript). Its events pass through, with the narration the ``Narrator`` makes of the
model's text after each. How the input ends decides the rest:

- it ends on its own: the plan is done; the model writes the report (``REPORT``);
- the tool-call cap or the loop guard stopped it (``LoopDetectionConfig.repeats``: the same call
  three times in ten steers the model to another approach once, and stops it if it repeats
  again): the model hands over and writes the report, marked incomplete (``HANDOFF``);
- it was interrupted, closed, or the model failed: no model is asked again; the report is made
  of what the runner knows, marked incomplete.

While the report is written no tool may run (``ReportGuard`` refuses any call). The runner adds
what it knows for sure (the files from the session's checkpoints, checked in the workspace; the
checks run and their results), writes ``BUILD_REPORT.md`` and ends with a ``build_report``
event, whose ``markdown`` is the build's result.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import AsyncIterator
from pathlib import Path

from taor.agent.config import LoopDetectionConfig, SessionConfig
from taor.agent.events import ProcessingEnd, StopReason, ToolCallEnd, ToolCallStart
from taor.agent.policy.hooks import DenyCall, Hooks, ToolCallInfo
from taor.agent.session import Session
from taor.build.events import BuildReportReady, BuildStreamEvent, Phase, SectionSummary
from taor.build.inputs import BuildInputs
from taor.build.narration import Narrator, phase_name
from taor.build.prompt import GO_ON, HANDOFF, REPORT, kickoff, nothing_done, system_prompt
from taor.build.report import (
    Check,
    Report,
    checked_files,
    missing_files,
    sections_of,
    write_report,
)

MAX_TOOL_CALLS = 150  # per run of the build: a hard number, for a predictable cost
REPEATS = 3  # the same call this many times within the loop window is a repetition
_SHELLS = {"shell", "bash", "run_shell_command", "exec_command", "local_shell"}
_CHECK = re.compile(r"pytest|unittest|\btest|_test\b|\bcheck\b|\blint|\bruff\b|\bmypy\b|\btox\b")
_WHY = {
    "turn_limit": "we reached the action limit before the plan was done",
    "loop_detected": "we kept repeating the same step after trying another approach",
    "interrupted": "the build was interrupted",
    "closed": "the build was stopped",
    "error": "the model failed",
}


class ReportGuard:
    """The build's hooks. ``before_tool``: while the report is written, every tool call is
    refused. ``on_stop``: a model that stops before any tool call ran (a small one may narrate
    the plan instead of doing it) is told to do the first step, twice at most; one that stops
    right after naming a phase (a small model ends its reply at the heading) is told to go on
    with it, a few times at most."""

    NUDGES = 2
    GO_ONS = 5

    def __init__(self, inputs: BuildInputs | None = None) -> None:
        self.inputs = inputs
        self.reporting = False
        self.calls = 0  # tool calls the build has asked for (not while reporting)
        self.nudged = 0
        self.went_on = 0

    async def before_tool(self, call: ToolCallInfo) -> DenyCall | None:
        if not self.reporting:
            self.calls += 1
            return None
        return DenyCall(message="the build is over: no more tool calls; write the report as text")

    async def on_stop(self, text: str) -> str | None:
        if self.reporting:
            return None
        last = next((line for line in reversed(text.splitlines()) if line.strip()), "")
        phase = phase_name(last)
        if phase is not None and self.went_on < self.GO_ONS:
            self.went_on += 1
            return f"Go on with {phase} now: make its first tool call."
        if self.calls or self.nudged >= self.NUDGES:
            return None
        self.nudged += 1
        return nothing_done(self.inputs)


def build_config(
    base: SessionConfig,
    inputs: BuildInputs,
    *,
    max_tool_calls: int = MAX_TOOL_CALLS,
    compact: bool = False,
) -> SessionConfig:
    """``base`` made a build's: the build's instructions first (the user's own after them),
    the tool-call cap, the repetition rule, and the plan kept through any compaction
    (``compact``: the persona in a few lines, for a small model); no answer checks: a
    build's replies without tools are narration between steps, which its own stop hook
    drives, and its report is asked for with no tool to call. The
    instructions reach the model in the prompt its profile builds (or after a system prompt
    the config sets: a session with neither has no prompt to carry them)."""
    instructions = system_prompt(inputs, compact=compact)
    if base.instructions.strip():
        instructions = f"{instructions}\n\n{base.instructions}"
    if base.system_prompt:
        base = dataclasses.replace(base, system_prompt=f"{base.system_prompt}\n\n{instructions}")
    return dataclasses.replace(
        base,
        instructions=instructions,
        limits=dataclasses.replace(
            base.limits, max_tool_calls=max_tool_calls, summary_on_limit=False
        ),
        loop_detection=LoopDetectionConfig(window=10, cooldown=10, repeats=REPEATS),
        compaction=dataclasses.replace(base.compaction, plan=inputs.plan),
        check_answers=False,
    )


def build_hooks(guard: ReportGuard, base: Hooks | None = None) -> Hooks:
    base = base or Hooks()
    return dataclasses.replace(
        base,
        before_tool=(guard.before_tool, *base.before_tool),
        on_stop=(guard.on_stop, *base.on_stop),
    )


class BuildRun:
    """One run of a build over ``session`` (made with ``build_config`` and ``build_hooks``
    over ``guard``), working in ``workspace``; see the module docstring."""

    def __init__(
        self,
        session: Session,
        *,
        workspace: Path,
        guard: ReportGuard,
        title: str = "",
        inputs: BuildInputs | None = None,
    ) -> None:
        self.session = session
        self.workspace = workspace
        self.guard = guard
        self.title = title or "Build report"
        self.narrator = Narrator()
        # a model that names no phase before it starts work: the plan's first step is the phase
        self._first_phase = (inputs.step_titles() or [""])[0] if inputs is not None else ""
        self._inputs = inputs
        self.report: Report | None = None
        self._checks: dict[str, str] = {}  # call id -> command, for the checks run
        self._done: list[Check] = []
        self._summaries: list[str] = []
        self._end: ProcessingEnd | None = None
        self.stop_reason: StopReason | None = None  # how the build's own input ended

    async def run(self, note: str = "") -> AsyncIterator[BuildStreamEvent]:
        """The build's events, the session's and the narration, ``build_report`` last.
        ``note``: the person's words for a build that is continued."""
        start = kickoff(self._inputs or BuildInputs(brief="", qna="", plan=""))
        text = start if not self.session.history else (note.strip() or GO_ON)
        if self.session.history:  # a build that goes on is past its first step
            self._first_phase = ""
            self.guard.nudged = self.guard.NUDGES
        async for event in self._input(text):
            yield event
        stop: StopReason = self._end.stop_reason if self._end is not None else "closed"
        self.stop_reason = stop
        why = "" if stop == "completed" else _WHY.get(stop, stop)
        said = ""
        if stop in ("completed", "turn_limit", "loop_detected") and self.session.state != "closed":
            prompt = REPORT if stop == "completed" else HANDOFF.format(why=f"We stopped: {why}.")
            async for event in self._report_input(prompt):
                yield event
            if self._end is not None and self._end.stop_reason != "error":
                said = self._end.text
        yield self._finish(complete=stop == "completed", why=why, said=said)

    async def _report_input(self, prompt: str) -> AsyncIterator[BuildStreamEvent]:
        """The report asked for with tools refused (two refusals at most, then the model
        gets no tools: the session's limit summary)."""
        limits = self.session.config.limits
        self.guard.reporting = True
        self.narrator.reporting(True)
        self.session.configure(
            limits=dataclasses.replace(limits, max_tool_calls=2, summary_on_limit=True)
        )
        try:
            async for event in self._input(prompt):
                yield event
        finally:
            self.guard.reporting = False
            self.narrator.reporting(False)
            if self.session.state != "closed":
                self.session.configure(limits=limits)

    async def _input(self, text: str) -> AsyncIterator[BuildStreamEvent]:
        self._end = None
        async for event in self.session.submit(text):
            if isinstance(event, ToolCallStart) and not self.narrator.phase and self._first_phase:
                self.narrator.phase = self._first_phase
                yield Phase(name=self._first_phase)
            yield event
            for made in self.narrator.feed(event):
                yield made
                if isinstance(made, SectionSummary):
                    self._summaries.append(made.text)
            self._watch(event)
        for made in self.narrator.flush():
            yield made

    def _watch(self, event: BuildStreamEvent) -> None:
        if event.agent_id:
            return
        if isinstance(event, ProcessingEnd):
            self._end = event
        elif isinstance(event, ToolCallStart) and event.name in _SHELLS:
            command = str(event.arguments.get("command") or event.arguments.get("cmd") or "")
            if _CHECK.search(command):
                self._checks[event.call_id] = command
        elif isinstance(event, ToolCallEnd) and event.call_id in self._checks:
            code = event.metadata.get("exit_code")
            passed = not event.is_error and code == 0
            self._done.append(Check(command=self._checks.pop(event.call_id), passed=passed))

    def _finish(self, *, complete: bool, why: str, said: str) -> BuildReportReady:
        handoff, sections = sections_of(said)
        if not sections and self._summaries:  # nothing written: the milestones say what was built
            sections = (("What we built", "\n".join(f"- {s}" for s in self._summaries)),)
        if not complete and not handoff:
            handoff = f"We stopped: {why}. Run `taor build --continue` to go on from here."
        changes = (
            (change.path, change.state)
            for checkpoint in self.session.checkpoints()
            for change in checkpoint.files
        )
        files = checked_files(self.workspace, changes)
        self.report = Report(
            complete=complete,
            why=why,
            handoff=handoff if not complete else "",
            sections=sections,
            files=files,
            checks=tuple(self._done),
            missing=missing_files(self.workspace, sections),
            title=self.title,
        )
        markdown = self.report.markdown()
        path = write_report(self.workspace, markdown)
        return BuildReportReady(
            markdown=markdown,
            complete=complete,
            why=why,
            path=str(path),
            files=tuple(p for p, _ in files),
        )
