"""How long ``taor sessions`` takes over many long sessions.

Writes ``--sessions`` transcripts of ``--turns`` turns each (a user input, then assistant turns
with a tool call and tool results of ``--result-bytes`` each, as the session writes them) into
a temporary data directory, then times, in one run: the ``taor sessions`` command (wall time,
a fresh process), ``summarize`` over every file in-process, and, for comparison, ``load``
(decoding every turn) over every file. Ends with ``RESULT`` lines: the command's wall time
(target 1 s) and ``summarize`` over ``load`` (target 0.1: a list must not read whole files).

    python benchmarks/sessions_list.py                    # 200 sessions x 200 turns
    python benchmarks/sessions_list.py --sessions 50 --turns 1000
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from taor.agent.record.store import JsonlTranscriptStore, TranscriptHeader, load
from taor.agent.record.summary import summarize
from taor.agent.record.turns import AssistantTurn, ToolResultsTurn, Turn, UserTurn
from taor.host.sessions import sessions_dir
from taor.llm.response import Usage
from taor.llm.types import Message, TextPart, ToolCallPart, tool_result


def turns(count: int, result_bytes: int) -> list[Turn]:
    made: list[Turn] = [UserTurn(content=(TextPart(text="make the tests pass"),))]
    for n in range(1, count // 2 + 1):
        call = ToolCallPart(id=f"c{n}", name="shell", arguments={"command": f"pytest -k t{n}"})
        made.append(
            AssistantTurn(
                message=Message(role="assistant", parts=(TextPart(text="Running."), call)),
                usage=Usage(input_tokens=5000 + n, output_tokens=40),
                provider="anthropic",
                model="claude-sonnet-4-5",
                cost=0.01,
                session_calls=n,
                session_cost=0.01 * n,
            )
        )
        if len(made) < count:
            made.append(ToolResultsTurn(results=(tool_result(f"c{n}", "x" * result_bytes),)))
    return made[:count]


def write(folder: Path, sessions: int, count: int, result_bytes: int) -> int:
    body = turns(count, result_bytes)
    for n in range(sessions):
        path = folder / f"20260101T{n // 3600:02d}{n // 60 % 60:02d}{n % 60:02d}-{n:032x}.jsonl"
        with JsonlTranscriptStore(path) as store:
            store.create(TranscriptHeader(session_id=f"{n:032x}", created=1.7e9 + n))
            for turn in body:
                store.append_sync(turn)
    return sum(p.stat().st_size for p in folder.glob("*.jsonl"))


def timed(what: str, run: Callable[[], object]) -> float:
    start = time.perf_counter()
    run()
    seconds = time.perf_counter() - start
    print(f"  {what:<40} {seconds * 1000:8.0f} ms")
    return seconds


def main() -> None:
    options = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    options.add_argument("--sessions", type=int, default=200)
    options.add_argument("--turns", type=int, default=200)
    options.add_argument("--result-bytes", type=int, default=2000)
    args = options.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        project = Path(tmp) / "project"
        project.mkdir()
        env = {**os.environ, "XDG_DATA_HOME": str(Path(tmp) / "data")}
        os.environ["XDG_DATA_HOME"] = env["XDG_DATA_HOME"]
        folder = sessions_dir(project)
        folder.mkdir(parents=True)
        size = write(folder, args.sessions, args.turns, args.result_bytes)
        print(f"{args.sessions} sessions x {args.turns} turns, {size / 1e6:.0f} MB in all")
        files = sorted(folder.glob("*.jsonl"))
        taor = [str(Path(sys.executable).parent / "taor"), "sessions"]
        command = timed("taor sessions (a fresh process)", lambda: subprocess.run(
            taor, cwd=project, env=env, check=True, stdout=subprocess.DEVNULL))  # fmt: skip
        heads = timed("summarize() of every file", lambda: [summarize(p) for p in files])
        whole = timed("load() of every file (the baseline)", lambda: [load(p) for p in files])
    print(f"RESULT sessions_command_ms={command * 1000:.0f} target=1000")
    print(f"RESULT summarize_vs_load={heads / whole:.3f} target=0.1")


if __name__ == "__main__":
    main()
