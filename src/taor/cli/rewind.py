"""``taor --rewind N`` with ``--resume ID`` or ``--continue``: the session's files put back as
they were before its N-th input, and its conversation forked there (``--rewind-only`` picks
one). Without ``-p`` that is all: what was done is printed (text, or one JSON object with
``--output-format json``/``stream-json``) and taor exits 0, with no model (nothing is asked of
one). With ``-p`` the prompt then runs on the rewound session; what was done goes to stderr
(a ``{"type": "rewind", ...}`` line first on stdout with ``stream-json``).
"""

from __future__ import annotations

import dataclasses
from argparse import Namespace
from collections.abc import AsyncIterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from taor._records import frozen
from taor.errors import ConfigurationError, SessionError
from taor.host.outcome import EXIT_DONE, EXIT_USAGE

if TYPE_CHECKING:
    from taor.agent.checkpoints import RewindResult
    from taor.agent.session import Session
    from taor.cli.render import Renderer
    from taor.host.settings import Settings
    from taor.llm.events import StreamEvent
    from taor.llm.types import Request


@frozen
class RecordedModel:
    """Stands for the model a transcript names, for a run that asks nothing of a model."""

    provider: str
    model_id: str

    @classmethod
    def of(cls, path: Path) -> RecordedModel:
        from taor.agent.record.store import load

        header = load(path).header
        return cls(provider=header.provider, model_id=header.model)

    def stream(self, request: Request) -> AsyncIterator[StreamEvent]:
        raise ConfigurationError("this run only rewinds: it has no model to ask")

    async def aclose(self) -> None:
        pass


async def rewind_only(args: Namespace, settings: Settings, render: Renderer) -> int:
    """Rewind the session, print what was done, exit."""
    from taor.cli.setup import earlier_session, session_from

    path = earlier_session(args)
    assert path is not None  # the flags say --continue or --resume
    session, _ = session_from(args, settings, model=RecordedModel.of(path))
    try:
        result = await session.rewind(args.rewind, **scope(args))
    except SessionError as error:
        render.problem(str(error))
        return EXIT_USAGE
    finally:
        await session.close()
    if render.format == "text":
        for line in describe(result):
            render.say(line)
    else:
        render.result(as_json(result))
    return EXIT_DONE


async def rewind_first(
    args: Namespace, session: Session, render: Renderer, *, quiet: bool = False
) -> bool:
    """Rewind before the prompt runs, when asked to; False when the rewind was refused (a
    usage error, said on stderr)."""
    if args.rewind is None:
        return True
    try:
        result = await session.rewind(args.rewind, **scope(args))
    except SessionError as error:
        render.problem(str(error))
        return False
    if render.format == "stream-json":
        render.result(as_json(result))
    elif not quiet:
        for line in describe(result):
            render.note(line)
    return True


def scope(args: Namespace) -> dict[str, bool]:
    only = args.rewind_only
    return {"files": only != "conversation", "conversation": only != "files"}


def describe(result: RewindResult) -> list[str]:
    lines = [f"Rewound to before input {result.turn}."]
    if result.files:
        lines.append(f"Files put back: {', '.join(result.restored) or 'none'}")
        if result.removed:
            lines.append(f"Files removed (created since): {', '.join(result.removed)}")
        for change in result.unrestorable:
            lines.append(f"Not restorable: {change.path} ({change.reason})")
        lines.extend(f"Note: {note}" for note in result.notes)
    if result.conversation:
        lines.append(
            f"The conversation goes on in a new session, {result.session_id} (the original, "
            f"{result.forked_from}, is kept): taor --resume {result.session_id[:12]} -p ..."
        )
    return lines


def as_json(result: RewindResult) -> dict[str, Any]:
    return {"type": "rewind", **dataclasses.asdict(result)}
