"""Who may use the local model's llama.cpp server: only taor, with the key each start makes.

The parameters are those the real xllamacpp gets; the slot save and restore calls go over real
HTTP on 127.0.0.1 to a stand-in that, like llama.cpp, refuses a request without the key and
writes the slot file with the umask's mode. The real server is exercised in tests/e2e."""

from __future__ import annotations

import asyncio
import json
import os
import stat
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from taor.llm.local.prefix import restore, save
from taor.llm.local.serve import _params

xllamacpp = pytest.importorskip("xllamacpp")


def _settings(prefix_dir: str = "", api_key: str = "") -> dict[str, object]:
    return {
        "model_path": "/nowhere/model.gguf",
        "context_size": 2048,
        "threads": 1,
        "cache_ram_mib": 64,
        "temperature": 0.0,
        "prefix_dir": prefix_dir,
        "chat_template_file": "",
        "api_key": api_key,
    }


def test_the_server_requires_the_key_and_lists_no_slots(tmp_path: Path) -> None:
    params = _params(xllamacpp, _settings(api_key="k3y"))

    assert params.api_keys == ["k3y"]
    assert params.endpoint_slots is False  # GET /slots would show the prompt
    assert params.slot_save_path == ""  # no saving slots anywhere without a prefix directory
    assert params.hostnames == ["127.0.0.1"]


def test_slots_are_saved_only_into_a_private_prefix_directory(tmp_path: Path) -> None:
    prefix = tmp_path / "cache" / "prompt-prefix"
    params = _params(xllamacpp, _settings(prefix_dir=str(prefix), api_key="k3y"))

    assert params.slot_save_path == str(prefix) + os.sep
    assert params.endpoint_slots is False
    assert stat.S_IMODE(prefix.stat().st_mode) == 0o700
    assert stat.S_IMODE((tmp_path / "cache").stat().st_mode) == 0o700


class SlotServer:
    """llama.cpp's slot endpoint as far as taor uses it, on 127.0.0.1."""

    def __init__(self, directory: Path, key: str) -> None:
        self.directory, self.key = directory, key
        self.statuses: list[int] = []

    async def handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        head = (await reader.readuntil(b"\r\n\r\n")).decode()
        fields = dict(line.split(":", 1) for line in head.split("\r\n")[1:] if ":" in line)
        length = int({k.lower(): v for k, v in fields.items()}.get("content-length", "0"))
        body = json.loads(await reader.readexactly(length) or b"{}")
        authorized = f"authorization: bearer {self.key}" in head.lower()
        status = 200 if authorized else 401
        if authorized and "action=save" in head.split("\r\n")[0]:
            path = self.directory / body["filename"]
            path.write_bytes(b"slot")
            path.chmod(0o644)  # what llama.cpp leaves under the usual umask
        self.statuses.append(status)
        writer.write(
            f"HTTP/1.1 {status} X\r\ncontent-length: 2\r\nconnection: close\r\n\r\n{{}}".encode()
        )
        await writer.drain()
        writer.close()


@pytest.fixture
async def slots(tmp_path: Path) -> AsyncIterator[tuple[str, SlotServer]]:
    stand_in = SlotServer(tmp_path, "the-key")
    server = await asyncio.start_server(stand_in.handle, "127.0.0.1", 0)
    async with server:
        yield f"http://127.0.0.1:{server.sockets[0].getsockname()[1]}", stand_in


async def test_the_prefix_is_saved_and_restored_with_the_key_and_kept_private(
    tmp_path: Path, slots: tuple[str, SlotServer]
) -> None:
    address, stand_in = slots

    assert not await save(address, str(tmp_path), "prefix-a.bin")  # no key: refused
    assert not (tmp_path / "prefix-a.bin").exists()
    assert await save(address, str(tmp_path), "prefix-a.bin", key="the-key")
    assert stat.S_IMODE((tmp_path / "prefix-a.bin").stat().st_mode) == 0o600
    assert await restore(address, str(tmp_path), "prefix-a.bin", key="the-key")
    assert not await restore(address, str(tmp_path), "prefix-a.bin", key="another")
    assert stand_in.statuses == [401, 200, 200, 401]
