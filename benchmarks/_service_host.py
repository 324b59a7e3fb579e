"""The processes of ``service.py``: the model, and the service under test.

    python benchmarks/_service_host.py model                 # prints the fake model's URL
    python benchmarks/_service_host.py serve --base-url URL --data-dir DIR --workers 50
    python benchmarks/_service_host.py serve --redis URL ...   # the API only
    python benchmarks/_service_host.py work --redis URL --stamps FILE ...  # a worker

``model``: ``taor.testing.FakeProviderServer`` (Chat Completions) whose default step answers
any number of runs: a prompt with ``park`` asks to write a file (the run then waits on a
permission request: an idle run); one with ``rounds=N`` says a sentence or two and calls
``read_file`` while the request holds fewer than N tool results, then answers with a short
paragraph. Replies stream 16 characters per chunk.

``serve``: the embedded service (``Service`` on real uvicorn, loopback, port 0) as ``taor
serve`` runs it, with the feed's ``publish`` wrapped to stamp each event's wall time
(``time.time_ns``) as the worker hands it on. It prints one JSON line (its URL and admin
token) and serves until SIGTERM, with two routes for the benchmark: ``/bench/stats`` (this
process's CPU seconds, resident memory and events published so far; ``?gc=1`` collects
first) and ``/bench/stamps`` (run id -> seq -> the emit time in ns). ``--profile FILE``: the
service under ``cProfile``, its stats written to FILE at the end. With ``--redis``, the service
only queues runs on Redis (``taor serve --redis``); ``work`` is a worker (``taor worker``) whose
publish is stamped the same way, its stamps written to ``--stamps`` as JSON when it stops
(SIGTERM).
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import json
import re
import resource
import signal
import socket
import sys
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

from taor.testing import FakeProviderServer, RecordedRequest, Reply, ToolCall

_ROUNDS = re.compile(rb"rounds=(\d+)")
SENTENCE = "Looking at the next file to see how the pieces fit together before changing anything. "


def reply(request: RecordedRequest) -> Reply:
    if b"park" in request.body and not request.tool_results:
        write = ToolCall(name="write_file", arguments={"path": "out.txt", "content": "x\n"})
        return Reply(text="Writing the file.", tool_calls=(write,), chunk=16)
    found = _ROUNDS.search(request.body)
    rounds = int(found.group(1)) if found else 0
    k = len(request.tool_results)
    if k < rounds:
        call = ToolCall(name="read_file", arguments={"path": f"notes-{k}.md"})
        return Reply(text=SENTENCE * 2, tool_calls=(call,), chunk=16)
    return Reply(text=SENTENCE * 5 + "Done.", chunk=16)


def model() -> None:
    server = FakeProviderServer(default=reply, record=False)
    print(server.url, flush=True)
    server.serve_forever()


def rss_kib() -> int:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return 0


async def serve(args: argparse.Namespace) -> None:
    import uvicorn

    from taor.server.app import create_app
    from taor.server.service import Service

    service = await Service.open(_config(args))
    stamps: defaultdict[str, dict[int, int]] = defaultdict(dict)
    counted = _stamp(service, stamps)
    app = create_app(service)

    @app.get("/bench/stats")
    async def stats(gc_first: bool = False) -> dict[str, Any]:
        if gc_first:
            gc.collect()
        usage = resource.getrusage(resource.RUSAGE_SELF)
        return {
            "cpu": usage.ru_utime + usage.ru_stime,
            "rss_kib": rss_kib(),
            "published": counted[0],
        }

    @app.get("/bench/stamps")
    async def all_stamps() -> dict[str, dict[int, int]]:
        return stamps

    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    sock.listen(2048)
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning", lifespan="off"))
    port = sock.getsockname()[1]
    print(json.dumps({"url": f"http://127.0.0.1:{port}", "token": service.first_token}))
    sys.stdout.flush()
    for sig in (signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, lambda *_: None)
    profile = None
    if args.profile:
        import cProfile

        profile = cProfile.Profile()
        profile.enable()
    try:
        await server.serve(sockets=[sock])
    finally:
        if profile is not None:
            profile.disable()
            profile.dump_stats(args.profile)
        await service.close()


def _config(args: argparse.Namespace) -> Any:
    from taor.server.config import ServiceConfig

    return ServiceConfig(
        data_dir=Path(args.data_dir),
        workers=args.workers,
        default_model="openai-compat:m",
        base_url=args.base_url,
        sandbox=False,
        redis_url=args.redis,
        database_url=args.database or f"sqlite:///{Path(args.data_dir) / 'taor.db'}",
    )


def _stamp(service: Any, stamps: defaultdict[str, dict[int, int]]) -> list[int]:
    """Wrap the service's ``publish`` to stamp each event's emit time; [events published]."""
    published = [0]
    publish = service.feeds.publish

    def stamped(run_id: str, event: Any) -> None:
        published[0] += 1
        stamps[run_id][event.seq] = time.time_ns()
        publish(run_id, event)

    service.feeds.publish = stamped
    return published


async def work(args: argparse.Namespace) -> dict[str, dict[int, int]]:
    from taor.server.service import Service
    from taor.server.spread.worker import Worker

    config = _config(args)
    service = await Service.open(config)
    stamps: defaultdict[str, dict[int, int]] = defaultdict(dict)
    _stamp(service, stamps)
    worker = Worker(service)
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, worker.stop)
    print(worker.name, flush=True)
    try:
        await worker.run()
    finally:
        await service.close()
    return stamps


def main() -> None:
    options = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    options.add_argument("mode", choices=("model", "serve", "work"))
    options.add_argument("--redis", default="", help="the service across machines: Redis's URL")
    options.add_argument("--database", default="", help="the database's URL (SQLite: none)")
    options.add_argument("--stamps", default="", help="work: the stamps' file, written at the end")
    options.add_argument("--base-url", default="")
    options.add_argument("--data-dir", default="")
    options.add_argument("--workers", type=int, default=50)
    options.add_argument("--profile", default="", help="serve: cProfile stats to this file")
    args = options.parse_args()
    if args.mode == "model":
        model()
    elif args.mode == "work":
        Path(args.stamps).write_text(json.dumps(asyncio.run(work(args))))
    else:
        asyncio.run(serve(args))


if __name__ == "__main__":
    main()
