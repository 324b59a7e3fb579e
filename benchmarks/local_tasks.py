"""Small coding tasks with a small local model: taor, taor through ``openai-compat``, a bare loop.

    python benchmarks/local_tasks.py                    # all tasks, all three agents
    python benchmarks/local_tasks.py --set tuning       # only the tuning set
    python benchmarks/local_tasks.py --model gemma3-270m --agents taor,bare
    python benchmarks/local_tasks.py --only fix_off_by_one,small_cli --agents taor

Each task starts from a few files in a fresh scratch directory and is judged by a check of the
files or of the final answer (``_local_tasks/``). The tasks are split once into a tuning set
and a held-out set: tune on the first, and read both (each is reported on its own). Three
agents, each given 15 model calls and 300 s per task, temperature 0, 2 threads:

- ``taor``: the real command, ``taor -p --model local:MODEL`` (its own llama.cpp server,
  started and stopped per task, so no cache carries over);
- ``compat``: the real command as a person with Ollama or llama.cpp reaches it, ``taor -p
  --model openai-compat:MODEL --base-url URL`` against one server started here (the profile
  is chosen by the model, as ``auto`` does: the model's size picks ``small``);
- ``bare``: ``_bare_loop.py`` (the ``openai`` client, ``bash`` and ``write_file``, a
  three-sentence prompt) against that same server, its prompt cache erased between tasks.

Prints a table per agent, then per set ``RESULT <agent>_tasks_solved_<set>=N/M``, the median
wall per agent, taor's solved count over the bare loop's, the held-out set's distance from the
tuning set in points, runs ended by a malformed tool call, and ``RESULT
local_overhead_pct=...``: taor's time outside model calls and tool runs (process and server
start, stop, its own work), as a share of the time inside them, from the transcript's
timestamps. With ``--model`` other than the default, each RESULT name ends with the model's.
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
from functools import partial
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _bare_loop import bare_loop
from _local_tasks import SETS, TASKS, Task, lay_out

MAX_CALLS, MAX_WALL, THREADS = 15, 300.0, 2
DEFAULT_MODEL = "qwen2.5-coder-1.5b"
AGENTS = ("taor", "compat", "bare")
SESSIONS = Path(os.environ.get("XDG_DATA_HOME", Path.home() / ".local/share")) / "taor/sessions"


def _scratch(task: Task) -> Path:
    directory = Path(tempfile.mkdtemp(prefix=f"lt-{task.name}-"))
    lay_out(task, directory)
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


def run_taor(task: Task, model: str, base_url: str = "", key: str = "") -> dict[str, Any]:
    """``taor -p`` on ``task``: its own local server, or the one at ``base_url`` (which
    requires ``key``, as a person's own server would be given theirs)."""
    directory = _scratch(task)
    chosen = f"openai-compat:{model}" if base_url else f"local:{model}"
    command = [_taor(), "-p", task.prompt, "--model", chosen, "--permission-mode", "bypass"]
    command += ["--base-url", base_url] if base_url else []
    command += ["--max-turns", str(MAX_CALLS), "--max-wall", str(int(MAX_WALL))]
    command += ["--output-format", "json"]
    env = dict(os.environ, TAOR_LOCAL_THREADS=str(THREADS))
    if key:
        env["OPENAI_COMPAT_API_KEY"] = key
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
    if base_url:
        _erase_cache(base_url, key)  # the next task starts as cold as taor's own server does
    model_s, tools_s, notes = _transcript_times(summary.get("session_id", ""))
    if notes and summary.get("stop_reason") == "error":
        notes = "malformed-ended"  # (retried, then failed for good)
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


async def _start_server(model: str) -> Any:
    from taor.llm.local.model import connect_local
    from taor.llm.local.server import LocalServer

    server = LocalServer(connect_local(model, threads=THREADS).server.settings)
    await server.start()
    return server


def _erase_cache(base_url: str, key: str) -> None:
    import httpx2 as httpx  # taor's own HTTP client

    url = base_url.removesuffix("/v1") + "/slots/0?action=erase"
    with contextlib.suppress(Exception):  # a server without slot actions: nothing to erase
        httpx.post(url, headers={"Authorization": f"Bearer {key}"}, timeout=10)


def run_bare(task: Task, base_url: str, key: str) -> dict[str, Any]:
    directory = _scratch(task)
    _erase_cache(base_url, key)
    began = time.monotonic()
    out = bare_loop(
        base_url, task.prompt, directory, max_calls=MAX_CALLS, max_wall=MAX_WALL, api_key=key
    )
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
    parser.add_argument("--model", default=DEFAULT_MODEL, help="a known local model's name")
    parser.add_argument("--agents", default=",".join(AGENTS), help="of taor,compat,bare")
    options = parser.parse_args()
    agents = [a for a in options.agents.split(",") if a]
    if unknown := set(agents) - set(AGENTS):
        parser.error(f"unknown agents {sorted(unknown)}; choose from {', '.join(AGENTS)}")
    wanted = set(options.only.split(",")) if options.only else None
    chosen = TASKS if options.set == "all" else SETS[options.set]
    tasks = [task for task in chosen if wanted is None or task.name in wanted]
    rows: dict[str, dict[str, dict[str, Any]]] = {agent: {} for agent in agents}
    for task in tasks if "taor" in agents else []:
        rows["taor"][task.name] = row = run_taor(task, options.model)
        _progress("taor", task, row)
    if {"compat", "bare"} & set(agents):
        server = asyncio.run(_start_server(options.model))
        try:
            for agent in ("compat", "bare"):
                for task in tasks if agent in agents else []:
                    run = run_bare if agent == "bare" else partial(run_taor, model=options.model)
                    rows[agent][task.name] = row = run(
                        task, base_url=server.base_url, key=server.api_key
                    )
                    _progress(agent, task, row)
        finally:
            asyncio.run(server.stop())
    _report(rows, tasks, "" if options.model == DEFAULT_MODEL else options.model)


def _progress(agent: str, task: Task, row: dict[str, Any]) -> None:
    where = f" (session {row['session']})" if row.get("session") else ""
    print(
        f"{agent} {task.name}: {row['solved']} {row['wall']:.1f}s {row['end']}{where}", flush=True
    )


TITLES = {
    "taor": "taor -p --model local:MODEL",
    "compat": "taor -p --model openai-compat:MODEL --base-url (the profile by the model)",
    "bare": "bare loop (openai client, bash + write_file)",
}


def _report(rows: dict[str, dict[str, dict[str, Any]]], tasks: list[Task], model: str) -> None:
    for agent, agent_rows in rows.items():
        _table(TITLES[agent].replace("MODEL", model or DEFAULT_MODEL), agent_rows)
    tag = "_" + model.replace("-", "_").replace(".", "_") if model else ""
    print()
    solved: dict[tuple[str, str], float] = {}
    for name, members in SETS.items():
        names = [task.name for task in tasks if task in members]
        if not names:
            continue
        label = name.replace("-", "_")
        for agent, agent_rows in rows.items():
            count = sum(agent_rows[n]["solved"] for n in names if n in agent_rows)
            solved[agent, label] = count / len(names)
            target = f" target={round(0.8 * len(names))}" if agent == "taor" else ""
            print(f"RESULT {_name(agent)}_tasks_solved_{label}{tag}={count}/{len(names)}{target}")
    for agent, agent_rows in rows.items():
        target = " target=20" if agent == "taor" else ""
        print(f"RESULT {_name(agent)}_tasks_median_wall_s{tag}={_median(agent_rows):.1f}{target}")
    if "taor" in rows and "bare" in rows:
        ours = sum(row["solved"] for row in rows["taor"].values())
        theirs = sum(row["solved"] for row in rows["bare"].values())
        ratio = f"{ours / theirs:.2f}" if theirs else "inf" if ours else "0"
        print(f"RESULT local_vs_bare_solved{tag}={ratio} target=1.5")
    if ("taor", "tuning") in solved and ("taor", "held_out") in solved:
        gap = 100 * (solved["taor", "tuning"] - solved["taor", "held_out"])
        print(f"RESULT local_held_out_gap_points{tag}={gap:.0f} target=10")
    for agent in ("taor", "compat"):
        if agent in rows:
            ends = sum(row["notes"] == "malformed-ended" for row in rows[agent].values())
            print(f"RESULT {_name(agent)}_malformed_ends{tag}={ends} target=0")
    if "taor" in rows:
        inside = sum(row["inside"] for row in rows["taor"].values())
        outside = sum(row["wall"] for row in rows["taor"].values()) - inside
        overhead = 100 * outside / inside if inside else 0.0
        print(f"RESULT local_overhead_pct{tag}={overhead:.1f} target=5")


def _name(agent: str) -> str:
    """The RESULT names kept from before: taor's runs are ``local_*``."""
    return "local" if agent == "taor" else agent


if __name__ == "__main__":
    main()
