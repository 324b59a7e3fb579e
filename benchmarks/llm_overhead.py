"""Client CPU per turn of taor's adapters, next to a bare-SDK loop and a raw-httpx loop.

    python benchmarks/llm_overhead.py                      # 200 and 800 turns, 3 reps
    python benchmarks/llm_overhead.py --quick              # 50 turns, 1 rep (smoke run)
    python benchmarks/llm_overhead.py --turns 200 --reps 5 --adapters anthropic,openai-compat

For each adapter it runs the same scripted tool conversation (``echo`` with a 256-character
argument, streamed 16 characters per event) through three clients speaking that protocol:
``taor-<adapter>`` (taor's public API: stream, Assembler, append the response message and the
tool results), ``sdk-<protocol>`` (a hand loop on the official SDK) and ``httpx-<protocol>``
(a hand loop on raw httpx2 + json: the floor). Every client is its own process
(``_driver.py``); the fake server is another one (``_fake_server.py``, not counted).
CPU is the user+sys time of the client process from ``os.wait4``; per-turn CPU =
(median total CPU - median import-only CPU) / N, as in the shared harness.

It ends with one line per headline figure: ``RESULT <adapter>_vs_httpx_<N>=<ratio> target=2.0``
(taor's per-turn CPU over the raw-httpx loop's for the same protocol) and
``RESULT import_taor_ms=<ms> target=50`` (wall time of ``import taor`` over ``pass``).
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from _driver import ADAPTERS  # noqa: E402

PY = sys.executable


def available(adapter: str) -> bool:
    module = "openai_compat" if adapter == "openai-compat" else adapter
    return importlib.util.find_spec(f"taor.llm.adapters.{module}") is not None


def start_server() -> tuple[subprocess.Popen, str]:
    proc = subprocess.Popen(
        [PY, os.path.join(HERE, "_fake_server.py")],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,  # connection resets of finished clients are logged there
        text=True,
        cwd=HERE,
    )
    url = proc.stdout.readline().strip()
    if not url.startswith("http"):
        proc.kill()
        raise SystemExit("the fake server did not start")
    return proc, url


def run_driver(name: str, n: int, url: str, timeout: float) -> dict:
    """One client process (n == 0: import-only), measured with wait4."""
    cmd = [PY, os.path.join(HERE, "_driver.py"), name, "--n", str(n), "--base-url", url]
    if n == 0:
        cmd.append("--import-only")
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        t0 = time.perf_counter()
        proc = subprocess.Popen(cmd, stdout=out, stderr=err, cwd=HERE)
        killer = threading.Timer(timeout, proc.kill)
        killer.start()
        _, status, ru = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - t0
        killer.cancel()
        proc.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        lines = [x for x in out.read().decode().splitlines() if x.startswith("{")]
        stderr = err.read().decode()
    rec = {"driver": name, "n": n, "ok": n == 0, **(json.loads(lines[-1]) if lines else {})}
    rec.update(
        cpu_s=ru.ru_utime + ru.ru_stime, wall_s=wall, rss_mb=ru.ru_maxrss / 1024, rc=proc.returncode
    )
    if rec["rc"] != 0 or not rec["ok"]:
        rec["ok"] = False
        rec["error"] = stderr[-1500:] or repr(rec.get("final"))
    return rec


def import_overhead_ms(runs: int = 20) -> float:
    """Median wall time of ``python -c "import taor"`` minus that of ``python -c pass``."""
    times: dict[str, list[float]] = {"pass": [], "import taor": []}
    for _ in range(runs):
        for code, samples in times.items():
            t0 = time.perf_counter()
            subprocess.run([PY, "-c", code], check=True)
            samples.append(time.perf_counter() - t0)
    return (statistics.median(times["import taor"]) - statistics.median(times["pass"])) * 1000


def drivers_for(adapters: list[str]) -> list[str]:
    names = []
    for adapter in adapters:
        protocol = ADAPTERS[adapter][0]
        names += [f"taor-{adapter}", f"sdk-{protocol}", f"httpx-{protocol}"]
    return list(dict.fromkeys(names))


def measure(names: list[str], turns: list[int], reps: int, url: str, a) -> list[dict]:
    jobs = [(0, name) for _ in range(a.import_reps) for name in names]
    for rep in range(reps):
        rot = names[rep % len(names) :] + names[: rep % len(names)]  # vary the order
        jobs += [
            (n, name)
            for n in turns
            for name in rot
            if n <= a.sdk_max_turns or not name.startswith("sdk-")
        ]
    rows = []
    for i, (n, name) in enumerate(jobs, 1):
        rec = run_driver(name, n, url, a.timeout)
        rows.append(rec)
        tag = "import" if n == 0 else f"N={n}"
        print(
            f"[{i}/{len(jobs)}] {name:<20} {tag:<7} cpu={rec['cpu_s']:.2f}s "
            f"wall={rec['wall_s']:.2f}s rss={rec['rss_mb']:.0f}MB ok={rec['ok']}",
            flush=True,
        )
        if not rec["ok"]:
            print("    " + rec["error"].strip().replace("\n", "\n    "), flush=True)
        if a.raw:
            with open(a.raw, "a") as f:
                f.write(json.dumps(rec) + "\n")
    return rows


def per_turn_ms(rows: list[dict]) -> tuple[dict, dict]:
    """(driver, N) -> ms per turn: (median total CPU - median import-only CPU) / N from wait4,
    and the in-process loop CPU (``time.process_time`` around the conversation) / N."""
    total: dict[tuple[str, int], list[float]] = {}
    loop: dict[tuple[str, int], list[float]] = {}
    for r in rows:
        if r["ok"]:
            total.setdefault((r["driver"], r["n"]), []).append(r["cpu_s"])
            if r["n"]:
                loop.setdefault((r["driver"], r["n"]), []).append(r["loop_cpu_s"])
    med = {key: statistics.median(v) for key, v in total.items()}
    per = {
        (d, n): (cpu - med[(d, 0)]) / n * 1000 for (d, n), cpu in med.items() if n and (d, 0) in med
    }
    return per, {(d, n): statistics.median(v) / n * 1000 for (d, n), v in loop.items()}


def table(title: str, adapters: list[str], turns: list[int], per: dict) -> list[str]:
    """Print one table; return the RESULT lines it yields."""
    print(f"\n{title}")
    print(
        f"{'adapter':<15}{'N':>5}{'taor':>9}{'sdk':>9}{'httpx':>9}{'taor/httpx':>12}"
        f"{'taor/sdk':>10}  baselines"
    )
    results = []
    for adapter in adapters:
        protocol = ADAPTERS[adapter][0]
        for n in turns:
            t, s, h = (
                per.get((f"{k}-{x}", n))
                for k, x in (("taor", adapter), ("sdk", protocol), ("httpx", protocol))
            )
            vs_h = t / h if t is not None and h else None
            vs_s = t / s if t is not None and s else None
            cells = "".join(_fmt(x, 9) for x in (t, s, h))
            print(
                f"{adapter:<15}{n:>5}{cells}{_fmt(vs_h, 12)}{_fmt(vs_s, 10)}  "
                f"sdk-{protocol}, httpx-{protocol}"
            )
            if vs_h is not None:
                results.append(
                    f"RESULT {adapter.replace('-', '_')}_vs_httpx_{n}={vs_h:.2f} target=2.0"
                )
    return results


def report(adapters: list[str], turns: list[int], rows: list[dict], import_ms: float | None):
    per, loop = per_turn_ms(rows)
    results = table(
        "client CPU per turn, ms: (median total - median import-only) / N, wait4",
        adapters,
        turns,
        per,
    )
    table(
        "cross-check: in-process loop CPU per turn, ms (no start-up, no exit)",
        adapters,
        turns,
        loop,
    )
    print(
        "\nratios: taor over the raw httpx2 + json loop of the same protocol "
        "(every protocol has its own raw loop)\n"
    )
    for line in results:
        print(line)
    if import_ms is not None:
        print(f"RESULT import_taor_ms={import_ms:.1f} target=50")


def _fmt(x: float | None, width: int) -> str:
    return f"{x:{width}.2f}" if x is not None else f"{'-':>{width}}"


def main() -> None:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--turns", default="200,800", help="conversation lengths, comma-separated")
    ap.add_argument("--reps", type=int, default=3, help="repetitions of each measured run")
    ap.add_argument("--import-reps", type=int, default=5, help="import-only runs per driver")
    ap.add_argument("--adapters", default=",".join(ADAPTERS), help="taor adapters to measure")
    ap.add_argument("--quick", action="store_true", help="smoke run: 50 turns, 1 rep")
    ap.add_argument("--timeout", type=float, default=1800, help="seconds before a run is killed")
    ap.add_argument(
        "--sdk-max-turns",
        type=int,
        default=200,
        help="run the bare-SDK loops only up to this length (the openai SDK's "
        "Responses loop needs ~30 min of CPU at 800 turns)",
    )
    ap.add_argument("--raw", help="append every measured process as a JSON line to this file")
    ap.add_argument("--from-raw", help="only report, from the rows of an earlier --raw file")
    ap.add_argument("--skip-import-time", action="store_true")
    a = ap.parse_args()
    if a.quick:
        a.turns, a.reps, a.import_reps = "50", 1, 1
    turns = [int(x) for x in a.turns.split(",")]
    adapters = []
    for adapter in a.adapters.split(","):
        if adapter not in ADAPTERS:
            raise SystemExit(f"unknown adapter {adapter!r}; known: {', '.join(ADAPTERS)}")
        if available(adapter):
            adapters.append(adapter)
        else:
            print(f"[skip] taor adapter {adapter!r} is not there yet", flush=True)
    import_ms = None if a.skip_import_time else import_overhead_ms()
    if a.from_raw:
        with open(a.from_raw) as f:
            report(adapters, turns, [json.loads(line) for line in f], import_ms)
        return
    names = drivers_for(adapters)
    server, url = start_server()
    print(f"[server] pid={server.pid} {url}; drivers: {', '.join(names)}", flush=True)
    try:
        rows = measure(names, turns, a.reps, url, a)
    finally:
        server.send_signal(signal.SIGTERM)
        server.wait(10)
    report(adapters, turns, rows, import_ms)


if __name__ == "__main__":
    main()
