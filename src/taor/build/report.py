"""The build report: what the model says of the build, under fixed headings, with what the
runner knows for sure: the files the build created or changed (from the session's checkpoints,
each checked to be in the workspace), the checks it ran with their results, and, for a build
that stopped early, the handoff. Written to ``BUILD_REPORT.md`` whole or not at all."""

from __future__ import annotations

import os
import re
import tempfile
from collections.abc import Iterable, Sequence
from pathlib import Path

from taor._records import frozen

REPORT_FILE = "BUILD_REPORT.md"
SECTIONS = (
    ("What we built", ("built", "summary", "overview")),
    ("Architecture decisions", ("architecture", "decision", "design")),
    ("How to run it", ("run", "usage", "use it", "start")),
    ("What to look at first", ("look", "first", "review", "next")),
)
_HEADING = re.compile(r"^\s*(?:#{1,4}\s+|\*\*)(?P<name>[^*#\n]+?)(?:\*\*)?:?\s*$")
_PATH = re.compile(r"`([\w./-]+\.[a-z0-9]{1,5})`")  # a file name in code: `app.py`


@frozen
class Check:
    """A command the build ran to check its work, and whether it passed."""

    command: str
    passed: bool


@frozen
class Report:
    complete: bool
    why: str = ""  # why the build stopped early
    handoff: str = ""  # what the model said before the report, for a build stopped early
    sections: tuple[tuple[str, str], ...] = ()
    files: tuple[tuple[str, str], ...] = ()  # (path, created | changed)
    checks: tuple[Check, ...] = ()
    missing: tuple[str, ...] = ()  # files the report names that are not in the workspace
    title: str = "Build report"

    def markdown(self) -> str:
        status = "complete" if self.complete else f"incomplete: {self.why}"
        line = f"Status: **{status}**"
        if self.checks and not self.checks[-1].passed:  # said at the top, not only at the end
            line += f" (the last check, `{self.checks[-1].command}`, failed)"
        parts = [f"# {self.title}", line]
        if self.handoff:
            parts.append(f"## Where we stopped\n\n{self.handoff}")
        body = dict(self.sections)
        for name, _ in SECTIONS:
            parts.append(f"## {name}\n\n{body.get(name) or '(not written)'}")
            if name == "What we built":
                parts.append(f"## Files created\n\n{self._files()}")
        parts.append(f"## Checks we ran\n\n{self._checks()}")
        return "\n\n".join(parts) + "\n"

    def _files(self) -> str:
        lines = [f"- `{path}` ({state})" for path, state in self.files] or ["(none)"]
        if self.missing:
            named = ", ".join(f"`{p}`" for p in self.missing)
            lines.append(f"\nNamed in this report but not in the workspace: {named}.")
        return "\n".join(lines)

    def _checks(self) -> str:
        lines = [f"- `{c.command}`: {'passed' if c.passed else 'failed'}" for c in self.checks]
        return "\n".join(lines) or "(none run)"


def sections_of(text: str) -> tuple[str, tuple[tuple[str, str], ...]]:
    """The model's text before the first known heading (the handoff), and the known sections
    it wrote; a report without the headings is taken whole as what was built."""
    lead: list[str] = []
    found: dict[str, list[str]] = {}
    current: list[str] | None = None
    for line in text.splitlines():
        heading = _HEADING.match(line)
        name = _section(heading.group("name")) if heading else None
        if name is not None:
            current = found.setdefault(name, [])
        elif current is not None:
            current.append(line)
        else:
            lead.append(line)
    if not found:
        return "", (("What we built", text.strip()),) if text.strip() else ()
    sections = tuple((name, "\n".join(lines).strip()) for name, lines in found.items())
    return "\n".join(lead).strip(), sections


def _section(heading: str) -> str | None:
    words = heading.strip().lower()
    for name, hints in SECTIONS:
        if words == name.lower() or any(hint in words for hint in hints):
            return name
    return None


def checked_files(
    workspace: Path, changes: Iterable[tuple[str, str]]
) -> tuple[tuple[str, str], ...]:
    """The files a build created or changed, as the checkpoints list them, that are in the
    workspace now (a file created and then deleted is not), each once, in the order first seen."""
    seen: dict[str, str] = {}
    for path, state in changes:
        relative = _relative(workspace, path)
        if relative == REPORT_FILE or state == "deleted":
            seen.pop(relative, None)
            continue
        if relative not in seen:
            seen[relative] = state
    return tuple((p, s) for p, s in seen.items() if (workspace / p).is_file())


def missing_files(workspace: Path, sections: Sequence[tuple[str, str]]) -> tuple[str, ...]:
    """Paths the report names in ``inline code`` that are not in the workspace."""
    named = dict.fromkeys(p for _, text in sections for p in _PATH.findall(text))
    return tuple(p for p in named if not (workspace / p).exists() and "/" not in p[:1])


def _relative(workspace: Path, path: str) -> str:
    candidate = Path(path)
    if candidate.is_absolute():
        try:
            return candidate.resolve().relative_to(workspace.resolve()).as_posix()
        except ValueError:
            return candidate.as_posix()
    return candidate.as_posix().removeprefix("./")


def write_report(workspace: Path, markdown: str) -> Path:
    """``BUILD_REPORT.md`` in the workspace, replaced whole (a temporary file renamed over it)."""
    target = workspace / REPORT_FILE
    fd, temporary = tempfile.mkstemp(dir=workspace, prefix=".BUILD_REPORT.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as file:
            file.write(markdown)
        os.replace(temporary, target)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
    return target
