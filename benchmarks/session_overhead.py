"""Client CPU per turn of taor's ``Session``, next to a raw-httpx loop and a bare-SDK loop;
event delivery latency; peak memory against the transcript's size (issue 4 §6).

    python benchmarks/session_overhead.py              # 200 and 800 turns, 3 reps
    python benchmarks/session_overhead.py --quick      # 50 turns, 1 rep (smoke run)

The conversation is ``llm_overhead.py``'s (``echo`` with a 256-character argument, streamed 16
characters per event, N tool turns then a final answer, checked by the fake server), and so is
the method: every client is its own process (``_driver.py``), the fake server another one
(``_fake_server.py``, not counted), CPU per turn = (median total CPU from ``os.wait4`` - median
import-only CPU) / N. Clients, all on the Anthropic Messages protocol:

- ``session-anthropic``: ``Session.run`` (``_session_loops.py``: anthropic adapter,
  ``MemoryEnvironment``, an ``echo`` tool, bypass permissions, no store);
- ``taor-anthropic``: the adapter alone (``llm_overhead.py``'s client), to split the cost;
- ``httpx-anthropic``: the raw httpx2 + json loop (the floor);
- ``sdk-anthropic``: the bare ``anthropic`` SDK loop (up to ``--sdk-max-turns``).

Then, in separate processes (``_session_loops.py latency|memory``): event delivery latency from
the adapter yielding a text delta to the host receiving its ``assistant_text_delta``, and
``tracemalloc`` peak of a session against the bytes of its JSONL transcript.
It ends with ``RESULT`` lines: session/httpx at each length (target 2.5), session/sdk (target
below 1.0), the p99 delivery latency in ms (target 1.0), and peak memory per transcript byte
at each memory length (no target: similar ratios mean memory proportional to the transcript).
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import statistics
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from llm_overhead import PY, _fmt, measure, per_turn_ms, start_server  # noqa: E402

CLIENTS = ("session", "taor", "sdk", "httpx")
NAMES = [f"{client}-anthropic" for client in CLIENTS]


def run_json(mode: str, n: int, url: str, timeout: float) -> dict:
    """One ``_session_loops.py`` process; its JSON line (``ok`` False when it failed)."""
    cmd = [PY, os.path.join(HERE, "_session_loops.py"), mode, "--n", str(n), "--base-url", url]
    try:
        done = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, cwd=HERE)
    except subprocess.TimeoutExpired:
        return {"mode": mode, "n": n, "ok": False, "error": "timed out"}
    lines = [x for x in done.stdout.splitlines() if x.startswith("{")]
    rec = json.loads(lines[-1]) if lines else {"mode": mode, "n": n, "ok": False}
    if not rec["ok"]:
        rec["error"] = done.stderr[-1500:] or repr(rec.get("final"))
    return rec


def cpu_table(title: str, turns: list[int], per: dict) -> None:
    print(f"\n{title}")
    heads = "".join(f"{c:>9}" for c in CLIENTS)
    print(f"{'N':>5}{heads}{'ses/httpx':>11}{'ses/sdk':>9}{'ses/taor':>10}")
    for n in turns:
        s, t, k, h = (per.get((name, n)) for name in NAMES)
        cells = "".join(_fmt(x, 9) for x in (s, t, k, h))
        ratios = (_ratio(s, h), _ratio(s, k), _ratio(s, t))
        print(f"{n:>5}{cells}{_fmt(ratios[0], 11)}{_fmt(ratios[1], 9)}{_fmt(ratios[2], 10)}")


def latency(n: int, reps: int, url: str, timeout: float) -> float | None:
    """Print each run's delivery latency; return the median p99 over the runs (ms)."""
    print(f"\nevent delivery, adapter text delta -> host's assistant_text_delta, N={n}")
    p99s = []
    for rep in range(reps):
        rec = run_json("latency", n, url, timeout)
        if not rec["ok"]:
            print(f"  run {rep + 1}: failed\n    " + rec["error"].strip().replace("\n", "\n    "))
            continue
        p99s.append(rec["p99_ms"])
        print(
            f"  run {rep + 1}: {rec['deltas']} deltas  p50={rec['p50_ms']:.3f} ms  "
            f"p99={rec['p99_ms']:.3f} ms  max={rec['max_ms']:.3f} ms"
        )
    return statistics.median(p99s) if p99s else None


def memory(lengths: list[int], url: str, timeout: float) -> dict[int, float]:
    """Print peak and retained memory against the transcript; return peak bytes per byte."""
    print("\nmemory (tracemalloc from the session's creation) against the JSONL transcript")
    print(f"{'N':>6}{'transcript':>12}{'peak':>10}{'retained':>10}{'peak/B':>8}{'kept/B':>8}")
    ratios, recs = {}, []
    for n in lengths:
        rec = run_json("memory", n, url, timeout)
        if not rec["ok"]:
            print(f"{n:>6}  failed\n    " + rec["error"].strip().replace("\n", "\n    "))
            continue
        ratios[n] = rec["peak_per_byte"]
        recs.append(rec)
        mib = [rec[k] / 2**20 for k in ("transcript_bytes", "peak_bytes", "retained_bytes")]
        print(
            f"{n:>6}{mib[0]:>9.2f}MiB{mib[1]:>7.1f}MiB{mib[2]:>7.1f}MiB"
            f"{rec['peak_per_byte']:>8.1f}{rec['retained_per_byte']:>8.1f}"
        )
    if len(recs) >= 2:  # growth between the shortest and the longest run, per transcript byte
        first, last = recs[0], recs[-1]
        grown = last["transcript_bytes"] - first["transcript_bytes"]
        peak, kept = (last[k] - first[k] for k in ("peak_bytes", "retained_bytes"))
        print(
            f"  marginal, N={first['n']}->{last['n']}: peak {peak / grown:.1f} B/B, "
            f"retained {kept / grown:.1f} B/B"
        )
    return ratios


def _ratio(x: float | None, y: float | None) -> float | None:
    return x / y if x is not None and y else None


def main() -> None:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--turns", default="200,800", help="conversation lengths, comma-separated")
    ap.add_argument("--reps", type=int, default=3, help="repetitions of each measured run")
    ap.add_argument("--import-reps", type=int, default=5, help="import-only runs per client")
    ap.add_argument("--latency-turns", type=int, default=200)
    ap.add_argument("--memory-turns", default="250,1000", help="session lengths for memory")
    ap.add_argument("--quick", action="store_true", help="smoke run: 50 turns, 1 rep")
    ap.add_argument("--timeout", type=float, default=1800, help="seconds before a run is killed")
    ap.add_argument("--sdk-max-turns", type=int, default=200, help="longest bare-SDK run")
    ap.add_argument("--raw", help="append every measured CPU process as a JSON line here")
    a = ap.parse_args()
    if a.quick:
        a.turns, a.reps, a.import_reps = "50", 1, 1
        a.latency_turns, a.memory_turns = 50, "50,200"
    turns = [int(x) for x in a.turns.split(",")]
    server, url = start_server()
    print(f"[server] pid={server.pid} {url}; clients: {', '.join(NAMES)}", flush=True)
    try:
        rows = measure(NAMES, turns, a.reps, url, a)
        p99 = latency(a.latency_turns, a.reps, url, a.timeout)
        mem = memory([int(x) for x in a.memory_turns.split(",")], url, a.timeout)
    finally:
        server.send_signal(signal.SIGTERM)
        server.wait(10)
    per, loop = per_turn_ms(rows)
    cpu_table("client CPU per turn, ms: (median total - median import-only) / N, wait4", turns, per)
    cpu_table("cross-check: in-process loop CPU per turn, ms (no start-up, no exit)", turns, loop)
    print()
    for n in turns:
        if r := _ratio(per.get(("session-anthropic", n)), per.get(("httpx-anthropic", n))):
            print(f"RESULT session_vs_httpx_{n}={r:.2f} target=2.5")
    for n in turns:
        if r := _ratio(per.get(("session-anthropic", n)), per.get(("sdk-anthropic", n))):
            print(f"RESULT session_vs_sdk_{n}={r:.2f} target=1.0")
    if p99 is not None:
        print(f"RESULT event_latency_p99_ms={p99:.3f} target=1.0")
    for n, ratio in mem.items():
        print(f"RESULT memory_per_transcript_byte_{n}={ratio:.2f} target=none")


if __name__ == "__main__":
    main()
