"""Small coding tasks with the local model: ``taor -p --model local`` against a bare loop.

    python benchmarks/local_tasks.py                    # all tasks, taor then the bare loop
    python benchmarks/local_tasks.py --set tuning       # only the tuning set
    python benchmarks/local_tasks.py --only fix_off_by_one,small_cli --skip-bare

Each task starts from a few files in a fresh scratch directory and is judged by a check of the
files or of the final answer (``_local_tasks/``). The tasks are split once into a tuning set
and a held-out set: tune on the first, and read both (each is reported on its own). taor runs as the real command (its own
llama.cpp server, started and stopped per task, so no cache carries over); the bare loop
(``_bare_loop.py``: the ``openai`` client, ``bash`` and ``write_file``, a three-sentence
prompt) talks to one server started here with the same settings, its prompt cache erased
between tasks. Both get 15 model calls and 300 s per task, temperature 0, 2 threads.

Prints both tables, then per set ``RESULT local_tasks_solved_<set>=N/M`` and
``RESULT bare_tasks_solved_<set>=N/M``, and over all tasks run ``RESULT
local_tasks_median_wall_s=...`` (taor) and ``RESULT local_overhead_pct=...``: taor's time
outside model calls and tool runs (process and server start, stop, its own work), as a share
of the time inside them, from the transcript's timestamps.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _bare_loop import bare_loop
from _local_tasks import SETS, TASKS, Task

MAX_CALLS, MAX_WALL, THREADS = 15, 300.0, 2
SESSIONS = Path(os.environ.get("XDG_DATA_HOME", Path.home() / ".local/share")) / "taor/sessions"


def _scratch(task: Task) -> Path:
    directory = Path(tempfile.mkdtemp(prefix=f"lt-{task.name}-"))
    for name, text in task.files.items():
        (directory / name).write_text(text)
    subprocess.run(["git", "init", "-q"], cwd=directory, check=True)
    return directory


def _taor() -> str:
    return shutil.which("taor") or str(Path(sys.executable).parent / "taor")


def _transcript_times(session_id: str) -> tuple[float, float, str]:
    """Seconds in model calls and in tool runs, and whether a malformed call was retried."""
    found = list(SESSIONS.glob(f"*/*{session_id}.jsonl")) if session_id else []
    if not found:
        return 0.0, 0.0, ""
    model_s = tools_s = 0.0
    last, notes = None, ""
    for line in found[0].read_text().splitlines():
        record = json.loads(line)
        stamp = record.get("timestamp")
        if record.get("kind") == "assistant" and last is not None:
            model_s += stamp - last
        if record.get("kind") == "tool_results" and last is not None:
            tools_s += stamp - last
        if "MalformedToolCall" in line:
            notes = "malformed-retried"
        last = stamp if stamp is not None else last
    return model_s, tools_s, notes


def run_taor(task: Task) -> dict[str, Any]:
    directory = _scratch(task)
    command = [_taor(), "-p", task.prompt, "--model", "local", "--permission-mode", "bypass"]
    command += ["--max-turns", str(MAX_CALLS), "--max-wall", str(int(MAX_WALL))]
    command += ["--output-format", "json"]
    env = dict(os.environ, TAOR_LOCAL_THREADS=str(THREADS))
    began = time.monotonic()
    try:
        done = subprocess.run(
            command, cwd=directory, env=env, capture_output=True, text=True, timeout=MAX_WALL + 60
        )
        lines = done.stdout.strip().splitlines()
        summary = json.loads(lines[-1]) if lines else {"error": done.stderr[-200:]}
    except subprocess.TimeoutExpired:
        summary = {"stop_reason": "killed"}
    wall = time.monotonic() - began
    model_s, tools_s, notes = _transcript_times(summary.get("session_id", ""))
    answer = summary.get("result") or ""
    return {
        "solved": task.check(directory, answer),
        "wall": wall,
        "calls": summary.get("model_calls", 0),
        "end": summary.get("stop_reason") or str(summary.get("error"))[:60],
        "inside": model_s + tools_s,
        "notes": notes,
        "answer": answer,
        "session": f"{summary.get('session_id', '')} in {directory}",
    }


async def _start_server() -> Any:
    from taor.llm.local.model import connect_local
    from taor.llm.local.server import LocalServer

    server = LocalServer(connect_local("", threads=THREADS).server.settings)
    await server.start()
    return server


def _erase_cache(base_url: str) -> None:
    import httpx2 as httpx  # taor's own HTTP client

    with contextlib.suppress(Exception):  # a server without slot actions: nothing to erase
        httpx.post(base_url.removesuffix("/v1") + "/slots/0?action=erase", timeout=10)


def run_bare(task: Task, base_url: str) -> dict[str, Any]:
    directory = _scratch(task)
    _erase_cache(base_url)
    began = time.monotonic()
    out = bare_loop(base_url, task.prompt, directory, max_calls=MAX_CALLS, max_wall=MAX_WALL)
    wall = time.monotonic() - began
    return {
        "solved": task.check(directory, out["answer"]),
        "wall": wall,
        "calls": out["calls"],
        "end": out["end"],
        "inside": wall,
        "notes": "",
        "answer": out["answer"],
    }


def _table(title: str, rows: dict[str, dict[str, Any]]) -> None:
    print(f"\n{title}")
    print(f"{'task':24} {'solved':6} {'wall_s':>7} {'calls':>5}  end")
    for name, row in rows.items():
        solved = "yes" if row["solved"] else "no"
        end = f"{row['end']} {row['notes']}".strip()
        print(f"{name:24} {solved:6} {row['wall']:7.1f} {row['calls']:5}  {end}")
    count = sum(row["solved"] for row in rows.values())
    print(f"solved {count}/{len(rows)}, median wall {_median(rows):.1f} s")


def _median(rows: dict[str, dict[str, Any]]) -> float:
    return statistics.median(row["wall"] for row in rows.values()) if rows else 0.0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--set", choices=["all", *SETS], default="all", help="which tasks")
    parser.add_argument("--only", help="comma-separated task names")
    parser.add_argument("--skip-bare", action="store_true")
    parser.add_argument("--skip-taor", action="store_true")
    options = parser.parse_args()
    wanted = set(options.only.split(",")) if options.only else None
    chosen = TASKS if options.set == "all" else SETS[options.set]
    tasks = [task for task in chosen if wanted is None or task.name in wanted]
    taor_rows: dict[str, dict[str, Any]] = {}
    for task in [] if options.skip_taor else tasks:
        taor_rows[task.name] = row = run_taor(task)
        print(
            f"taor {task.name}: {row['solved']} {row['wall']:.1f}s {row['end']}"
            f" (session {row['session']})",
            flush=True,
        )
    bare_rows: dict[str, dict[str, Any]] = {}
    if not options.skip_bare:
        server = asyncio.run(_start_server())
        try:
            for task in tasks:
                bare_rows[task.name] = row = run_bare(task, server.base_url)
                print(f"bare {task.name}: {row['solved']} {row['wall']:.1f}s", flush=True)
        finally:
            asyncio.run(server.stop())
    _report(taor_rows, bare_rows, tasks)


def _report(
    taor: dict[str, dict[str, Any]], bare: dict[str, dict[str, Any]], tasks: list[Task]
) -> None:
    _table("taor -p --model local", taor)
    _table("bare loop (openai client, bash + write_file)", bare)
    inside = sum(row["inside"] for row in taor.values())
    outside = sum(row["wall"] for row in taor.values()) - inside
    overhead = 100 * outside / inside if inside else 0.0
    print()
    for name, members in SETS.items():
        names = [task.name for task in tasks if task in members]
        if not names:
            continue
        label = name.replace("-", "_")
        for agent, rows in (("local", taor), ("bare", bare)):
            if rows:
                solved = sum(rows[n]["solved"] for n in names if n in rows)
                target = f" target={round(0.8 * len(names))}" if agent == "local" else ""
                print(f"RESULT {agent}_tasks_solved_{label}={solved}/{len(names)}{target}")
    print(f"RESULT local_tasks_median_wall_s={_median(taor):.1f} target=20")
    print(f"RESULT local_overhead_pct={overhead:.1f} target=5")


if __name__ == "__main__":
    main()
