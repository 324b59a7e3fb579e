"""A host in a process of its own, for the parking tests (``test_session_parking``).

    python parking_host.py ask TRANSCRIPT WORKDIR close|wait|slow
    python parking_host.py answer TRANSCRIPT WORKDIR allow|deny|close

``ask`` starts a recorded session whose model makes two shell calls in one reply, each appending
a line to ``log.txt`` and printing it: the first is allowed by a rule, the second asks a person.
At the request it prints one JSON line, then closes the session (``close``, and ``slow``, whose
second call sleeps after its line) or waits to be killed (``wait``). ``answer`` resumes the session in a new
process, prints what it finds parked, waits for the request to be asked again, then answers it
(or closes the session instead: ``close``), and prints what happened. Every line on stdout is a
JSON object.
"""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path
from typing import Any

from taor.agent.config import PermissionConfig, SessionConfig
from taor.agent.events import Event, PermissionRequest, ProcessingEnd
from taor.agent.record.turns import ToolResultsTurn
from taor.agent.session import Session
from taor.env.local import LocalEnvironment
from taor.llm.types import ToolResultPart
from taor.testing import ScriptedModel, text, tool_calls

FIRST = ("shell", {"command": "echo first | tee -a log.txt"})
SECOND = ("shell", {"command": "echo second | tee -a log.txt"})
SLOW = ("shell", {"command": "echo second | tee -a log.txt && sleep 60"})
CONFIG = SessionConfig(
    permissions=PermissionConfig(mode="default", allow=("shell(echo first)", "shell(tee -a *)"))
)


def say(**fields: Any) -> None:
    print(json.dumps(fields), flush=True)


def texts(results: tuple[ToolResultPart, ...] | list[ToolResultPart]) -> list[str]:
    return [result.text for result in results]


async def ask(path: Path, workdir: Path, then: str) -> None:
    model = ScriptedModel([tool_calls(FIRST, SLOW if then == "slow" else SECOND)])
    environment = LocalEnvironment(str(workdir))
    session = Session.recorded(path, model, environment=environment, config=CONFIG)
    async for event in session.submit("log twice"):
        if isinstance(event, PermissionRequest):
            say(request_id=event.request_id, name=event.name, state=session.state)
            if then == "wait":
                await asyncio.Event().wait()  # until killed
            await session.close()
    say(state=session.state)


async def answer(path: Path, workdir: Path, decision: str) -> None:
    model = ScriptedModel([text("logged")])
    environment = LocalEnvironment(str(workdir))
    session = Session.resume(path, model, environment=environment, config=CONFIG)
    parked = session.parked
    say(parked=parked.request_id if parked else None, state=session.state)
    stream = session.events()
    await session.start()
    events: list[Event] = []
    async for event in stream:
        events.append(event)
        if isinstance(event, PermissionRequest):
            if decision == "close":
                await session.close()
                break
            session.decide(event.request_id, decision)
        if isinstance(event, ProcessingEnd):
            break
    await session.close()
    sent = [
        texts([p for p in request.messages[-1].parts if isinstance(p, ToolResultPart)])
        for request in model.requests
    ]
    results = [texts(t.results) for t in session.history if isinstance(t, ToolResultsTurn)]
    say(
        kinds=[event.kind for event in events],
        asked=[event.request_id for event in events if isinstance(event, PermissionRequest)],
        seqs=[event.seq for event in events],
        sent=sent,
        results=results,
    )


if __name__ == "__main__":
    command, transcript, workdir, option = sys.argv[1:5]
    run = ask if command == "ask" else answer
    asyncio.run(run(Path(transcript), Path(workdir), option))
