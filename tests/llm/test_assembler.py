import itertools

import pytest
from hypothesis import given
from hypothesis import strategies as st

from taor.errors import StreamInterruptedError
from taor.llm import (
    Assembler,
    Finish,
    FinishReason,
    ServerToolPart,
    ServerToolResult,
    ServerToolUse,
    StateDelta,
    StreamStart,
    TextDelta,
    ThinkingDelta,
    ThinkingPart,
    ToolCallDelta,
    ToolCallEnd,
    ToolCallStart,
    Usage,
    UsageUpdate,
    assemble_events,
)
from taor.testing.script import Reply, ToolCall, reply_events

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=20),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4)
    ),
    max_leaves=12,
)
replies = st.builds(
    Reply,
    text=st.text(max_size=200),
    thinking=st.text(max_size=100),
    signature=st.none() | st.text(min_size=1, max_size=30),
    tool_calls=st.lists(
        st.builds(
            ToolCall,
            name=st.sampled_from(["read_file", "shell", "grep"]),
            arguments=st.dictionaries(st.text(max_size=10), json_values, max_size=5),
            id=st.text(alphabet="abc123", min_size=1, max_size=8).map(lambda s: "call_" + s),
        ),
        max_size=3,
    ).map(tuple),
    usage=st.builds(Usage, input_tokens=st.integers(0, 10**6), output_tokens=st.integers(0, 10**5)),
)


def events(reply: Reply, chunk: int) -> list:
    ids = (f"c{n}" for n in itertools.count())
    return list(reply_events(Reply(**{**_fields(reply), "chunk": chunk}), call_ids=ids))


def _fields(reply: Reply) -> dict:
    return {name: getattr(reply, name) for name in Reply.__dataclass_fields__}


@given(replies, st.integers(min_value=1, max_value=64))
def test_any_rechunking_assembles_to_the_same_response(reply: Reply, chunk: int) -> None:
    whole = assemble_events(events(reply, 10**6), "anthropic")
    assert assemble_events(events(reply, chunk), "anthropic") == whole
    assert whole.text == reply.text
    assert [c.name for c in whole.tool_calls] == [c.name for c in reply.tool_calls]
    assert [dict(c.arguments) for c in whole.tool_calls] == [
        dict(c.arguments) for c in reply.tool_calls
    ]


def test_parts_follow_index_order_and_interleaving() -> None:
    stream = [
        StreamStart(id="msg_1", model="m"),
        ToolCallStart(index=2, id="b", name="grep"),
        ThinkingDelta(index=0, text="plan"),
        ToolCallStart(index=1, id="a", name="shell"),
        ToolCallDelta(index=1, arguments='{"cmd":'),
        ToolCallDelta(index=2, arguments='{"q":"x"}'),
        ToolCallDelta(index=1, arguments='"ls"}'),
        ThinkingDelta(index=0, signature="sig"),
        ToolCallEnd(index=1),
        ToolCallEnd(index=2),
        UsageUpdate(usage=Usage(input_tokens=3)),
        UsageUpdate(usage=Usage(input_tokens=5, output_tokens=2)),
        Finish(reason=FinishReason(reason="stop", raw="STOP")),
    ]
    response = assemble_events(stream, "gemini")
    thinking, first, second = response.message.parts
    assert thinking == ThinkingPart(text="plan", signature="sig", provider="gemini")
    assert (first.id, first.arguments) == ("a", {"cmd": "ls"})
    assert (second.id, second.arguments) == ("b", {"q": "x"})
    assert response.finish_reason == FinishReason(reason="tool_calls", raw="STOP")
    assert response.usage == Usage(input_tokens=5, output_tokens=2)
    assert (response.id, response.model, response.provider) == ("msg_1", "m", "gemini")


def test_invalid_json_arguments_keep_the_raw_string() -> None:
    stream = [
        ToolCallStart(index=0, id="a", name="shell"),
        ToolCallDelta(index=0, arguments='{"cmd": "ls"'),
        Finish(reason=FinishReason(reason="tool_calls")),
    ]
    (call,) = assemble_events(stream).tool_calls
    assert call.arguments == {}
    assert call.raw_arguments == '{"cmd": "ls"'


def test_state_deltas_merge_per_provider_key() -> None:
    stream = [
        TextDelta(index=0, text="hi"),
        StateDelta(index=0, state={"gemini": {"thought_signature": "s1"}}),
        StateDelta(index=0, state={"gemini": {"extra": 1}}),
        StateDelta(index=None, state={"openai": {"response_id": "r"}}),
        Finish(reason=FinishReason(reason="stop")),
    ]
    message = assemble_events(stream).message
    assert message.parts[0].provider_state == {"gemini": {"thought_signature": "s1", "extra": 1}}
    assert message.provider_state == {"openai": {"response_id": "r"}}


def test_stream_without_finish_is_interrupted() -> None:
    assembler = Assembler("openai")
    assembler.feed(TextDelta(index=0, text="partial"))
    with pytest.raises(StreamInterruptedError):
        assembler.response()
    assert assembler.message().text == "partial"


def test_feed_rejects_non_events() -> None:
    with pytest.raises(TypeError):
        Assembler().feed("text")  # type: ignore[arg-type]


def test_server_tool_blocks_become_parts_in_place_not_tool_calls() -> None:
    use = {"type": "server_tool_use", "id": "srvtoolu_1", "name": "web_search", "input": {}}
    result = {"type": "web_search_tool_result", "tool_use_id": "srvtoolu_1", "content": []}
    response = assemble_events(
        [
            StreamStart(id="msg_1"),
            ServerToolUse(index=0, block=use),
            ServerToolResult(index=1, block=result),
            TextDelta(index=2, text="found nothing"),
            Finish(reason=FinishReason(reason="stop")),
        ],
        provider="anthropic",
    )
    parts = response.message.parts
    assert parts[:2] == (
        ServerToolPart(provider="anthropic", block=use),
        ServerToolPart(provider="anthropic", block=result),
    )
    assert [p.is_result for p in parts[:2]] == [False, True]  # type: ignore[union-attr]
    assert response.text == "found nothing" and not response.tool_calls
    assert response.finish_reason.reason == "stop"
