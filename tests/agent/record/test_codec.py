from __future__ import annotations

import json
import types
import typing
from collections.abc import Mapping
from dataclasses import fields
from typing import Any, Literal, Union, get_args, get_origin

import pytest
from hypothesis import given
from hypothesis import strategies as st

from taor.agent.events import EVENT_TYPES, AssistantTextDelta, ToolCallEnd, UsageEvent
from taor.agent.record.codec import event_from_json, from_json, to_json, turn_from_json
from taor.agent.record.turns import TURN_TYPES, AssistantTurn, UserTurn
from taor.errors import TranscriptError
from taor.llm import connect
from taor.llm.response import Usage
from taor.llm.types import (
    ImagePart,
    Message,
    Request,
    TextPart,
    ThinkingPart,
    ToolCallPart,
    ToolResultPart,
    tool_result,
)

# -- strategies: driven by the records' own type hints, so a new field or event is covered ------

texts = st.text()  # any code point but lone surrogates: non-ASCII, controls, astral
floats = st.floats(allow_nan=False, allow_infinity=False)
json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | floats | texts,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(texts, inner, max_size=4),
    max_leaves=12,
)
json_objects = st.dictionaries(texts, json_values, max_size=4)
provider_states = st.none() | st.dictionaries(
    st.sampled_from(["anthropic", "openai", "gemini"]) | texts, json_values, max_size=3
)
images = st.builds(
    ImagePart,
    data=st.binary(max_size=64),
    media_type=st.sampled_from(["image/png", "image/jpeg"]),
    provider_state=provider_states,
) | st.builds(ImagePart, url=texts, provider_state=provider_states)


def strategy(tp: Any) -> st.SearchStrategy[Any]:
    origin, args = get_origin(tp), get_args(tp)
    simple: dict[Any, st.SearchStrategy[Any]] = {
        str: texts,
        float: floats,
        int: st.integers(),
        bool: st.booleans(),
        bytes: st.binary(max_size=64),
        type(None): st.none(),
        ImagePart: images,
        Any: json_values,
    }
    if tp in simple:
        return simple[tp]
    if origin is Literal:
        return st.sampled_from(args)
    if origin in (Union, types.UnionType):
        return st.one_of([strategy(a) for a in args])
    if origin is tuple:
        return st.lists(strategy(args[0]), max_size=3).map(tuple)
    if origin is Mapping:
        return json_objects
    return record(tp)


def record(cls: Any) -> st.SearchStrategy[Any]:
    hints = typing.get_type_hints(cls)
    named = {f.name: strategy(hints[f.name]) for f in fields(cls) if f.name != "kind"}
    if "provider_state" in named:
        named["provider_state"] = provider_states
    return st.builds(cls, **named)


def through_json(obj: object) -> Any:
    return json.loads(json.dumps(to_json(obj), ensure_ascii=False))


# -- round trips --------------------------------------------------------------------------------


@pytest.mark.parametrize("cls", EVENT_TYPES, ids=lambda c: c.__name__)
@given(data=st.data())
def test_every_event_round_trips(cls: type, data: st.DataObject) -> None:
    event = data.draw(record(cls))
    assert event_from_json(through_json(event)) == event


@pytest.mark.parametrize("cls", TURN_TYPES, ids=lambda c: c.__name__)
@given(data=st.data())
def test_every_turn_round_trips(cls: type, data: st.DataObject) -> None:
    turn = data.draw(record(cls))
    assert turn_from_json(through_json(turn)) == turn


@given(message=record(Message))
def test_messages_round_trip_with_every_part(message: Message) -> None:
    assert from_json(Message, through_json(message)) == message


def test_an_assistant_turn_keeps_opaque_state_verbatim() -> None:
    turn = AssistantTurn(
        message=Message(
            role="assistant",
            parts=(
                ThinkingPart(text="hmm", signature="sig==", provider="anthropic"),
                ThinkingPart(redacted=True, signature="opaque", provider="anthropic"),
                TextPart(text="naïve 日本 🎉", provider_state={"openai": {"phase": "final"}}),
                ToolCallPart(
                    id="c1",
                    name="shell",
                    arguments={"command": "ls"},
                    raw_arguments='{"command":"ls"}',
                    provider_state={"gemini": {"thought_signature": "abc"}},
                ),
            ),
            provider_state={"openai": {"id": "rs_1", "encrypted_content": "gAAA"}},
        ),
        usage=Usage(input_tokens=10, output_tokens=5, reasoning_tokens=2),
        response_id="resp_1",
    )
    assert turn_from_json(through_json(turn)) == turn


# -- the encoding -------------------------------------------------------------------------------


def test_kind_comes_first_and_none_defaults_are_left_out() -> None:
    assert list(to_json(AssistantTextDelta(delta="hi", timestamp=1.0))) == [
        "kind",
        "timestamp",
        "agent_id",
        "seq",
        "delta",
    ]
    assert to_json(TextPart(text="x")) == {"kind": "text", "text": "x"}


def test_image_bytes_are_base64_text() -> None:
    encoded = to_json(UserTurn(content=(ImagePart(data=b"\x89PNG\x00\xff"),), timestamp=0.0))
    assert encoded["content"] == [{"kind": "image", "data": "iVBORwD/", "media_type": "image/png"}]


def test_mappings_and_tuples_inside_json_data_become_objects_and_lists() -> None:
    part = ToolCallPart(id="c", name="t", arguments=types.MappingProxyType({"a": (1, {"b": ()})}))
    encoded = to_json(part)
    assert encoded["arguments"] == {"a": [1, {"b": []}]}
    assert type(encoded["arguments"]) is dict
    assert from_json(ToolCallPart, encoded).arguments == {"a": [1, {"b": []}]}


def test_usage_nests_as_an_object_and_decodes_from_the_field_type() -> None:
    event = UsageEvent(usage=Usage(input_tokens=3), total=Usage(output_tokens=4), cost=0.5)
    encoded = to_json(event)
    assert encoded["usage"]["input_tokens"] == 3
    assert "kind" not in encoded["usage"]
    assert event_from_json(encoded) == event


def test_data_that_is_not_json_is_a_transcript_error_naming_where() -> None:
    with pytest.raises(
        TranscriptError, match=r"ToolCallPart: arguments\['a'\]\[1\]: bytes is not JSON"
    ):
        to_json(ToolCallPart(id="c", name="t", arguments={"a": [1, b"x"]}))
    with pytest.raises(TranscriptError, match="key 1 is not a string"):
        to_json(ToolCallEnd(call_id="c", name="t", output="", metadata={1: "x"}))
    with pytest.raises(TranscriptError, match="not a record"):
        to_json(object())


# -- decoding errors ----------------------------------------------------------------------------


def test_unknown_kinds_are_named() -> None:
    with pytest.raises(TranscriptError, match=r"unknown kind 'teleport' \(expected one of: "):
        event_from_json({"kind": "teleport"})
    with pytest.raises(TranscriptError, match="unknown kind None"):
        turn_from_json({"text": "no kind"})
    with pytest.raises(TranscriptError, match="expected an object with a kind, got a list"):
        turn_from_json([])


def test_bad_shapes_name_the_path_to_the_field() -> None:
    cases: list[tuple[dict[str, Any], str]] = [
        ({"kind": "tool_call_end", "call_id": "c"}, "ToolCallEnd is missing name, output"),
        ({"kind": "user_input", "text": "x", "cycle": True}, "cycle: expected an integer"),
        ({"kind": "user_input", "text": 5, "cycle": 1}, "text: expected a string, got int"),
        ({"kind": "tool_call_end", "call_id": "c", "name": "n", "output": "", "metadata": []},
         "metadata: expected an object, got a list"),
    ]  # fmt: skip
    for data, message in cases:
        with pytest.raises(TranscriptError, match=message):
            event_from_json(data)

    parts = [{"kind": "text", "text": "ok"}, {"kind": "image", "data": "not base64!"}]
    turn = {"kind": "assistant", "message": {"role": "assistant", "parts": parts}}
    with pytest.raises(TranscriptError, match=r"turn 'assistant': message\.parts\[1\]\.data: not"):
        turn_from_json(turn)
    turn["message"] = {"role": "robot"}
    with pytest.raises(TranscriptError, match=r"message\.role: 'robot' is not one of 'system'"):
        turn_from_json(turn)
    both = {"kind": "user", "content": [{"kind": "image", "data": "", "url": "http://x"}]}
    with pytest.raises(TranscriptError, match=r"content\[0\]: invalid ImagePart: .*exactly one"):
        turn_from_json(both)
    results = {"kind": "tool_results", "results": [{"kind": "text", "text": "not a result"}]}
    with pytest.raises(
        TranscriptError, match=r"results\[0\]\.kind: 'text' is not one of 'tool_result'"
    ):
        turn_from_json(results)


def test_unknown_fields_are_ignored_and_integers_fit_float_fields() -> None:
    data = {"kind": "compaction", "timestamp": 5, "tokens_before": 9, "tokens_after": 3, "new": 1}
    event = event_from_json(data)
    assert event.timestamp == 5.0
    assert type(event.timestamp) is float


def test_results_with_images_decode() -> None:
    result = ToolResultPart(
        call_id="c1",
        content=(TextPart(text="see"), ImagePart(data=bytes(range(256)))),
        is_error=True,
        name="take_screenshot",
    )
    turn = {"kind": "tool_results", "timestamp": 1.0, "results": [to_json(result)]}
    assert turn_from_json(turn).results == (result,)  # type: ignore[union-attr]


# -- tool-call arguments are written once ------------------------------------------------------


def _call(raw: str, arguments: Mapping[str, Any], name: str = "write_file") -> AssistantTurn:
    call = ToolCallPart(id="c1", name=name, arguments=arguments, raw_arguments=raw)
    return AssistantTurn(message=Message(role="assistant", parts=(call,)), timestamp=1.0)


def test_arguments_the_raw_text_gives_back_are_written_once() -> None:
    content = "x" * 1_000_000
    raw = json.dumps({"path": "big.txt", "content": content})
    turn = _call(raw, {"path": "big.txt", "content": content})
    line = json.dumps(to_json(turn))
    assert len(line) < 1_100_000  # was about 2 MB: the arguments and the raw text
    (encoded,) = to_json(turn)["message"]["parts"]
    assert "arguments" not in encoded and encoded["raw_arguments"] == raw
    assert turn_from_json(json.loads(line)) == turn


@pytest.mark.parametrize(
    ("raw", "arguments"),
    [
        ('{"path": "a.py", "content": "x"', {}),  # cut off: nothing parsed
        ('{"path": "a.py"}', {"path": "b.py"}),  # repaired or rewritten after parsing
        ('{"n": 1.0, "flag": true}', {"n": 1, "flag": 1}),  # equal in Python, not in JSON
        ("[1, 2]", {}),  # not an object
    ],
)
def test_arguments_that_differ_from_the_raw_text_are_kept(
    raw: str, arguments: Mapping[str, Any]
) -> None:
    turn = _call(raw, arguments)
    (encoded,) = to_json(turn)["message"]["parts"]
    assert encoded["arguments"] == arguments
    back = turn_from_json(json.loads(json.dumps(to_json(turn))))
    assert back == turn
    assert json.dumps(back.message.parts[0].arguments) == json.dumps(arguments)  # type: ignore[union-attr]


def test_calls_written_with_both_forms_still_load() -> None:
    old = {
        "kind": "assistant",
        "timestamp": 1.0,
        "message": {
            "role": "assistant",
            "parts": [
                {
                    "kind": "tool_call",
                    "id": "c1",
                    "name": "shell",
                    "arguments": {"command": "ls"},
                    "raw_arguments": '{"command":"ls"}',
                }
            ],
        },
    }
    assert turn_from_json(old) == _call('{"command":"ls"}', {"command": "ls"}, name="shell")


@pytest.mark.parametrize("model", ["anthropic:m", "openai:m", "openai-compat:m", "gemini:m"])
async def test_requests_from_a_reloaded_call_are_byte_identical(model: str) -> None:
    raw = json.dumps({"path": "a.py", "content": "é\n" * 100})
    turn = _call(raw, json.loads(raw))
    reloaded = turn_from_json(json.loads(json.dumps(to_json(turn))))
    adapter = connect(model, api_key="k", base_url="http://127.0.0.1:9/v1", env={})
    try:
        bodies = [
            adapter._encode(  # type: ignore[attr-defined]
                Request(
                    messages=(
                        Message.user("go"),
                        t.message,
                        Message.tool_results(
                            tool_result("c1", "ok"),
                        ),
                    )
                )
            )[1]
            for t in (turn, reloaded)
        ]
    finally:
        await adapter.aclose()
    assert bodies[0] == bodies[1]
