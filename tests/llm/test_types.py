import pytest

from taor.errors import ConfigurationError
from taor.llm import (
    FinishReason,
    ImagePart,
    Message,
    Response,
    TextPart,
    ThinkingPart,
    ToolCallPart,
    ToolChoice,
    ToolDefinition,
    Usage,
    tool_result,
)


def test_tool_definition_rejects_bad_name() -> None:
    with pytest.raises(ConfigurationError, match="invalid tool name 'read file'"):
        ToolDefinition(name="read file", description="x")


def test_tool_definition_rejects_non_object_root() -> None:
    with pytest.raises(ConfigurationError, match="root has type 'object'"):
        ToolDefinition(name="t", description="x", parameters={"type": "string"})


def test_tool_definition_rejects_invalid_schema() -> None:
    schema = {"type": "object", "properties": {"path": {"type": "strnig"}}}
    with pytest.raises(ConfigurationError, match="invalid JSON Schema"):
        ToolDefinition(name="t", description="x", parameters=schema)


def test_tool_definition_accepts_valid_schema() -> None:
    schema = {"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]}
    assert (
        ToolDefinition(name="read_file", description="Read", parameters=schema).parameters == schema
    )


def test_image_part_needs_exactly_one_source() -> None:
    with pytest.raises(ConfigurationError):
        ImagePart()
    with pytest.raises(ConfigurationError):
        ImagePart(data=b"x", url="http://127.0.0.1/x.png")
    assert ImagePart(url="http://127.0.0.1/x.png").url


def test_named_tool_choice_needs_a_name() -> None:
    with pytest.raises(ConfigurationError):
        ToolChoice(mode="named")
    with pytest.raises(ConfigurationError):
        ToolChoice(mode="auto", name="x")
    assert ToolChoice(mode="named", name="x").name == "x"


def test_usage_adds_and_derives() -> None:
    a = Usage(
        input_tokens=100,
        output_tokens=10,
        cache_read_tokens=60,
        cache_write_tokens=20,
        reasoning_tokens=4,
    )
    b = Usage(input_tokens=50, output_tokens=5)
    total = a + b
    assert total == Usage(
        input_tokens=150,
        output_tokens=15,
        cache_read_tokens=60,
        cache_write_tokens=20,
        reasoning_tokens=4,
    )
    assert total.total_tokens == 165
    assert a.uncached_input_tokens == 20


def test_message_constructors_and_accessors() -> None:
    call = ToolCallPart(
        id="c1", name="shell", arguments={"cmd": "ls"}, raw_arguments='{"cmd":"ls"}'
    )
    msg = Message.assistant(ThinkingPart(text="hmm", provider="anthropic"), "I will list.", call)
    assert msg.role == "assistant"
    assert msg.text == "I will list."
    assert msg.tool_calls == [call]
    result = tool_result("c1", "a.txt", is_error=False)
    assert Message.tool_results(result).parts == (result,)
    assert result.text == "a.txt"
    assert Message.user("hi").parts == (TextPart(text="hi"),)


def test_response_accessors() -> None:
    msg = Message.assistant(ThinkingPart(text="think "), ThinkingPart(text="more"), "done")
    response = Response(message=msg, finish_reason=FinishReason(reason="stop", raw="end_turn"))
    assert response.text == "done"
    assert response.reasoning == "think more"
    assert response.tool_calls == []
    assert (
        Response(
            message=Message.assistant("x"), finish_reason=FinishReason(reason="stop")
        ).reasoning
        is None
    )
