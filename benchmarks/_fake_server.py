"""The fake provider server for ``llm_overhead.py``, in its own process (its CPU is not counted).

    python benchmarks/_fake_server.py      # prints its root URL, serves until SIGTERM

``taor.testing.FakeProviderServer`` with one scripted step that puts itself back on the
script each time it runs, so one server answers any number of conversations, on all four
wire formats. Like the shared harness's mock: the number of turns N comes from a ``turns=N``
tag in the request; while the request holds k < N tool results the model says a little text
and calls ``echo`` with ``payload(k)`` (streamed 16 characters per event), then it answers
``DONE turns=k echo_ok=ok/k``, where ok counts the results equal to the payloads sent.
"""

from __future__ import annotations

import contextlib
import importlib
import re

from _driver import payload

from taor.testing import FakeProviderServer, RecordedRequest, Reply, ToolCall, fake_server

_TURNS = re.compile(rb"turns=(\d+)")


class Conversation:
    """A script step that answers every request and re-arms itself."""

    def __init__(self, server: FakeProviderServer) -> None:
        self.server = server

    def __call__(self, request: RecordedRequest) -> Reply:
        self.server.push(self)
        self.server.requests.clear()  # the server records every request; keep memory flat
        found = _TURNS.search(request.body)
        n = int(found.group(1)) if found else 0
        results = request.tool_results
        k = len(results)
        if k < n:
            call = ToolCall(name="echo", arguments={"text": payload(k)})
            return Reply(text=f"Calling echo for turn {k}. ", tool_calls=(call,), chunk=16)
        ok = sum(r == payload(i) for i, r in enumerate(results))
        return Reply(text=f"DONE turns={k} echo_ok={ok}/{k}", chunk=16)


def available_wires() -> tuple:
    """The wire formats present in this checkout (all four once every adapter has landed)."""
    wires = []
    for module, cls in (
        ("anthropic", "AnthropicWire"),
        ("openai", "ResponsesWire"),
        ("chat", "ChatWire"),
        ("gemini", "GeminiWire"),
    ):
        with contextlib.suppress(ImportError):
            wires.append(getattr(importlib.import_module(f"taor.testing.wire.{module}"), cls)())
    return tuple(wires)


def main() -> None:
    fake_server.all_wires = available_wires  # tolerate a checkout where a wire is missing
    fake_server._Handler.disable_nagle_algorithm = True  # no 40 ms delayed-ACK stalls
    server = FakeProviderServer()
    server.push(Conversation(server))
    print(server.url, flush=True)
    server.serve_forever()


if __name__ == "__main__":
    main()
