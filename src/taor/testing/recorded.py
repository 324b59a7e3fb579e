"""``RecordedRequest``: a request as the fake provider server received it (for assertions)."""

from __future__ import annotations

from dataclasses import field
from typing import Any

from taor._records import frozen


@frozen
class RecordedRequest:
    method: str
    path: str
    query: dict[str, str]
    headers: dict[str, str]
    body: bytes
    json: Any
    wire: str
    tool_results: tuple[str, ...] = field(default=())
    request_id: str | None = None  # the id the answer carries in its headers
    # When its request line arrived: wall clock (``time.time_ns()``), which unlike a monotonic
    # clock is shared with other processes, so a client's start can be compared with it.
    received_ns: int = 0
