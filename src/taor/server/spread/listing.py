"""``taor workers``: the live workers of a service spread over machines, with their runs, as
their heartbeats say.

    taor workers --redis redis://HOST:6379/0
"""

from __future__ import annotations

import asyncio
import datetime
import json
from typing import Any

from taor.errors import ConfigurationError
from taor.server.command import _parser, _settings, run_guarded


def run(argv: list[str]) -> int:
    return run_guarded(lambda: _workers(argv), "taor workers")


def _workers(argv: list[str]) -> int:
    p = _parser("taor workers", "List the live workers (taor worker) and their runs.")
    p.add_argument("--redis", help="the Redis server's URL (redis://host:6379/0)")
    args = p.parse_args(argv)
    config = _settings({"redis_url": args.redis}).config
    if not config.redis_url:
        raise ConfigurationError("taor workers needs Redis: --redis redis://host:6379/0")
    found = asyncio.run(live_workers(config.redis_url))
    if not found:
        print("no live workers")
    for seen in found:
        since = datetime.datetime.fromtimestamp(seen["since"], datetime.UTC)
        runs = ", ".join(seen["runs"]) or "no runs"
        started = since.isoformat(timespec="seconds")
        print(f"{seen['name']}\t{seen['host']}\tpid {seen['pid']}\tsince {started}\t{runs}")
    return 0


async def live_workers(url: str) -> list[dict[str, Any]]:
    from taor.server.spread.streams import WORKERS, connect

    client = await connect(url)
    try:
        names = sorted([key async for key in client.scan_iter(match=WORKERS + "*")])
        values = await client.mget(names) if names else []
    finally:
        await client.aclose()
    return [json.loads(value) for value in values if value]
