"""Events, turns and a host's commands as JSON objects and back, for transcripts, JSON lines
and SSE.

One generic codec driven by the type hints of the frozen dataclasses (resolved once per class):

- a record becomes a ``dict`` of its fields, ``kind`` first; a field whose default is ``None``
  is left out while it is ``None`` (``provider_state`` mostly is);
- ``tuple[X, ...]`` becomes a list; ``Mapping`` a dict;
- ``bytes`` (an image's data) becomes base64 text, decoded back from the field's type;
- ``Any`` (tool arguments, metadata, provider state) must be JSON data: a ``Mapping`` is written
  as an object, a tuple as a list (and comes back as a list); anything else is a ``TypeError``.

Decoding dispatches on ``kind`` where the field's type is a union of records (events, turns,
parts) and on the field's type otherwise (``Message``, ``Usage``). Unknown fields are ignored
(a newer writer may add some); an unknown kind, a missing field or a value of the wrong shape is
a ``TranscriptError`` that names the record and the path to the field.

The work is done in ``encode`` and ``decode``, from what ``hints`` resolves
once per class.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, TypeVar

from taor.agent.events import EVENT_TYPES, Event
from taor.agent.record.codec.decode import kind_decoder, record_decoder
from taor.agent.record.codec.encode import record_encoder
from taor.agent.record.codec.hints import Bad, Codec
from taor.agent.record.turns import TURN_TYPES, Turn
from taor.errors import SessionError, TaorError, TranscriptError

if TYPE_CHECKING:
    from taor.agent.commands import Command

T = TypeVar("T")


def to_json(obj: object) -> dict[str, Any]:
    """A JSON object for any event, turn, message, part or usage record; ``TranscriptError`` when a
    field holds something that is not JSON data (say, bytes in tool arguments)."""
    try:
        return record_encoder(type(obj))(obj)  # type: ignore[no-any-return]
    except Bad as bad:
        raise TranscriptError(f"cannot encode {type(obj).__name__}: {bad.describe()}") from None


def event_from_json(data: object) -> Event:
    return _decode(kind_decoder(EVENT_TYPES), data, "event")  # type: ignore[no-any-return]


def turn_from_json(data: object) -> Turn:
    return _decode(kind_decoder(TURN_TYPES), data, "turn")  # type: ignore[no-any-return]


def command_from_json(data: object) -> Command:
    """A host's command (``taor.agent.commands``) from its object; ``SessionError`` saying
    what is wrong with it (a command is input to a session, not a record read back)."""
    from taor.agent.commands import COMMAND_TYPES  # here: a run that reads none never loads it

    return _decode(kind_decoder(COMMAND_TYPES), data, "command", SessionError)  # type: ignore[no-any-return]


def from_json(cls: type[T], data: object) -> T:
    """Any record (a ``Message``, a ``Usage``, a part, a transcript header) from its object."""
    return _decode(record_decoder(cls), data, cls.__name__)  # type: ignore[no-any-return]


def _decode(
    decode: Codec, data: object, what: str, error: type[TaorError] = TranscriptError
) -> Any:
    try:
        return decode(data)
    except Bad as bad:
        kind = data.get("kind") if isinstance(data, dict) else None
        name = f"{what} {kind!r}" if isinstance(kind, str) else what
        raise error(f"cannot decode {name}: {bad.describe()}") from None


__all__ = ["command_from_json", "event_from_json", "from_json", "to_json", "turn_from_json"]
