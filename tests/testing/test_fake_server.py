"""FakeProviderServer's own behaviour, through the openai-compat adapter (any wire would do)."""

import time

import pytest

from taor.errors import InvalidRequestError
from taor.llm import Message, Request, RetryPolicy, complete, connect
from taor.testing import FakeProviderServer, RecordedRequest, Reply, text


def ask(server: FakeProviderServer, prompt: str) -> Request:
    return Request(messages=(Message.user(prompt),))


async def run(server: FakeProviderServer, *prompts: str) -> list[str]:
    model = connect("openai-compat:m", base_url=server.base_url("openai-compat"))
    try:
        return [
            (await complete(model, ask(server, p), retry=RetryPolicy(max_attempts=1))).text
            for p in prompts
        ]
    finally:
        await model.aclose()


async def test_records_requests_and_plays_steps_in_order() -> None:
    with FakeProviderServer(
        [text("one"), lambda req: text(f"saw {len(req.body)} bytes")]
    ) as server:
        first, second = await run(server, "a", "b")
        assert first == "one"
        assert second.startswith("saw ")
        assert [r.path for r in server.requests] == ["/v1/chat/completions"] * 2
        assert server.requests[0].json["messages"][-1]["content"] == "a"
        assert server.requests[0].headers["content-type"] == "application/json"
        server.assert_done()


async def test_exhausted_script_answers_a_clear_non_retryable_error() -> None:
    with FakeProviderServer([]) as server:
        with pytest.raises(InvalidRequestError, match="script is exhausted"):
            await run(server, "a")
        assert len(server.requests) == 1


async def test_default_step_answers_forever_and_record_can_be_off() -> None:
    def echo(request: RecordedRequest) -> Reply:
        return text("echo: " + request.json["messages"][-1]["content"])

    with FakeProviderServer(default=echo, record=False) as server:
        assert await run(server, "x", "y", "z") == ["echo: x", "echo: y", "echo: z"]
        assert server.requests == []


async def test_prefix_cache_simulation_counts_the_shared_prefix() -> None:
    long_prompt = "background " * 2000  # ~5.5k tokens shared by both requests
    with FakeProviderServer([text("a"), text("b")]) as server:
        model = connect("openai-compat:m", base_url=server.base_url("openai-compat"))
        try:
            first = await complete(model, ask(server, long_prompt))
            second = await complete(
                model,
                Request(
                    messages=(
                        Message.user(long_prompt),
                        Message.assistant("a"),
                        Message.user("more"),
                    )
                ),
            )
        finally:
            await model.aclose()
    assert first.usage.cache_read_tokens == 0
    assert second.usage.cache_read_tokens >= 5000
    assert second.usage.cache_read_tokens % 128 == 0
    assert second.usage.cache_read_tokens <= second.usage.input_tokens


def test_unknown_route_is_404() -> None:
    import httpx2

    with FakeProviderServer() as server:
        response = httpx2.post(server.url + "/v2/nothing", content=b"{}")
    assert response.status_code == 404
    assert "no route" in response.text


async def test_records_when_each_request_arrived_on_the_wall_clock() -> None:
    with FakeProviderServer([text("one"), text("two")]) as server:
        before = time.time_ns()
        await run(server, "a", "b")
        after = time.time_ns()
        first, second = (r.received_ns for r in server.requests)
        assert before <= first <= second <= after
