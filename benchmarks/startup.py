"""Start-up time of the ``taor`` command, next to bare python and a bare-SDK script.

    python benchmarks/startup.py              # 11 runs of each, medians
    python benchmarks/startup.py --runs 21    # steadier figures on a busy machine

Wall time, median of ``--runs`` processes each (run in turns, so a burst of load on the machine
hits every command alike), after one warm-up run of each:

- ``python -c pass``, ``taor --version`` and ``taor --help`` (process start to exit);
- process start to the first request byte reaching a ``FakeProviderServer`` (in this process,
  which stamps each request line with ``time.time_ns()`` on arrival, taken against the same
  clock just before the process starts) for ``taor -p hi --model openai-compat:m --base-url
  URL`` and for a bare-SDK script (``_sdk_first_request.py``: ``AsyncOpenAI``, one streamed
  chat completion) sending the very request taor sent (its model, messages, tools and options,
  recorded on the warm-up run).

The child processes keep their bytecode in a temporary ``PYTHONPYCACHEPREFIX`` (also when
``PYTHONDONTWRITEBYTECODE`` is set), as an installed package has its ``.pyc`` files: compiling
taor's sources on every start is not what users pay. ``--no-bytecode-cache`` measures with the
environment as it is.

It ends with ``RESULT`` lines: ``version_ms_over_python`` and ``help_ms_over_python`` (target
150), ``first_request_ms`` (target 400) and ``first_request_vs_sdk`` (taor's time to the first
request over the bare SDK script's; target 1.5: taor also parses flags, builds the session, its
environment, tools and system prompt and opens its transcript before it asks, which the bare
script does not, so it cannot match it, but it should not cost half as much again).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from taor.testing import FakeProviderServer, Reply

HERE = Path(__file__).resolve().parent
PY = sys.executable
TAOR = str(Path(PY).parent / "taor")
SDK_SCRIPT = str(HERE / "_sdk_first_request.py")
KEYS = ("ANTHROPIC_API_KEY", "OPENAI_API_KEY", "GEMINI_API_KEY", "GOOGLE_API_KEY")


def child_env(scratch: Path, cache_bytecode: bool) -> dict[str, str]:
    """No provider key, sessions in ``scratch``, bytecode cached there unless told otherwise."""
    env = {k: v for k, v in os.environ.items() if k not in KEYS}
    env["XDG_DATA_HOME"] = str(scratch / "data")
    if cache_bytecode:
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        env["PYTHONPYCACHEPREFIX"] = str(scratch / "pycache")
    return env


def wall_ms(cmd: list[str], env: dict[str, str], cwd: Path) -> float:
    """Process start to exit."""
    t0 = time.perf_counter()
    done = subprocess.run(cmd, env=env, cwd=cwd, capture_output=True, timeout=60)
    elapsed = (time.perf_counter() - t0) * 1000
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(cmd)} failed:\n{done.stderr.decode()[-2000:]}")
    return elapsed


def first_request_ms(
    cmd: list[str], server: FakeProviderServer, env: dict[str, str], cwd: Path
) -> float:
    """Process start to the arrival of its first request line at ``server``."""
    seen = len(server.requests)
    started = time.time_ns()
    done = subprocess.run(cmd, env=env, cwd=cwd, capture_output=True, timeout=60)
    if done.returncode != 0 or len(server.requests) <= seen:
        raise SystemExit(f"{' '.join(cmd)} failed:\n{done.stderr.decode()[-2000:]}")
    return (server.requests[seen].received_ns - started) / 1e6


def commands(url: str, body_file: Path) -> dict[str, list[str]]:
    taor_p = [TAOR, "-p", "hi", "--model", "openai-compat:m", "--base-url", url]
    return {
        "python -c pass": [PY, "-c", "pass"],
        "taor --version": [TAOR, "--version"],
        "taor --help": [TAOR, "--help"],
        "taor -p (first request)": [*taor_p, "--output-format", "json"],
        "bare SDK (first request)": [PY, SDK_SCRIPT, url, str(body_file)],
    }


def measure(runs: int, cache_bytecode: bool) -> dict[str, list[float]]:
    with (
        tempfile.TemporaryDirectory() as tmp,
        FakeProviderServer(default=Reply(text="done")) as server,
    ):
        scratch = Path(tmp)
        (scratch / "work").mkdir()
        env, cwd = child_env(scratch, cache_bytecode), scratch / "work"
        body_file = scratch / "request.json"
        cmds = commands(server.base_url("openai-compat"), body_file)
        first_request_ms(cmds["taor -p (first request)"], server, env, cwd)  # warm-up
        body_file.write_text(json.dumps(server.requests[-1].json))
        times: dict[str, list[float]] = {name: [] for name in cmds}
        for run in range(runs + 1):  # run 0 warms up
            for name, cmd in cmds.items():
                timed = first_request_ms if "first request" in name else None
                ms = timed(cmd, server, env, cwd) if timed else wall_ms(cmd, env, cwd)
                if run:
                    times[name].append(ms)
        taor_body, sdk_body = (len(r.body) for r in server.requests[-2:])
        print(f"request body: taor {taor_body} bytes, bare SDK {sdk_body} bytes")
        return times


def report(times: dict[str, list[float]], runs: int) -> None:
    med = {name: statistics.median(ms) for name, ms in times.items()}
    print(f"\nwall time, ms, {runs} runs each: median (min-max)")
    for name, ms in times.items():
        print(f"  {name:<26}{med[name]:>8.1f}   ({min(ms):.1f}-{max(ms):.1f})")
    python = med["python -c pass"]
    # taor over the SDK script of the same round (they ran one after the other): a burst of
    # load on the machine then moves both, which the ratio of the two medians would not see
    rounds = zip(times["taor -p (first request)"], times["bare SDK (first request)"], strict=True)
    paired = statistics.median(t / s for t, s in rounds)
    print(f"  taor -p / bare SDK, median of the runs' ratios: {paired:.2f}")
    print()
    print(f"RESULT version_ms_over_python={med['taor --version'] - python:.1f} target=150")
    print(f"RESULT help_ms_over_python={med['taor --help'] - python:.1f} target=150")
    print(f"RESULT first_request_ms={med['taor -p (first request)']:.1f} target=400")
    print(f"RESULT first_request_vs_sdk={paired:.2f} target=1.5")


def main() -> None:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--runs", type=int, default=11, help="measured runs of each command")
    ap.add_argument(
        "--no-bytecode-cache",
        action="store_true",
        help="keep PYTHONDONTWRITEBYTECODE as the environment has it (compile on every start)",
    )
    a = ap.parse_args()
    cached = not a.no_bytecode_cache
    print(f"[startup] python {sys.version.split()[0]}, bytecode cached: {cached}", flush=True)
    report(measure(a.runs, cached), a.runs)


if __name__ == "__main__":
    main()
