"""``Cluster``: API processes (``taor serve --redis``) and workers (``taor worker``) as
separate processes sharing Redis, a database and a data folder, driven over HTTP as a client
would; and the model's replies for its runs."""

from __future__ import annotations

import asyncio
import json
import signal
import subprocess
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx2

from taor.server.store.runs import ENDED
from taor.testing import RecordedRequest, Reply, ToolCall, text, tool_calls

from ..process import TAOR, Home, serve, token_of, url_of
from .servers import RedisServer

TIMEOUT = 2.0  # the workers' heartbeat timeout in these tests (seconds)


def counting(marker: Path, tag: str, *, sleep: float = 0) -> ToolCall:
    """A shell call that appends ``tag`` to ``marker`` (so its runs can be counted), then
    sleeps ``sleep`` seconds and appends ``tag-done`` (so a call that finished can be told).
    Its timeout is well past the sleep: a call meant to be killed mid-way must not end first,
    however slowly a loaded machine gets to the kill."""
    tail = f"; sleep {sleep}; echo {tag}-done >> {marker}" if sleep else ""
    command = f"echo {tag} >> {marker}{tail}"
    return ToolCall(name="shell", arguments={"command": command, "timeout": 2 * sleep + 10})


def scripted(marker: Path) -> Any:
    """The model of every run: a first request (the prompt alone) calls the counting tool
    tagged with the prompt's last word (sleeping 60 s after when the prompt says "slow", 3 s
    when it says "nap"); when the prompt says "twice", the request after that call's result
    calls it once more, tagged ``again-<tag>``; any other answers in text."""

    def reply(request: RecordedRequest) -> Reply:
        messages = [m for m in request.json.get("messages", []) if m.get("role") != "system"]
        content = messages[0].get("content", "") if messages else ""
        if isinstance(content, list):
            content = " ".join(part.get("text", "") for part in content)
        tag = str(content).split()[-1] if content else ""
        if len(messages) == 1:
            sleep = 60 if "slow" in content else 3 if "nap" in content else 0
            return tool_calls(counting(marker, tag, sleep=sleep))
        if "twice" in content and len(messages) == 3:
            return tool_calls(counting(marker, f"again-{tag}"))
        return text("Done.")

    return reply


@dataclass
class Cluster:
    home: Home
    redis: RedisServer
    database: str
    model: Any
    apis: list[tuple[subprocess.Popen[str], str]] = field(default_factory=list)
    workers: list[subprocess.Popen[str]] = field(default_factory=list)
    names: list[str] = field(default_factory=list)
    token: str = ""
    settings: str = ""  # more lines of the [serve] table

    @property
    def data(self) -> Path:
        return self.home.root / "shared"

    def configure(self) -> None:
        self.home.configure(
            "[serve]\nport = 0\nsandbox = false\nworkers = 25\n"
            f'model = "openai-compat:m"\nbase_url = "{self.model.url}"\n'
            f'data_dir = "{self.data}"\nworker_timeout = {TIMEOUT}\nstream_retention = 600\n'
            f'redis_url = "{self.redis.url}"\ndatabase_url = "{self.database}"\n' + self.settings
        )

    def start(self, *, apis: int, workers: int) -> None:
        self.configure()
        process, lines = serve(self.home)  # the first makes the database and the first token
        self.apis.append((process, url_of(lines)))
        self.token = token_of(lines)
        with ThreadPoolExecutor() as pool:  # the others at once
            started = [pool.submit(serve, self.home) for _ in range(apis - 1)]
            for _ in range(workers):
                self.start_worker()
            self.apis += [(p, url_of(lines)) for p, lines in (f.result() for f in started)]

    def start_worker(self) -> subprocess.Popen[str]:
        log = (self.home.root / f"worker-{len(self.workers)}.log").open("w")
        process = subprocess.Popen(
            [TAOR, "worker"],
            stdout=subprocess.PIPE,
            stderr=log,
            text=True,
            env=self.home.env(),
            cwd=self.home.root,
        )
        log.close()
        assert process.stdout is not None
        first = process.stdout.readline()
        assert first.startswith("taor worker "), (first, process.wait(timeout=30))
        process.stdout.readline()
        threading.Thread(target=process.stdout.read, daemon=True).start()  # never blocks it
        self.workers.append(process)
        self.names.append(first.split()[2].rstrip(":"))
        return process

    def ensure(self, *, workers: int) -> None:
        """Start workers until ``workers`` of them live."""
        while sum(process.poll() is None for process in self.workers) < workers:
            self.start_worker()

    def holder(self, run_id: str) -> subprocess.Popen[str]:
        """The worker process whose heartbeat says it holds ``run_id``."""
        for process, name in zip(self.workers, self.names, strict=True):
            seen = self.redis.command("GET", f"taor:worker:{name}")
            if process.poll() is None and run_id in seen:
                return process
        raise AssertionError(f"no worker holds {run_id}")

    def kill(self, process: subprocess.Popen[str]) -> None:
        process.send_signal(signal.SIGKILL)
        process.wait(timeout=30)

    def stop(self) -> None:
        for process in self.workers:
            if process.poll() is None:
                process.send_signal(signal.SIGTERM)
        for process, _ in self.apis:
            process.send_signal(signal.SIGTERM)
        for process in [*self.workers, *(p for p, _ in self.apis)]:
            try:
                _, err = process.communicate(timeout=30)
                if err and "Traceback" in err:
                    print(err)
            except subprocess.TimeoutExpired:
                process.kill()
                process.communicate()

    def client(self, api: int = 0) -> httpx2.AsyncClient:
        return httpx2.AsyncClient(
            base_url=self.apis[api][1],
            headers={"authorization": f"Bearer {self.token}"},
            timeout=30,
        )


async def create(http: httpx2.AsyncClient, prompt: str, **body: Any) -> str:
    answer = await http.post("/runs", json={"prompt": prompt, **body})
    assert answer.status_code == 201, answer.text
    return str(answer.json()["id"])


drops: list[str] = []  # the runs whose stream dropped (to see why, should it happen)


async def follow(
    http: httpx2.AsyncClient, run_id: str, notices: list[tuple[int, dict[str, Any]]] | None = None
) -> list[tuple[int, str, str]]:
    """Every (number, kind, data) the run's SSE stream sends, as sent (a number sent twice
    shows twice), reconnecting with ``Last-Event-ID`` until the stream says ``end``. Each ``moved``
    notice (it has no id) goes into ``notices`` as (the number seen before it, its data)."""
    return await follow_from(http, run_id, 0, notices)


async def follow_from(
    http: httpx2.AsyncClient,
    run_id: str,
    after: int,
    notices: list[tuple[int, dict[str, Any]]] | None = None,
) -> list[tuple[int, str, str]]:
    """``follow`` from the ``Last-Event-ID`` ``after``."""
    seen: list[tuple[int, str, str]] = []
    ended = False
    while True:
        last = seen[-1][0] if seen else after
        headers = {"last-event-id": str(last)} if last else {}
        try:
            async with http.sse(f"/runs/{run_id}/events", headers=headers) as source:
                assert source.response.status_code == 200
                async for message in source:
                    if message.event == "end":  # all of it, and the run says it ended
                        assert message.id in ("", str(seen[-1][0] if seen else after))
                        state = (await http.get(f"/runs/{run_id}")).json()["status"]
                        assert state in ENDED, state
                        return seen
                    if message.event == "moved":
                        before = seen[-1][0] if seen else after
                        assert message.id in ("", str(before)), message  # it sets no id
                        if notices is not None:
                            notices.append((before, json.loads(message.data)))
                        continue
                    seen.append((int(message.id), message.event, message.data))
        except httpx2.TransportError:  # as a client does: back from the last number
            drops.append(run_id)
            continue
        if ended:
            return seen
        ended = (await http.get(f"/runs/{run_id}")).json()["status"] in ENDED


async def status(http: httpx2.AsyncClient, run_id: str) -> dict[str, Any]:
    answer = await http.get(f"/runs/{run_id}")
    assert answer.status_code == 200, answer.text
    return dict(answer.json())


def kinds(seen: list[tuple[int, str, str]]) -> list[str]:
    return [kind for _, kind, _ in seen]


def data_of(seen: list[tuple[int, str, str]], kind: str) -> list[dict[str, Any]]:
    return [json.loads(data) for _, k, data in seen if k == kind]


async def asked(http: httpx2.AsyncClient, run_id: str) -> str:
    """The id of the first permission request on the run's stream."""
    async with http.sse(f"/runs/{run_id}/events") as source:
        async for message in source:
            if message.event == "permission_request":
                return str(json.loads(message.data)["request_id"])
    raise AssertionError(f"{run_id} asked nothing")


async def eventually(check: Callable[[], bool]) -> None:
    """Wait until ``check()`` holds (what it looks at is another process's: a file)."""
    while not check():  # noqa: ASYNC110  (nothing here to await: another process writes it)
        await asyncio.sleep(0.05)
