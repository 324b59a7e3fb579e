"""The embedded service under load: concurrent scripted runs, each followed over SSE.

    python benchmarks/service.py                          # 50 runs, 50 workers, 3 tool rounds
    python benchmarks/service.py --runs 100 --workers 50 --rounds 5 --idle 50

Three processes (``_service_host.py``): the fake model (Chat Completions, not counted), the
service as ``taor serve`` runs it (real uvicorn on loopback, SQLite in a temporary folder, its
feed's ``publish`` wrapped to stamp each event's emit time), and this one, the clients
(``taor.server.Client``). In order:

1. warm-up: two runs, so imports and caches are not counted;
2. idle runs: ``--idle`` runs that wait on a permission request; the service's resident
   memory before and after, per run (after a ``gc``); then they are cancelled;
3. load: ``--runs`` runs created at once, each followed by its own SSE client from the moment
   it is created; each run says a little, calls ``read_file`` ``--rounds`` times, then answers.
   Runs per second (first create to last event received); the latency from the worker's emit
   (``publish``) to the client's receipt (wall clock, ``time.time_ns``, both processes),
   p50/p99/max, over the events emitted after their client had started following (``live``,
   the RESULT: it counts the time the service takes to answer the client's connection), over
   all events, and over the events emitted once the client's stream was delivering
   (``connected``: the fan-out alone); the time from a run's creation to its client's first
   event; the service's CPU (user + system) per event published; events sent (stamped),
   received and stored (read back from the event log after the runs ended), and how many of
   the sent ones were not received or not stored.

Then the same load over Redis (when ``redis-server`` is installed): a Redis server (AOF on) on
a free loopback port in a temporary folder, the API as ``taor serve --redis`` runs it and
``--spread`` workers (``taor worker``: 2), their ``publish`` stamped as above, the database
``--database`` (a PostgreSQL URL; by default SQLite in the shared data folder); the clients follow the runs on the API process. Its runs
per second and latencies are reported beside the embedded ones (``redis_*``), with the ratio
of the two p99s (target: within 2x).

``--profile FILE`` runs the service under ``cProfile`` and writes its stats to FILE.
Ends with ``RESULT`` lines.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import resource
import select
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from typing import Any

import httpx2

from taor.server import Client

HERE = os.path.dirname(os.path.abspath(__file__))
HOST = os.path.join(HERE, "_service_host.py")


def start(*argv: str, wait: float = 120.0) -> tuple[subprocess.Popen[str], str]:
    """A ``_service_host.py`` process, and the first line it prints (within ``wait`` seconds:
    one that fails to start ends the benchmark with what it said, instead of a hang)."""
    process = subprocess.Popen(
        [sys.executable, HOST, *argv], stdout=subprocess.PIPE, text=True, cwd=HERE
    )
    assert process.stdout is not None
    ready, _, _ = select.select([process.stdout], [], [], wait)
    line = process.stdout.readline().strip() if ready else ""
    if not line:
        exited = process.poll()
        process.kill()
        process.wait()
        why = f"exited ({exited})" if exited is not None else f"no answer in {wait:.0f} s"
        raise SystemExit(f"_service_host.py {argv[0]} did not start: {why}; its errors are above")
    return process, line


async def stats(url: str, *, gc_first: bool = False) -> dict[str, Any]:
    async with httpx2.AsyncClient(base_url=url) as http:
        answer = await http.get("/bench/stats", params={"gc_first": gc_first})
        result: dict[str, Any] = answer.json()
        return result


async def wait_status(client: Client, run_ids: list[str], *statuses: str) -> None:
    for run_id in run_ids:
        for _ in range(2400):  # two minutes at most
            if (await client.get(run_id)).status in statuses:
                break
            await asyncio.sleep(0.05)


async def follow(
    client: Client, prompt: str, received: dict[tuple[str, int], int], started: dict[str, int]
) -> str:
    run = await client.create_run(prompt)
    started[run.id] = time.time_ns()
    async for event in client.events(run.id):
        received[(run.id, event.seq)] = time.time_ns()
    return run.id


async def idle_memory(url: str, client: Client, count: int) -> float:
    """The service's resident memory per run waiting on a permission request, in KiB."""
    before = (await stats(url, gc_first=True))["rss_kib"]
    runs = [await client.create_run(f"park {n}") for n in range(count)]
    ids = [run.id for run in runs]
    await wait_status(client, ids, "awaiting_permission")
    after = (await stats(url, gc_first=True))["rss_kib"]
    for run_id in ids:
        await client.cancel(run_id)
    await wait_status(client, ids, "cancelled")
    return (after - before) / count if count else 0.0


async def stored_seqs(client: Client, run_id: str) -> set[int]:
    return {event.seq async for event in client.events(run_id)}


def percentile(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


async def bench(
    args: argparse.Namespace, url: str, token: str, spread: Any = None
) -> dict[str, float]:
    """The load; ``spread``: the Redis path's workers (their stamps read once they stop)."""
    async with Client(url, token, timeout=120) as client:
        for n in range(2):  # warm-up
            await follow(client, f"warm-up {n} rounds={args.rounds}", {}, {})
        if spread is None:  # (over Redis the runs' memory is the workers')
            idle = await idle_memory(url, client, args.idle)
            print(f"idle runs: {args.idle}, {idle:.0f} KiB of resident memory each")
        else:
            idle = 0.0
        received: dict[tuple[str, int], int] = {}
        started: dict[str, int] = {}
        before = await stats(url)
        t0 = time.perf_counter()
        prompts = [f"run {n}: read the notes, rounds={args.rounds}" for n in range(args.runs)]
        ids = await asyncio.gather(*(follow(client, p, received, started) for p in prompts))
        seconds = time.perf_counter() - t0
        after = await stats(url)
        if spread is None:
            stamps = (await client._http.get("/bench/stamps")).json()
        else:
            stamps = await asyncio.to_thread(spread.stamps)
            before["published"] = 0
            after["published"] = sum(len(seqs) for seqs in stamps.values())
        stored = {run_id: await stored_seqs(client, run_id) for run_id in ids}
    return report(args, ids, seconds, before, after, stamps, received, started, stored, idle)


def report(
    args: argparse.Namespace,
    ids: list[str],
    seconds: float,
    before: dict[str, Any],
    after: dict[str, Any],
    stamps: dict[str, dict[str, int]],
    received: dict[tuple[str, int], int],
    started: dict[str, int],
    stored: dict[str, set[int]],
    idle: float,
) -> dict[str, float]:
    live: list[float] = []
    every: list[float] = []
    connected: list[float] = []  # emitted once the client's stream was delivering
    first = {run_id: min(t for (r, _), t in received.items() if r == run_id) for run_id in ids}
    sent = unreceived = unstored = 0
    for run_id in ids:
        for seq_text, emitted in stamps.get(run_id, {}).items():
            seq = int(seq_text)
            sent += 1
            got = received.get((run_id, seq))
            if got is None:
                unreceived += 1
            else:
                every.append((got - emitted) / 1e6)
                if emitted >= started[run_id]:
                    live.append((got - emitted) / 1e6)
                if emitted >= first[run_id]:
                    connected.append((got - emitted) / 1e6)
            unstored += seq not in stored[run_id]
    waits = sorted((first[r] - started[r]) / 1e6 for r in ids)
    print(
        f"from a run's creation to its client's first event: median {percentile(waits, 0.5):.0f}"
        f" ms, longest {waits[-1]:.0f} ms"
    )
    published = after["published"] - before["published"]
    cpu = after["cpu"] - before["cpu"]
    per_run = defaultdict(int)
    for run_id, _ in received:
        per_run[run_id] += 1
    print(
        f"load: {args.runs} runs x {args.rounds} tool rounds, {args.workers} workers, "
        f"{seconds:.2f} s; events sent {sent}, received {len(received)}, "
        f"stored {sum(len(s) for s in stored.values())} "
        f"({statistics.mean(per_run.values()):.0f} per run)"
    )
    for name, values in (("live", live), ("all", every), ("connected", connected)):
        print(
            f"latency emit -> SSE client ({name}, {len(values)} events): "
            f"p50 {percentile(values, 0.5):.1f} ms, p99 {percentile(values, 0.99):.1f} ms, "
            f"max {max(values, default=float('nan')):.1f} ms"
        )
    mine = resource.getrusage(resource.RUSAGE_SELF)
    print(
        f"service CPU: {cpu:.2f} s for {published} events; "
        f"this process (the clients): {mine.ru_utime + mine.ru_stime:.2f} s in all"
    )
    return {
        "event_latency_connected_p99_ms": percentile(connected, 0.99),
        "event_latency_p50_ms": percentile(live, 0.5),
        "event_latency_p99_ms": percentile(live, 0.99),
        "events_lost": unreceived + unstored,
        "runs_per_s": args.runs / seconds,
        "cpu_per_event_us": cpu / published * 1e6 if published else float("nan"),
        "memory_per_idle_run_kib": idle,
    }


TARGETS = {
    "event_latency_p99_ms": "50",
    "event_latency_connected_p99_ms": "50",
    "events_lost": "0",
    "runs_per_s": "none",
    "cpu_per_event_us": "500",  # what a 2-core machine needs for 50 runs at 20 events/s each
    "memory_per_idle_run_kib": "512",
    "redis_event_latency_p99_ms": "50",
    "redis_runs_per_s": "none",
    "redis_events_lost": "0",
    "redis_p99_vs_embedded": "2",  # the Redis path within 2x of the embedded one
}


class Spread:
    """Redis, and the workers of the Redis path."""

    def __init__(
        self, data: str, model_url: str, workers: int, count: int, database: str = ""
    ) -> None:
        self.port = free_port()
        self.redis = subprocess.Popen(
            [
                "redis-server", "--port", str(self.port), "--bind", "127.0.0.1", "--dir", data,
                "--appendonly", "yes", "--save", "", "--protected-mode", "no",
            ],
            stdout=subprocess.DEVNULL,
        )  # fmt: skip
        wait_port(self.port)
        self.url = f"redis://127.0.0.1:{self.port}/0"
        self.common = ("--base-url", model_url, "--data-dir", data, "--redis", self.url)
        self.common += ("--database", database) if database else ()
        self.files = [os.path.join(data, f"stamps-{n}.json") for n in range(count)]
        self.per_worker = workers
        self.workers: list[subprocess.Popen[str]] = []

    def start_workers(self) -> None:
        """After the API process (which makes the database and the first token)."""
        self.workers = [
            start("work", *self.common, "--workers", str(self.per_worker), "--stamps", file)[0]
            for file in self.files
        ]

    def stamps(self) -> dict[str, dict[str, int]]:
        """Stop the workers; every event's emit time, by run and number."""
        merged: dict[str, dict[str, int]] = {}
        for worker in self.workers:
            worker.terminate()
            worker.wait(60)
        for file in self.files:
            with open(file) as handle:
                for run_id, seqs in json.load(handle).items():
                    merged.setdefault(run_id, {}).update(seqs)
        return merged

    def stop(self) -> None:
        for worker in self.workers:
            if worker.poll() is None:
                worker.kill()
        self.redis.terminate()
        self.redis.wait(30)


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def wait_port(port: int) -> None:
    for _ in range(600):
        with socket.socket() as sock:
            if sock.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.05)
    raise RuntimeError(f"nothing listens on {port}")


def embedded(args: argparse.Namespace, model_url: str) -> dict[str, float]:
    with tempfile.TemporaryDirectory() as data:
        service, line = start(
            "serve",
            *("--base-url", model_url, "--data-dir", data, "--workers", str(args.workers)),
            *(("--profile", args.profile) if args.profile else ()),
        )
        try:
            served = json.loads(line)
            return asyncio.run(bench(args, served["url"], served["token"]))
        finally:
            service.terminate()
            service.wait(30)


def over_redis(args: argparse.Namespace, model_url: str) -> dict[str, float]:
    per_worker = max(1, args.workers // args.spread)
    with tempfile.TemporaryDirectory() as data:
        spread = Spread(data, model_url, per_worker, args.spread, args.database)
        try:
            service, line = start("serve", *spread.common, "--workers", str(per_worker))
            spread.start_workers()
            try:
                served = json.loads(line)
                return asyncio.run(bench(args, served["url"], served["token"], spread))
            finally:
                service.terminate()
                service.wait(30)
        finally:
            spread.stop()


def main() -> None:
    options = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    options.add_argument("--runs", type=int, default=50, help="concurrent runs (50)")
    options.add_argument("--workers", type=int, default=50, help="the service's workers (50)")
    options.add_argument("--rounds", type=int, default=3, help="tool rounds per run (3)")
    options.add_argument("--idle", type=int, default=50, help="idle runs for memory (50)")
    options.add_argument("--spread", type=int, default=2, help="Redis path: worker processes")
    options.add_argument("--database", default="", help="Redis path: postgresql://... (SQLite)")
    options.add_argument("--profile", default="", help="the service's cProfile stats to FILE")
    args = options.parse_args()
    model, model_url = start("model")
    try:
        print("== embedded service")
        results = embedded(args, model_url)
        if shutil.which("redis-server"):
            print(f"== over Redis: {args.spread} worker processes")
            spread = over_redis(args, model_url)
            for name in ("event_latency_p99_ms", "runs_per_s", "events_lost"):
                results[f"redis_{name}"] = spread[name]
            results["redis_p99_vs_embedded"] = (
                spread["event_latency_p99_ms"] / results["event_latency_p99_ms"]
            )
    finally:
        model.terminate()
        model.wait(10)
    for name, target in TARGETS.items():
        if name not in results:
            continue
        value = results[name]
        shown = f"{value:.0f}" if name.endswith("events_lost") else f"{value:.3g}"
        print(f"RESULT {name}={shown} target={target}")


if __name__ == "__main__":
    main()
