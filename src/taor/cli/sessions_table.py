"""``taor sessions``: one row per session, newest first, from each transcript's summary
(``taor.agent.record.summary``: its head and tail, never the whole file). A file that cannot be
read is a row that says so."""

from __future__ import annotations

import json
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from taor.agent.record.summary import TranscriptSummary, summarize
from taor.cli.sessions import project_root, session_id
from taor.errors import TranscriptError

ELLIPSIS = "…"
MODEL_WIDTH = 20


@dataclass(frozen=True, kw_only=True, slots=True)
class Row:
    """A session, or (``summary`` None) a file in the folder that is not a readable one."""

    path: Path
    summary: TranscriptSummary | None
    started: float
    problem: str = ""

    @property
    def session_id(self) -> str:
        return self.summary.session_id if self.summary else session_id(self.path)


def rows(folder: Path) -> list[Row]:
    """The sessions in ``folder``, newest first (the first is the one ``--continue`` takes)."""
    found = [_row(p) for p in folder.glob("*.jsonl") if p.is_file()] if folder.is_dir() else []
    return sorted(found, key=lambda row: (row.started, row.path.name), reverse=True)


def _row(path: Path) -> Row:
    try:
        summary = summarize(path)
        return Row(path=path, summary=summary, started=summary.created)
    except TranscriptError as error:
        problem = str(error).removeprefix(str(path)).lstrip(":0123456789 ")
    try:
        started = path.stat().st_mtime
    except OSError:
        started = 0.0
    return Row(path=path, summary=None, started=started, problem=problem)


def project_of(folder: Path, found: list[Row]) -> str:
    """Where a folder's sessions ran: the project of its newest session's directory."""
    for row in found:
        if row.summary and row.summary.cwd:
            return _home(project_root(Path(row.summary.cwd)))
    return folder.name.rsplit("-", 1)[0]


def table(found: Sequence[Row], width: int) -> list[str]:
    """Aligned columns in ``width`` characters; the first prompt takes what is left."""
    models = [row.summary.model for row in found if row.summary]
    wide = min(max(map(len, ["MODEL", *models])), MODEL_WIDTH)
    head = f"{'ID':<12}  {'STARTED':<12}  {'TURNS':>5}  {'COST':>6}  {'MODEL':<{wide}}  "
    room = max(width - len(head), 12)
    lines = [head + "FIRST PROMPT"]
    for row in found:
        s = row.summary
        if s is None:
            start = time.strftime("%b %d %H:%M", time.localtime(row.started))
            problem = _fit(f"unreadable: {row.problem}", max(width - 28, 20))
            lines.append(f"{row.session_id[:12]:<12}  {start:<12}  {problem}")
            continue
        lines.append(
            f"{s.session_id[:12]:<12}  {_when(s.created):<12}  {s.model_calls:>5}  "
            f"{_cost(s.cost):>6}  {_fit(s.model, wide):<{wide}}  "
            f"{_fit(_one_line(s.first_prompt), room)}"
        )
    return lines


def as_json(found: Iterable[tuple[str, Row]]) -> str:
    """For scripts: one array, every field of each row."""
    items: list[dict[str, Any]] = []
    for project, row in found:
        item: dict[str, Any] = {"id": row.session_id, "project": project, "path": str(row.path)}
        s = row.summary
        if s is None:
            item["error"] = row.problem
        else:
            item |= {
                "started": time.strftime("%Y-%m-%dT%H:%M:%S%z", time.localtime(s.created)),
                "cwd": s.cwd,
                "first_prompt": s.first_prompt,
                "model_calls": s.model_calls,
                "cost_usd": s.cost,
                "model": f"{s.provider}:{s.model}" if s.provider else s.model,
            }
        items.append(item)
    return json.dumps(items, ensure_ascii=False, indent=2)


def _when(stamp: float) -> str:
    local = time.localtime(stamp)
    this_year = local.tm_year == time.localtime().tm_year
    return time.strftime("%b %d %H:%M" if this_year else "%b %d  %Y", local)


def _cost(cost: float | None) -> str:
    if cost is None:
        return "?"
    return "<$0.01" if 0 < cost < 0.005 else f"${cost:.2f}"


def _one_line(text: str) -> str:
    return " ".join(text.split()) or "(no input)"


def _fit(text: str, width: int) -> str:
    return text if len(text) <= width else text[: max(width - 1, 0)] + ELLIPSIS


def _home(path: Path) -> str:
    home = Path.home()
    return (
        f"~/{path.relative_to(home)}" if path.is_relative_to(home) and path != home else str(path)
    )
