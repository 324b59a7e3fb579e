"""The fake provider server for ``llm_overhead.py``, in its own process (its CPU is not counted).

    python benchmarks/_fake_server.py      # prints its root URL, serves until SIGTERM

``taor.testing.FakeProviderServer`` whose default step answers any number of conversations,
on all four wire formats, without keeping the requests. Like the shared harness's mock: the number of turns N comes from a ``turns=N``
tag in the request; while the request holds k < N tool results the model says a little text
and calls ``echo`` with ``payload(k)`` (streamed 16 characters per event), then it answers
``DONE turns=k echo_ok=ok/k``, where ok counts the results equal to the payloads sent.
"""

from __future__ import annotations

import re

from _driver import payload

from taor.testing import FakeProviderServer, RecordedRequest, Reply, ToolCall

_TURNS = re.compile(rb"turns=(\d+)")


def conversation(request: RecordedRequest) -> Reply:
    """The reply to any request of an N-turn echo conversation."""
    found = _TURNS.search(request.body)
    n = int(found.group(1)) if found else 0
    results = request.tool_results
    k = len(results)
    if k < n:
        call = ToolCall(name="echo", arguments={"text": payload(k)})
        return Reply(text=f"Calling echo for turn {k}. ", tool_calls=(call,), chunk=16)
    ok = sum(r == payload(i) for i, r in enumerate(results))
    return Reply(text=f"DONE turns={k} echo_ok={ok}/{k}", chunk=16)


def main() -> None:
    server = FakeProviderServer(default=conversation, record=False)
    print(server.url, flush=True)
    server.serve_forever()


if __name__ == "__main__":
    main()
