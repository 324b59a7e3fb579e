"""``taor worker``: carry out the runs a service spread over machines queues on Redis.

    taor worker --redis redis://HOST:6379/0 --database postgresql://USER:PASS@HOST/DB \\
        [--data-dir SHARED] [--workers 2] [--model M] [--base-url URL]

Settings as ``taor serve`` reads them (the ``[serve]`` table of the person's own config file,
``TAOR_SERVE_*`` variables, then these flags). The data folder is the folder every machine
mounts (workspaces, transcripts): a worker that cannot write there does not start. SIGTERM or
Ctrl-C: no more runs are taken, the running ones are handed back to the other workers, and the
worker exits 0. A second one while it waits (a long tool call, Redis out of reach) stops it at
once, exit 1: its runs are taken over after the heartbeat timeout, as after a crash.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import sys
from pathlib import Path
from typing import Any

from taor.errors import ConfigurationError
from taor.server.command import _parser, _settings, run_guarded, usable_data_dir

EPILOG = """settings: as taor serve (the [serve] table of your own config file, then
  TAOR_SERVE_<KEY> variables, then these flags); redis_url and database_url are the keys of
  --redis and --database; worker_timeout (30 seconds) is how long a worker may go without a
  heartbeat before its runs move to another worker.

exit codes: 0 stopped (SIGTERM, Ctrl-C); 1 stopped at once (a second SIGTERM or Ctrl-C
  while the first waits for a tool call to finish, or for Redis to take the runs back); 2 a
  bad setting, Redis or the database out of reach, or a shared folder that cannot be written"""


STOPPING = (
    "taor worker: stopping: the running tool calls finish, then their runs go back to the "
    "queue (a second SIGTERM or Ctrl-C stops at once; its runs then move to another worker "
    "after the heartbeat timeout)"
)
STOPPING_NOW = "taor worker: stopping at once"
CLOSE_AT_ONCE_S = 5.0  # what a worker stopped at once gives its connections to close


def run(argv: list[str]) -> int:
    return run_guarded(lambda: _worker(argv), "taor worker")


def _worker(argv: list[str]) -> int:
    p = _parser("taor worker", "Carry out runs queued on Redis by taor serve --redis.", EPILOG)
    p.add_argument("--redis", help="the Redis server's URL (redis://host:6379/0)")
    p.add_argument("--database", help="the shared database's URL (postgresql://...)")
    p.add_argument("--data-dir", help="the shared folder: workspaces and transcripts")
    p.add_argument("--workers", type=int, help="runs carried out at once (2)")
    p.add_argument("--model", help="the model of a run that names none")
    p.add_argument("--base-url", help="where the worker reaches its models")
    flags = vars(p.parse_args(argv))
    flags["redis_url"], flags["database_url"] = flags.pop("redis"), flags.pop("database")
    config = _settings(flags).config
    if not config.redis_url:
        raise ConfigurationError(
            "taor worker needs Redis: --redis redis://host:6379/0 (or redis_url in [serve])"
        )
    usable_data_dir(config.data_dir)
    writable(config.data_dir / "workspaces")
    with contextlib.suppress(KeyboardInterrupt):
        asyncio.run(_run(config))
    return 0


def writable(folder: Path) -> None:
    """Say in one line why the shared folder cannot be written, when it cannot."""
    probe = folder / ".taor-worker-probe"
    try:
        folder.mkdir(parents=True, exist_ok=True)
        probe.write_text("")
        probe.unlink()
    except OSError as error:
        raise ConfigurationError(
            f"cannot write the shared folder {folder}: {error.strerror}; every worker needs "
            "to write there (mount it read-write, or pick it with --data-dir)"
        ) from None


async def _run(config: Any) -> None:
    from taor.server.service import Service
    from taor.server.spread.patient import PatientRuns, PatientWriter
    from taor.server.spread.streams import redacted
    from taor.server.spread.worker import Worker

    service = await Service.open(config)
    await service.writer.close()  # a database out of reach does not stop a run: it waits
    service.writer = PatientWriter(service.events)
    service.writer.start()
    service.runs = runs = PatientRuns(service.database)
    worker = Worker(service)
    working = asyncio.current_task()
    assert working is not None

    def on_signal() -> None:
        if not worker.stopping:
            worker.stop()
            print(STOPPING, file=sys.stderr, flush=True)
        elif not working.cancelling():
            print(STOPPING_NOW, file=sys.stderr, flush=True)
            working.cancel()
            # What waits on Redis may not give way to the cancel (its client retries): the
            # process then ends as after a crash, which the other workers recover from.
            loop.call_later(CLOSE_AT_ONCE_S, os._exit, 1)

    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, on_signal)
    print(f"taor worker {worker.name}: runs from {redacted(config.redis_url)}")
    print(f"shared folder {config.data_dir}; {config.workers} runs at once")
    if service.first_token is not None:  # the first process to open the database
        print(f"first admin token (shown once, keep it): {service.first_token}")
    sys.stdout.flush()
    try:
        await worker.run()
    except asyncio.CancelledError:  # stopped at once: what is not in Redis yet stays behind
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(CLOSE_AT_ONCE_S):
                await service.close()
        raise SystemExit(1) from None
    finally:
        if not working.cancelling():  # (also when the worker failed: it closes all the same)
            await runs.settle()
            await service.close()
