"""``Check``: one finding of a health check (``taor doctor``), what every front end can report
about its own set-up: a status, what was found, and what to do about a gap."""

from __future__ import annotations

from typing import Literal

from taor._records import frozen

Status = Literal["ok", "missing", "broken", "note"]


@frozen
class Check:
    name: str
    status: Status
    detail: str
    fatal: bool = False  # a gap here stops taor from running
