"""Checks of a final answer against what the cycle did, before the cycle ends on it.

A small model says it is done when it is not: it answers a question about the files without
looking at them, says a fix works when the last run of it failed (or explains what to do
instead of doing it), writes a script and never runs it, leaves a failed command failing, or
ends on its plan ("I will edit..."). What it did is in the transcript, so some claims can be
checked without judging the text: each check below looks at the input's tool calls (their
declared effects, through the registry: no tool's name is known here) and results, and when a
claim is left unchecked gives the note to send back, once per input and check. Whether the
answer is then right is still the model's to say; the check only gives it what it needs (the
failing output, the files changed).
"""

from __future__ import annotations

import re
from collections.abc import Collection, Iterable, Sequence
from pathlib import PurePosixPath

from taor._records import frozen
from taor.agent.record.turns import AssistantTurn, ToolResultsTurn, Turn, UserTurn
from taor.llm.types import ToolCallPart, ToolResultPart
from taor.tools.registry import ToolRegistry

CODE_SUFFIXES = frozenset({".py", ".sh", ".js", ".mjs", ".ts", ".rb", ".pl", ".php", ".go"})
_SHOWN = 1200  # characters of a failing command's output put in a note
# An answer that says the work was checked: "the tests pass", "it works", "no errors".
_SAYS_IT_WORKS = re.compile(
    r"\b(pass(es|ed)?|succeed(s|ed)?|works?|working|no (more )?errors?|fixed|all tests)\b",
    re.IGNORECASE,
)
# What an answer about the files names: a file ("utils.py", "src/app"), or a number.
_NAMES_FILES = re.compile(r"\w\.[A-Za-z]{1,5}\b|\w/\w|\b\d+\b")
# A reply that says what is to be done instead of doing it: "I will edit...", "you need to...".
_ANNOUNCES = re.compile(
    r"\b(I will|I'll|I need to|I am going to|I'm going to|let me|you need to|you can do this by"
    r"|you should|you can fix)\b",
    re.IGNORECASE,
)
_FAILED = re.compile(r"failed \(exit code [1-9]|^Exit code: [1-9]", re.MULTILINE)


@frozen
class Step:
    """One tool call of the input, in order: what it read and wrote, the command it ran, and
    whether it failed (its result)."""

    reads: tuple[str, ...]
    writes: tuple[str, ...]
    command: str
    failed: bool
    output: str


@frozen
class Note:
    """An unchecked claim: which check found it, and what the model is told."""

    check: str
    text: str


def steps_of(turns: Sequence[Turn], tools: ToolRegistry) -> list[Step]:
    """The tool calls since the last input, with their results."""
    start = max((i for i, t in enumerate(turns) if isinstance(t, UserTurn)), default=-1) + 1
    results: dict[str, ToolResultPart] = {}
    calls: list[ToolCallPart] = []
    for turn in turns[start:]:
        if isinstance(turn, AssistantTurn):
            calls.extend(p for p in turn.message.parts if isinstance(p, ToolCallPart))
        elif isinstance(turn, ToolResultsTurn):
            results.update((r.call_id, r) for r in turn.results)
    steps = []
    for call in calls:
        effects, result = tools.effects(call), results.get(call.id)
        text = result.text if result is not None else ""
        failed = result is None or result.is_error or bool(_FAILED.search(text[:200]))
        steps.append(
            Step(
                reads=effects.reads,
                writes=effects.writes,
                command=effects.command if effects.runs_commands else "",
                failed=failed,
                output=text,
            )
        )
    return steps


def unchecked(steps: Sequence[Step], answer: str, *, done: Collection[str] = ()) -> Note | None:
    """The first claim of ``answer`` that ``steps`` leave unchecked, by a check not in
    ``done`` (those already said for this input); None when there is none."""
    for check in (_announced, _looked, _ran_after_change, _ended_on_a_failure, _left_failing):
        if check.__name__ not in done and (text := check(steps, answer)) is not None:
            return Note(check=check.__name__, text=text)
    return None


def _announced(steps: Sequence[Step], answer: str) -> str | None:
    """A reply that says what is to be done ("I will...", "you need to...") instead of a tool
    call that does it: the model stopped at its plan."""
    if not _ANNOUNCES.search(answer):
        return None
    return (
        "Check before you answer: your reply says what to do, but you did not do it. Do it "
        "now by calling the tools (you can change the files and run commands yourself); reply "
        "without a tool call only when it is done."
    )


def _looked(steps: Sequence[Step], answer: str) -> str | None:
    """An answer that names a file or a number, given without any tool call: a guess."""
    if steps or not _NAMES_FILES.search(answer):
        return None
    return (
        "Check before you answer: you have not read any file or run anything yet, so this "
        "answer is a guess. Call a tool now to see (read the file, search, run the code), then "
        "answer from what it shows."
    )


def _ran_after_change(steps: Sequence[Step], answer: str) -> str | None:
    """Code written or changed after the last command (or with none run): not tried."""
    last_run = max((i for i, s in enumerate(steps) if s.command), default=-1)
    changed = _unique(
        path
        for step in steps[last_run + 1 :]
        if not step.failed
        for path in step.writes
        if PurePosixPath(path).suffix in CODE_SUFFIXES
    )
    if not changed:
        return None
    after = "after the last command you ran" if last_run >= 0 else "and ran nothing"
    return (
        f"Check before you answer: you changed {', '.join(changed)} {after}. Run it now (the "
        "program, or its tests) to see that it works; fix what fails; then answer."
    )


def _ended_on_a_failure(steps: Sequence[Step], answer: str) -> str | None:
    """An answer given while the last command failed and nothing changed since: the work is
    left failing (or, when the answer says it works, the claim is wrong)."""
    ran = [i for i, s in enumerate(steps) if s.command]
    if not ran or not steps[ran[-1]].failed:
        return None
    if any(step.writes and not step.failed for step in steps[ran[-1] + 1 :]):
        return None  # changed since: _ran_after_change says to run it again
    last = steps[ran[-1]]
    output = _tail(last.output)
    claim = "your answer says it works, but " if _SAYS_IT_WORKS.search(answer) else ""
    return (
        f"Check before you answer: {claim}the last command you ran failed "
        f"(`{last.command[:200]}`), and nothing has changed since:\n{output}\nIf the task is "
        "to make it work, do it now with the tools (fix the cause, run it again). If you "
        "cannot, or the task only asked whether it works, say so in your answer."
    )


def _left_failing(steps: Sequence[Step], answer: str) -> str | None:
    """A command that failed and was not run again since (something else was done instead):
    whether what it was for now works is unknown. The command that fails because a file is
    missing, then a file made some other way, then an answer, is the usual case."""
    for i in range(len(steps) - 1, -1, -1):
        step = steps[i]
        if step.command and step.failed:
            since = steps[i + 1 :]
            if not since or any(_same_run(step.command, later) for later in since):
                return None  # the last call (_ended_on_a_failure's), or run again since
            output = _tail(step.output)
            return (
                f"Check before you answer: `{step.command[:200]}` failed, and you have not run "
                f"it again since:\n{output}\nIf the task needs it to work, run it again now "
                "and read what it says; fix what still fails. If it does not, answer."
            )
    return None


def _same_run(command: str, later: Step) -> bool:
    """Whether ``later`` ran ``command`` again: the same words, or a command that succeeded
    on the same files (``python rev.py``, then ``python /the/folder/rev.py``)."""
    if not later.command:
        return False
    if later.command == command:
        return True
    files = _files_named(command)
    return bool(files) and not later.failed and files <= _files_named(later.command)


def _files_named(command: str) -> set[str]:
    """The file names a command's words give (``rev.py``, ``src/app.js`` as ``app.js``)."""
    return {PurePosixPath(w).name for w in command.split() if "." in PurePosixPath(w).name[1:]}


def _tail(output: str) -> str:
    output = output.strip()
    return "…" + output[-_SHOWN:] if len(output) > _SHOWN else output


def _unique(paths: Iterable[str]) -> list[str]:
    return list(dict.fromkeys(paths))
