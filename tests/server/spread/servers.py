"""A real Redis server and a real PostgreSQL server for the tests, each on a free loopback port
with its files in a temporary folder, started and stopped by the tests.

Redis runs with AOF on (every write synced), so a restart keeps what was written. PostgreSQL is
made by ``initdb`` and run by ``pg_ctl`` as its own user: they refuse to run as root, so as
root they run as ``postgres`` (Debian's package makes that user) in a folder it owns.
"""

from __future__ import annotations

import glob
import os
import shutil
import socket
import subprocess
import tempfile
import time
from pathlib import Path

from ..process import free_port


def _wait_port(port: int, proc: subprocess.Popen[bytes] | None = None, wait: float = 30) -> None:
    deadline = time.monotonic() + wait
    while time.monotonic() < deadline:
        if proc is not None and proc.poll() is not None:
            raise RuntimeError(f"the server ended ({proc.returncode})")
        with socket.socket() as sock:
            if sock.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.05)
    raise RuntimeError(f"nothing listens on port {port}")


class RedisServer:
    def __init__(self, binary: str, folder: Path) -> None:
        self.binary = binary
        self.folder = folder
        self.port = free_port()
        self.process: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self) -> None:
        self.process = subprocess.Popen(
            [
                self.binary,
                "--port", str(self.port),
                "--bind", "127.0.0.1",
                "--dir", str(self.folder),
                "--appendonly", "yes",
                "--appendfsync", "always",
                "--save", "",
                "--protected-mode", "no",
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )  # fmt: skip
        _wait_port(self.port, self.process)
        while not self.command("PING").startswith("+PONG"):  # listening before it has read its AOF
            time.sleep(0.05)

    def command(self, *words: str) -> str:
        """One command (inline), its reply as sent (a short one: one read)."""
        with socket.create_connection(("127.0.0.1", self.port), timeout=10) as sock:
            sock.sendall((" ".join(words) + "\r\n").encode())
            return sock.recv(65536).decode()

    def stop(self) -> None:
        """Stop it as an operator would (it writes its AOF out first)."""
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            self.process.wait(timeout=30)
        self.process = None

    def restart(self) -> None:
        self.stop()
        self.start()


def redis_binary() -> str | None:
    return shutil.which("redis-server")


def postgres_bin() -> Path | None:
    """The folder of initdb and pg_ctl: on the PATH, or where Debian puts them."""
    found = shutil.which("initdb")
    if found and shutil.which("pg_ctl"):
        return Path(found).parent
    for folder in sorted(glob.glob("/usr/lib/postgresql/*/bin"), reverse=True):
        if (Path(folder) / "initdb").exists():
            return Path(folder)
    return None


class PostgresServer:
    USER = "postgres"

    def __init__(self, bin_dir: Path) -> None:
        self.bin = bin_dir
        self.port = free_port()
        self.root = Path(tempfile.mkdtemp(prefix="taor-pg-"))
        self.data = self.root / "data"
        self._as: list[str] = []
        if os.geteuid() == 0:  # initdb refuses root: its own user, in a folder it owns
            self._as = ["runuser", "-u", self.USER, "--"]
            shutil.chown(self.root, self.USER)
        self._databases = 0

    def _run(self, *args: str) -> None:
        subprocess.run([*self._as, *args], check=True, capture_output=True, timeout=120)

    def start(self) -> None:
        if not self.data.exists():
            self._run(
                str(self.bin / "initdb"), "-D", str(self.data), "-U", "taor",
                "--auth", "trust", "--no-sync", "-E", "UTF8",
            )  # fmt: skip
        options = f"-p {self.port} -h 127.0.0.1 -k {self.root} -c fsync=off -c max_connections=300"
        self._run(
            str(self.bin / "pg_ctl"), "-D", str(self.data), "-o", options,
            "-l", str(self.root / "log"), "-w", "start",
        )  # fmt: skip

    def stop(self) -> None:
        self._run(str(self.bin / "pg_ctl"), "-D", str(self.data), "-m", "fast", "-w", "stop")

    def url(self, database: str = "postgres") -> str:
        return f"postgresql://taor@127.0.0.1:{self.port}/{database}"

    def new_database(self) -> str:
        """A new empty database's URL."""
        import asyncio

        import asyncpg  # type: ignore[import-untyped]

        self._databases += 1
        name = f"t{self._databases}"

        async def create() -> None:
            connection = await asyncpg.connect(self.url())
            try:
                await connection.execute(f"CREATE DATABASE {name}")
            finally:
                await connection.close()

        asyncio.run(create())
        return self.url(name)

    def remove(self) -> None:
        shutil.rmtree(self.root, ignore_errors=True)
