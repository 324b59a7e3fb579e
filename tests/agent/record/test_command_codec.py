"""A host's commands as JSON and back, through the events' codec: every command survives the
trip, and anything else is one ``SessionError`` that says what is wrong."""

from __future__ import annotations

import json
from typing import Any, get_args

import pytest
from hypothesis import given
from hypothesis import strategies as st

from taor.agent.commands import (
    COMMAND_TYPES,
    Answer,
    Close,
    Command,
    FollowUp,
    Interrupt,
    ListCheckpoints,
    Rewind,
    Steer,
    Submit,
)
from taor.agent.record.codec import command_from_json, to_json
from taor.errors import SessionError
from taor.llm.types import ImagePart

texts = st.text()
images = st.builds(
    ImagePart, data=st.binary(max_size=32), media_type=st.sampled_from(["image/png", "image/jpeg"])
) | st.builds(ImagePart, url=texts)
commands: st.SearchStrategy[Command] = st.one_of(
    st.builds(Submit, text=texts, images=st.lists(images, max_size=2).map(tuple)),
    st.builds(Steer, text=texts),
    st.builds(FollowUp, text=texts),
    st.just(Interrupt()),
    st.builds(
        Answer,
        request_id=texts,
        decision=st.sampled_from(["allow", "allow_always", "deny"]),
        message=texts,
        agent_id=texts,
    ),
    st.just(ListCheckpoints()),
    st.builds(Rewind, turn=st.integers(), files=st.booleans(), conversation=st.booleans()),
    st.builds(Close, reason=texts),
)
json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(), inner, max_size=3),
    max_leaves=8,
)
kinds = st.sampled_from([c.__dataclass_fields__["kind"].default for c in COMMAND_TYPES])


def test_the_strategy_covers_every_command() -> None:
    assert set(COMMAND_TYPES) == set(get_args(Command))
    assert len(COMMAND_TYPES) == 8


@given(commands)
def test_every_command_survives_a_trip_through_json_text(command: Command) -> None:
    data = to_json(command)
    assert next(iter(data)) == "kind"
    assert command_from_json(json.loads(json.dumps(data))) == command


@given(st.fixed_dictionaries({"kind": kinds}) | json_values, json_values)
def test_any_object_is_a_command_or_one_session_error(data: Any, extra: Any) -> None:
    if isinstance(data, dict):
        data = {**data, "text": extra}
    try:
        command: object = command_from_json(data)
    except SessionError as error:  # nothing else escapes
        command = error
    if isinstance(command, SessionError):
        assert str(command) and "\n" not in str(command)  # one line that says what is wrong
    else:
        assert isinstance(command, COMMAND_TYPES)


@pytest.mark.parametrize(
    ("data", "says"),
    [
        ([1, 2], "cannot decode command: expected an object with a kind, got a list"),
        ({"text": "hi"}, "unknown kind None (expected one of: answer, checkpoints, close"),
        ({"kind": "shout"}, "cannot decode command 'shout': unknown kind 'shout'"),
        ({"kind": "steer"}, "cannot decode command 'steer': Steer is missing text"),
        ({"kind": "submit", "text": 5}, "text: expected a string, got int"),
        ({"kind": "rewind", "turn": True}, "turn: expected an integer, got a boolean"),
        (
            {"kind": "answer", "request_id": "perm_1", "decision": "yes"},
            "decision: 'yes' is not one of 'allow', 'allow_always', 'deny'",
        ),
        ({"kind": "submit", "text": "x", "images": [{"data": "%%"}]}, "images[0].data: not valid"),
    ],
)
def test_a_bad_command_is_one_clear_session_error(data: Any, says: str) -> None:
    with pytest.raises(SessionError) as raised:
        command_from_json(data)
    assert says in str(raised.value) and "\n" not in str(raised.value)


def test_unknown_fields_are_ignored() -> None:
    data = {"kind": "steer", "text": "tabs", "sent_by": "an editor"}
    assert command_from_json(data) == Steer(text="tabs")
