"""``taor sessions``: the catalogue's rows (``taor.host.sessions.catalogue``) as aligned
columns, or as one JSON array for scripts."""

from __future__ import annotations

import json
import time
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from taor.host.sessions.catalogue import Row
from taor.host.sessions.paths import project_root

ELLIPSIS = "…"
MODEL_WIDTH = 20


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
