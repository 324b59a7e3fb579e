"""Whether the service takes one more run: a user's live runs (queued, running or awaiting a
permission answer) up to ``max_runs_per_user``, queued runs of everyone up to ``max_queue``.
Beyond either, the API answers 429 with ``Retry-After`` and the limit's name."""

from __future__ import annotations

from fastapi import HTTPException

from taor.server.config import ServiceConfig
from taor.server.seams import RunStore
from taor.server.store.tokens import User

LIVE = ("queued", "running", "awaiting_permission")
RETRY_AFTER = 10  # seconds: about how soon a worker frees a place


async def admit(config: ServiceConfig, runs: RunStore, user: User) -> None:
    """Return when ``user`` may start a run now; else raise the 429 that says which limit."""
    live = await runs.count(LIVE, user)
    if live >= config.max_runs_per_user:
        raise _full(
            f"you have {live} live runs, the most a user may have (max_runs_per_user="
            f"{config.max_runs_per_user}); wait for one to end or cancel one"
        )
    queued = await runs.count(["queued"])
    if queued >= config.max_queue:
        raise _full(
            f"the queue is full: {queued} runs wait (max_queue={config.max_queue}); try again later"
        )


def _full(message: str) -> HTTPException:
    return HTTPException(429, message, headers={"Retry-After": str(RETRY_AFTER)})
