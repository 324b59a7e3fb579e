"""taor posts without the official SDKs; each request must reach the server as the SDK would
send it: the same method, path (base URLs with a path prefix, with and without a trailing
slash), query, authentication and version headers, and JSON body. Each case sends a request
through taor, then hands the body taor sent to the real SDK (its ordinary streaming call)
against the same fake server, and compares the two recorded requests."""

from __future__ import annotations

import json
import subprocess
import sys
from typing import Any

import pytest

from taor.llm import Message, Request, Timeouts, complete, connect
from taor.testing import FakeProviderServer, Reply
from taor.testing.recorded import RecordedRequest

from .support import ONCE, READ

# What servers authenticate, route or version by; the rest (user-agent, the SDKs' telemetry
# headers) they do not need.
HEADERS = (
    "authorization",
    "x-api-key",
    "anthropic-version",
    "anthropic-beta",
    "openai-organization",
    "openai-project",
    "x-goog-api-key",
    "content-type",
)
KEY = "sk-parity-key"


async def _anthropic(base_url: str, body: dict[str, Any], headers: dict[str, str]) -> None:
    from anthropic import AsyncAnthropic

    required = {k: body.pop(k) for k in ("model", "max_tokens", "messages")}
    body.pop("stream")
    async with AsyncAnthropic(base_url=base_url, api_key=KEY, max_retries=0) as client:
        stream = await client.messages.create(
            **required, stream=True, extra_body=body, extra_headers=headers
        )
        async for _ in stream:
            pass


async def _openai(base_url: str, body: dict[str, Any], headers: dict[str, str]) -> None:
    from openai import AsyncOpenAI

    model, items = body.pop("model"), body.pop("input")
    body.pop("stream")
    async with AsyncOpenAI(base_url=base_url, api_key=KEY, max_retries=0) as client:
        stream = await client.responses.create(
            model=model, input=items, stream=True, extra_body=body
        )
        async for _ in stream:
            pass


async def _gemini(base_url: str, body: dict[str, Any], headers: dict[str, str]) -> None:
    """Through the request builder the SDK's ``generate_content_stream`` sends with (its
    typed config would re-encode the body: it is the URL and headers that are compared)."""
    from google import genai
    from google.genai import types

    options = types.HttpOptions(base_url=base_url, api_version="v1beta")
    client = genai.Client(api_key=KEY, vertexai=False, http_options=options)
    path = f"models/{body.pop('model')}:streamGenerateContent?alt=sse"
    try:
        stream = await client.aio._api_client.async_request_streamed("post", path, body)
        async for _ in stream:
            pass
    finally:
        await client.aio.aclose()


SDKS = {"anthropic": _anthropic, "openai": _openai, "gemini": _gemini}
MODELS = {"anthropic": "claude-haiku-4-5", "openai": "gpt-4.1", "gemini": "gemini-2.5-flash"}


async def _through_taor(
    server: FakeProviderServer, model: str, base_url: str, env: dict[str, str]
) -> RecordedRequest:
    adapter = connect(model, api_key=KEY, base_url=base_url, env=env, timeouts=Timeouts(idle=10))
    request = Request(
        messages=(Message.user("read a.txt"),),
        system="Be brief.",
        tools=(READ,),
        temperature=0.5,
        max_tokens=256,
    )
    server.push(Reply(text="ok"))
    try:
        await complete(adapter, request, retry=ONCE)
    finally:
        await adapter.aclose()
    return server.requests[-1]


def _wire(recorded: RecordedRequest) -> dict[str, Any]:
    headers = {k.lower(): v for k, v in recorded.headers.items()}
    return {
        "method": recorded.method,
        "path": recorded.path,
        "query": recorded.query,
        "headers": {name: headers.get(name) for name in HEADERS},
        "body": recorded.json,
    }


def _sdk_body(provider: str, recorded: RecordedRequest) -> dict[str, Any]:
    body: dict[str, Any] = json.loads(recorded.body)
    if provider == "gemini":  # the model is in the path, not the body
        body["model"] = recorded.path.rsplit("/", 1)[-1].split(":", 1)[0]
    return body


PREFIXES = {  # (what taor is given, what the SDK is given): with and without a trailing slash
    "anthropic": [("", ""), ("/proxy", "/proxy/"), ("/proxy/", "/proxy")],
    "openai": [("/v1", "/v1"), ("/proxy/v1/", "/proxy/v1"), ("/proxy/v1", "/proxy/v1/")],
    "gemini": [("", ""), ("/proxy", "/proxy/"), ("/proxy/", "/proxy")],
}
CASES = [(p, taor, sdk) for p, pairs in PREFIXES.items() for taor, sdk in pairs]


@pytest.mark.parametrize(("provider", "taor_prefix", "sdk_prefix"), CASES)
async def test_taor_sends_what_the_sdk_sends(
    fake_server: FakeProviderServer, provider: str, taor_prefix: str, sdk_prefix: str
) -> None:
    sent = await _through_taor(
        fake_server, f"{provider}:{MODELS[provider]}", fake_server.url + taor_prefix, env={}
    )
    fake_server.push(Reply(text="ok"))
    await SDKS[provider](fake_server.url + sdk_prefix, _sdk_body(provider, sent), {})
    assert _wire(sent) == _wire(fake_server.requests[-1])
    assert _wire(sent)["headers"][
        "x-goog-api-key" if provider == "gemini" else "authorization"
    ] in (KEY, f"Bearer {KEY}")


async def test_anthropic_beta_headers_as_the_sdk_sends_them(
    fake_server: FakeProviderServer,
) -> None:
    betas = ["interleaved-thinking-2025-05-14", "context-1m-2025-08-07"]
    adapter = connect("anthropic:claude-haiku-4-5", api_key=KEY, base_url=fake_server.url)
    options = {"anthropic": {"beta_headers": betas}}
    fake_server.push(Reply(text="ok"))
    try:
        await complete(adapter, Request(messages=(Message.user("hi"),), provider_options=options))
    finally:
        await adapter.aclose()
    sent = fake_server.requests[-1]
    fake_server.push(Reply(text="ok"))
    await _anthropic(fake_server.url, json.loads(sent.body), {"anthropic-beta": ",".join(betas)})
    assert _wire(sent) == _wire(fake_server.requests[-1])
    assert sent.headers["anthropic-beta"] == ",".join(betas)


async def test_openai_organization_and_project_from_the_environment_as_the_sdk_reads_them(
    fake_server: FakeProviderServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    env = {"OPENAI_ORG_ID": "org-parity", "OPENAI_PROJECT_ID": "proj_parity"}
    base_url = fake_server.base_url("openai")
    sent = await _through_taor(fake_server, "openai:gpt-4.1", base_url, env=env)
    for name, value in env.items():
        monkeypatch.setenv(name, value)  # the SDK reads the process environment
    fake_server.push(Reply(text="ok"))
    await _openai(base_url, _sdk_body("openai", sent), {})
    assert _wire(sent) == _wire(fake_server.requests[-1])
    assert (sent.headers["openai-organization"], sent.headers["openai-project"]) == (
        "org-parity",
        "proj_parity",
    )


SENDS = """
import asyncio, sys
from taor.llm import Message, Request, complete, connect
from taor.testing import FakeProviderServer, Reply

async def main():
    with FakeProviderServer([Reply(text="ok")]) as server:
        model = connect(sys.argv[1], api_key="k", base_url=server.base_url(sys.argv[1][:6]))
        await complete(model, Request(messages=(Message.user("hi"),)))
        await model.aclose()
asyncio.run(main())
sdks = {"anthropic", "openai", "google.genai"}
print(",".join(sorted(name for name in sys.modules if name in sdks)))
"""


@pytest.mark.parametrize("provider", list(MODELS))
def test_a_request_imports_no_sdk(provider: str) -> None:
    """An SDK import costs about a second of CPU before the first request, for nothing taor
    uses: a whole request and its answer leave every SDK unimported (in a fresh process)."""
    done = subprocess.run(
        [sys.executable, "-c", SENDS, f"{provider}:{MODELS[provider]}"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == ""
