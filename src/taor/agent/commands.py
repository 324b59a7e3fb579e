"""What a host tells a session, as data: one frozen record per command, a ``kind`` each, one
union ``Command``, so that every front end (the command's stream-json input, the service, an
editor bridge) speaks the same protocol.

- ``submit``: an input, run as a cycle (queued behind a running one);
- ``steer``: a message for the model after the current tool round;
- ``follow_up``: an input to run once the current cycle ends;
- ``interrupt``: stop the current cycle;
- ``answer``: answer a ``permission_request`` (``allow``, ``allow_always`` or ``deny``);
- ``checkpoints``: list the checkpoints (one per input so far);
- ``rewind``: go back to before input ``turn`` (an idle session only);
- ``close``: close the session.

They go to JSON and back with the events' codec (``taor.agent.record.codec``: ``to_json`` and
``command_from_json``). ``Session.apply`` carries one out through ``apply_command``: each is
what the ``Session`` method of the same name does, acknowledged by the same events.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Literal, TypeAlias, assert_never

from taor._records import frozen
from taor.agent.events.base import DecisionKind
from taor.llm.types import ImagePart

if TYPE_CHECKING:  # the codec (in ``record``) loads this module: it imports no room above
    from taor.agent.checkpoints.records import Checkpoint, RewindResult
    from taor.agent.session import Session


@frozen
class Submit:
    kind: Literal["submit"] = "submit"
    text: str
    images: tuple[ImagePart, ...] = ()


@frozen
class Steer:
    kind: Literal["steer"] = "steer"
    text: str


@frozen
class FollowUp:
    kind: Literal["follow_up"] = "follow_up"
    text: str


@frozen
class Interrupt:
    kind: Literal["interrupt"] = "interrupt"


@frozen
class Answer:
    """``agent_id``: a subagent's request (else the session's own, then its children's)."""

    kind: Literal["answer"] = "answer"
    request_id: str
    decision: DecisionKind
    message: str = ""
    agent_id: str = ""


@frozen
class ListCheckpoints:
    kind: Literal["checkpoints"] = "checkpoints"


@frozen
class Rewind:
    kind: Literal["rewind"] = "rewind"
    turn: int
    files: bool = True
    conversation: bool = True


@frozen
class Close:
    kind: Literal["close"] = "close"
    reason: str = "closed"


Command = Submit | Steer | FollowUp | Interrupt | Answer | ListCheckpoints | Rewind | Close
COMMAND_TYPES: tuple[type[Command], ...] = (
    Submit,
    Steer,
    FollowUp,
    Interrupt,
    Answer,
    ListCheckpoints,
    Rewind,
    Close,
)
# What applying one returns: the checkpoints, what a rewind did, else nothing.
Reply: TypeAlias = "list[Checkpoint] | RewindResult | None"


async def apply_command(session: Session, command: Command) -> Reply:
    """Carry out ``command`` on ``session``; raises what the method of the same name raises
    (``SessionError`` and its kin). A submitted input's events come to the session's
    readers (``Session.events``)."""
    match command:
        case Submit(text=text, images=images):
            session.submit(text, images=images)  # its stream, dropped unread, unsubscribes
        case Steer(text=text):
            session.steer(text)
        case FollowUp(text=text):
            session.follow_up(text)
        case Interrupt():
            session.interrupt()
        case Answer(request_id=request_id, decision=decision):
            session.decide(request_id, decision, command.message, agent_id=command.agent_id)
        case ListCheckpoints():
            return session.checkpoints()
        case Rewind(turn=turn):
            return await session.rewind(
                turn, files=command.files, conversation=command.conversation
            )
        case Close(reason=reason):
            await session.close(reason)
        case _:
            assert_never(command)
    return None
