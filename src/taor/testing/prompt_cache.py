"""The fake server's prompt-cache simulation: a request's cached tokens are the longest prefix
(in bytes / 4) it shares with one of the last four requests of its wire format, counted in
blocks of 128 tokens once at least 1024 tokens match, as OpenAI and Anthropic document their
caches."""

from __future__ import annotations

import threading
from collections import deque

from taor.llm.response import Usage
from taor.testing.recorded import RecordedRequest
from taor.testing.script import Reply, estimate_usage


class PrefixCache:
    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._bodies: dict[str, deque[bytes]] = {}

    def usage(self, request: RecordedRequest, reply: Reply) -> Usage:
        """The usage to report for ``reply`` (the script's own, when it gives one)."""
        body = request.body
        with self._lock:
            recent = self._bodies.setdefault(request.wire, deque(maxlen=4))
            shared = max((_common_prefix(body, old) for old in recent), default=0)
            recent.append(body)
        usage = estimate_usage(reply, len(body))
        if reply.usage is not None:
            return usage
        tokens, cached = len(body) // 4, shared // 4
        cached = cached - cached % 128 if cached >= 1024 else 0
        return Usage(
            input_tokens=tokens,
            cache_read_tokens=min(cached, tokens),
            output_tokens=usage.output_tokens,
            reasoning_tokens=usage.reasoning_tokens,
        )


def _common_prefix(a: bytes, b: bytes) -> int:
    lo, hi = 0, min(len(a), len(b))
    while lo < hi:  # binary search with C-speed slice comparisons
        mid = (lo + hi + 1) // 2
        if a[:mid] == b[:mid]:
            lo = mid
        else:
            hi = mid - 1
    return lo
