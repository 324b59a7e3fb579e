"""One measured client process of ``llm_overhead.py``.

    python benchmarks/_driver.py <name> --n N --base-url URL [--import-only] [--profile TOP]

Runs one conversation of N ``echo`` tool turns plus the final answer against the fake server
(``_fake_server.py``), streaming, and prints one JSON line. ``--import-only`` imports and
builds the client without any request: the baseline the parent subtracts.

Drivers: ``taor-<adapter>`` (adapter: anthropic, openai, openai-compat, gemini) and the
baselines ``sdk-<protocol>`` / ``httpx-<protocol>`` (protocol: anthropic, responses, chat,
gemini), defined in ``_sdk_loops.py`` and ``_httpx_loops.py``; ``session-anthropic`` runs it
through ``Session`` (``_session_loops.py``, for ``session_overhead.py``).
"""

from __future__ import annotations

import argparse
import asyncio
import importlib
import json
import sys
import time

SCHEMA = {"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]}
DESCRIPTION = "Echo the given text back verbatim."
_FILLER = "lorem ipsum dolor sit amet consectetur adipiscing elit sed do eiusmod tempor "

# adapter -> (protocol it speaks, model string, SDK the adapter uses, provider for base_url)
ADAPTERS = {
    "anthropic": ("anthropic", "anthropic:claude-sonnet-4-5", "anthropic"),
    "openai": ("responses", "openai:gpt-4.1", "openai"),
    "openai-compat": ("chat", "openai-compat:llama3.1", "openai"),
    "gemini": ("gemini", "gemini:gemini-2.5-flash", "google.genai"),
}


def payload(k: int, size: int = 256) -> str:
    """The echo argument of turn k (the fake server checks the results against it)."""
    head = f"turn-{k}: "
    return head + (_FILLER * (size // len(_FILLER) + 2))[: size - len(head)]


def prompt(n: int) -> str:
    # The `turns=N` tag tells the stateless fake server how many tool turns to script.
    return f"Call the echo tool whenever asked, then report the final result. turns={n}"


class Echo:
    """The tool: returns its input and counts calls."""

    def __init__(self) -> None:
        self.calls = 0

    def __call__(self, text: str) -> str:
        self.calls += 1
        return text


def build_taor(adapter: str, base_url: str, n: int, echo: Echo):
    from taor.llm import Assembler, Message, Request, ToolDefinition, connect, tool_result

    _, model_string, sdk = ADAPTERS[adapter]
    # The adapters import their SDK on the first request; import it here so that the
    # import-only baseline holds the same fixed cost as a full run.
    importlib.import_module(sdk)
    url = base_url + "/v1" if adapter.startswith("openai") else base_url
    model = connect(model_string, api_key="fake", base_url=url)
    tools = (ToolDefinition(name="echo", description=DESCRIPTION, parameters=SCHEMA),)

    async def go() -> str:
        messages = [Message.user(prompt(n))]
        while True:
            assembler = Assembler(model.provider)
            async for event in model.stream(Request(messages=tuple(messages), tools=tools)):
                assembler.feed(event)
            response = assembler.response()
            calls = response.tool_calls
            if not calls:
                await model.aclose()
                return response.text
            messages.append(response.message)
            results = [tool_result(c.id, echo(**c.arguments), name=c.name) for c in calls]
            messages.append(Message.tool_results(*results))

    return go


def build(name: str, base_url: str, n: int, echo: Echo):
    kind, _, what = name.partition("-")
    if kind == "taor":
        return build_taor(what, base_url, n, echo)
    module = {"sdk": "_sdk_loops", "httpx": "_httpx_loops", "session": "_session_loops"}[kind]
    return getattr(importlib.import_module(module), "build_" + what)(base_url, n, echo)


def profiled(go, top: int) -> str:
    import cProfile
    import pstats

    profile = cProfile.Profile()
    final = profile.runcall(asyncio.run, go())
    stats = pstats.Stats(profile, stream=sys.stderr).strip_dirs()
    for key in ("cumulative", "tottime"):
        stats.sort_stats(key).print_stats(top)
    return final


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("name")
    ap.add_argument("--n", type=int, default=50)
    ap.add_argument("--base-url", required=True)
    ap.add_argument("--import-only", action="store_true")
    ap.add_argument("--profile", type=int, metavar="TOP", help="cProfile the loop, print TOP rows")
    a = ap.parse_args()
    echo = Echo()
    go = build(a.name, a.base_url.rstrip("/"), a.n, echo)
    rec: dict = {"driver": a.name, "n": a.n, "import_only": a.import_only}
    if not a.import_only:
        c0 = time.process_time()
        final = profiled(go, a.profile) if a.profile else asyncio.run(go())
        expected = f"DONE turns={a.n} echo_ok={a.n}/{a.n}"
        rec.update(loop_cpu_s=round(time.process_time() - c0, 4), turns=echo.calls, final=final)
        rec["ok"] = echo.calls == a.n and final.strip() == expected
    print(json.dumps(rec), flush=True)


if __name__ == "__main__":
    main()
