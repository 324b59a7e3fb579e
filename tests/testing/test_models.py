import pytest

from taor.errors import RateLimitError
from taor.llm import Message, Request, RetryPolicy, complete
from taor.testing import (
    FunctionModel,
    Reply,
    ScriptedModel,
    ScriptExhaustedError,
    ToolCall,
    text,
    tool_calls,
)


def request(prompt: str = "hi") -> Request:
    return Request(messages=(Message.user(prompt),))


async def test_scripted_model_plays_steps_in_order() -> None:
    model = ScriptedModel(
        [
            tool_calls(
                ("read_file", {"path": "a.py"}),
                ToolCall(name="shell", arguments={"cmd": "ls"}, id="x"),
            ),
            Reply(text="done", thinking="all good", signature="sig"),
        ]
    )
    first = await complete(model, request())
    assert [(c.id, c.name, dict(c.arguments)) for c in first.tool_calls] == [
        ("call_1", "read_file", {"path": "a.py"}),
        ("x", "shell", {"cmd": "ls"}),
    ]
    assert first.finish_reason.reason == "tool_calls"
    second = await complete(model, request("next"))
    assert (second.text, second.reasoning) == ("done", "all good")
    assert second.message.parts[0].signature == "sig"
    assert [r.messages[0].text for r in model.requests] == ["hi", "next"]
    model.assert_done()


async def test_scripted_errors_are_raised_and_retried(no_sleep) -> None:
    model = ScriptedModel([RateLimitError("slow", retry_after=1.0), text("ok")])
    response = await complete(model, request(), retry=RetryPolicy(), sleep=no_sleep)
    assert response.text == "ok"
    assert no_sleep.delays == [1.0]
    assert len(model.requests) == 2


async def test_callable_steps_see_the_request() -> None:
    model = ScriptedModel([lambda req: text(f"echo {req.messages[-1].text}")])
    assert (await complete(model, request("ping"))).text == "echo ping"


async def test_exhausted_script_and_unused_steps_fail_clearly() -> None:
    model = ScriptedModel([text("one"), text("two")])
    await complete(model, request())
    with pytest.raises(AssertionError, match="1 scripted step"):
        model.assert_done()
    await complete(model, request())
    with pytest.raises(ScriptExhaustedError, match="model call #3"):
        await complete(model, request())


async def test_delays_use_the_injected_sleep(no_sleep) -> None:
    model = ScriptedModel([Reply(text="late", delay=2.5)], sleep=no_sleep)
    assert (await complete(model, request())).text == "late"
    assert no_sleep.delays == [2.5]


async def test_function_model_computes_replies() -> None:
    async def fn(req: Request) -> Reply:
        return text(str(len(req.messages)))

    model = FunctionModel(fn)
    assert (
        await complete(model, Request(messages=(Message.user("a"), Message.user("b"))))
    ).text == "2"
    assert len(model.requests) == 1


async def test_usage_is_estimated_when_not_scripted() -> None:
    response = await complete(ScriptedModel([text("x" * 400)]), request("y" * 400))
    assert response.usage.output_tokens == 100
    assert response.usage.input_tokens == 100
