"""The parent's side of the llama.cpp server child (``serve``): start it, wait until it is
healthy, stop it.

The child gets a pipe as its standard input and exits when it closes, so closing it is how
``stop`` asks, and a parent that dies (however: SIGKILL included) takes the server with it.
OpenMP is told not to spin (``OMP_WAIT_POLICY=PASSIVE``; the server's CPU poll is 0 too):
a spinning server halves the speed of every other process on the machine, tools included.
llama.cpp's log goes to a temporary file, quoted when the server fails to start and removed
when it stops. Each start makes a new random API key (``api_key``), which the server requires
of every request but ``/health`` (``serve``).
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import json
import os
import secrets
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import IO, NoReturn

from taor._records import frozen
from taor.errors import ServerError
from taor.llm.local.prefix import prefix_name, restore, save
from taor.llm.local.serve import KEY_VAR

PROVIDER = "local"
START_TIMEOUT = 300.0  # loading from a cold, slow disk; a loaded model answers health at once


@frozen
class ServerSettings:
    model_path: str
    context_size: int
    threads: int
    chat_template_file: str = ""  # a Jinja chat template; "" for the model's own
    cache_ram_mib: int = 512  # llama.cpp's prompt cache in RAM (its default is 8 GiB)
    prefix_dir: str = ""  # where the saved prompt prefix lives ("" for none; see prefix.py)
    # Requests that set no temperature: greedy, so a run is repeatable (llama.cpp's own default,
    # 0.8, is a chat setting; small models call tools more reliably without it).
    temperature: float = 0.0


class LocalServer:
    """One llama.cpp server in a child process; ``start`` returns its base URL (``.../v1``)."""

    def __init__(self, settings: ServerSettings) -> None:
        self.settings = settings
        self._process: subprocess.Popen[bytes] | None = None
        self._log: IO[bytes] | None = None
        self.base_url: str | None = None
        self.api_key = ""  # the running server's, made anew by each start
        self.started_in: float | None = None  # seconds from spawn to healthy
        self.prefix_restored = False
        self._prefix = prefix_name(
            settings.model_path, settings.context_size, settings.chat_template_file
        )

    @property
    def pid(self) -> int | None:
        return self._process.pid if self._process is not None else None

    async def start(self) -> str:
        if self.base_url is not None:
            return self.base_url
        began = time.monotonic()
        self.api_key = secrets.token_urlsafe(32)
        process = self._spawn()
        try:
            address = await self._address(process)
            await _wait_healthy(address, process)
            self.prefix_restored = await restore(
                address, self.settings.prefix_dir, self._prefix, key=self.api_key
            )
        except BaseException:  # a failure, a timeout or a cancel: no half-started server
            await self.stop(keep_log=True)
            raise
        self.started_in = time.monotonic() - began
        self.base_url = address + "/v1"
        return self.base_url

    @property
    def prefix_path(self) -> Path | None:
        """The saved prompt prefix's file for these settings (None when it is turned off)."""
        directory = self.settings.prefix_dir
        return Path(directory) / self._prefix if directory else None

    async def save_prefix(self) -> bool:
        """Save the server's prompt cache for the next server with these settings."""
        if self.base_url is None:
            return False
        address = self.base_url.removesuffix("/v1")
        return await save(address, self.settings.prefix_dir, self._prefix, key=self.api_key)

    async def _address(self, process: subprocess.Popen[bytes]) -> str:
        try:
            line = await asyncio.wait_for(asyncio.to_thread(_first_line, process), START_TIMEOUT)
        except TimeoutError:
            self._fail(f"did not load the model within {START_TIMEOUT:.0f} s")
        if not line:
            self._fail("exited before it was ready")
        try:
            return str(json.loads(line)["address"])
        except (ValueError, KeyError, TypeError):
            self._fail(f"printed {line[:200]!r} instead of its address")

    def _spawn(self) -> subprocess.Popen[bytes]:
        self._log = tempfile.NamedTemporaryFile(  # noqa: SIM115 (closed by stop)
            prefix="taor-llama-", suffix=".log", delete=False
        )
        env = dict(os.environ, OMP_WAIT_POLICY="PASSIVE")
        env[KEY_VAR] = self.api_key
        package_root = str(Path(__file__).resolve().parents[3])
        env["PYTHONPATH"] = os.pathsep.join(p for p in (package_root, env.get("PYTHONPATH")) if p)
        settings = json.dumps(dataclasses.asdict(self.settings))
        self._process = subprocess.Popen(
            [sys.executable, "-m", "taor.llm.local.serve", settings, self._log.name],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=self._log,
            env=env,
            start_new_session=True,  # a Ctrl-C at the terminal is taor's to handle, not the server's
        )
        return self._process

    def _fail(self, what: str) -> NoReturn:
        if self._process is not None and self._process.poll() is None:
            self._process.kill()  # also ends a _first_line still reading
            self._process.wait()
        raise ServerError(
            f"the local model server {what}: {self._log_tail()} (log: {self._log_path()})",
            provider=PROVIDER,
            retryable=False,
        )

    def _log_path(self) -> str:
        return self._log.name if self._log is not None else "?"

    def _log_tail(self) -> str:
        try:
            lines = Path(self._log_path()).read_text(errors="replace").strip().splitlines()
        except OSError:
            return "no log"
        errors = [line.split(" E ", 1)[1] for line in lines if " E " in line]
        return " ".join((errors or lines[-1:] or ["no log"])[0].split())[:300]  # the first cause

    async def stop(self, *, keep_log: bool = False) -> None:
        """Close the child's pipe, give it 5 s, then kill it; remove the log unless
        ``keep_log`` (a failed start names it)."""
        process, self._process, self.base_url = self._process, None, None
        if process is not None:
            await asyncio.to_thread(_stop, process)
        if self._log is not None:
            self._log.close()
            if not keep_log:
                with contextlib.suppress(FileNotFoundError):  # the child removes it too
                    os.unlink(self._log.name)
            self._log = None


def _first_line(process: subprocess.Popen[bytes]) -> str:
    assert process.stdout is not None
    return process.stdout.readline().decode("utf-8", "replace").strip()


def _stop(process: subprocess.Popen[bytes]) -> None:
    for stream in (process.stdin, process.stdout):
        if stream is not None:
            stream.close()
    try:
        process.wait(timeout=5)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()


async def _wait_healthy(address: str, process: subprocess.Popen[bytes]) -> None:
    import httpx2

    deadline = time.monotonic() + START_TIMEOUT
    async with httpx2.AsyncClient(timeout=5.0) as client:
        while time.monotonic() < deadline and process.poll() is None:
            try:
                if (await client.get(address + "/health")).status_code == 200:
                    return
            except httpx2.TransportError:
                pass
            await asyncio.sleep(0.2)
    raise ServerError(
        f"the local model server at {address} did not become healthy",
        provider=PROVIDER,
        retryable=False,
    )
