"""The saved prompt prefix: llama.cpp's cache of a session's first prompt, kept on disk.

Every taor process starts its own server, whose prompt cache starts empty, so each run's first
request reads the whole prompt: the system prompt and the tool definitions, the same few hundred
tokens every time, take 10-15 s on two cores before the first byte. After a session's first
reply the server saves its slot (the prompt's tokens and their KV cache) to a file named for the
model, context size and chat template; the next server with the same three restores it before
its first request and reads only what differs (the working directory, the files, the task).
A stale or unreadable file costs nothing: llama.cpp reuses only the prefix that still matches,
or refuses the restore, and the prompt is read as before.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
from pathlib import Path

from taor._private import make_private

DIRECTORY_VAR = "TAOR_LOCAL_PREFIX_DIR"  # "" or "off" turns the saved prefix off
TIMEOUT = 30.0


def prefix_directory(env: dict[str, str] | None = None) -> str:
    """Where saved prefixes live ("" for nowhere): ``$TAOR_LOCAL_PREFIX_DIR``, else the user
    cache directory's ``prompt-prefix``."""
    env = dict(os.environ) if env is None else env
    if DIRECTORY_VAR in env:
        value = env[DIRECTORY_VAR]
        return "" if value in ("", "off") else str(Path(value).expanduser())
    from platformdirs import user_cache_dir

    return str(Path(user_cache_dir("taor")) / "prompt-prefix")


def prefix_name(model_path: str, context_size: int, template_file: str) -> str:
    """The file name for this model (its path, size and time), context size and template."""
    digest = hashlib.sha256()
    for part in (model_path, str(context_size), _stamp(model_path), _text(template_file)):
        digest.update(part.encode() + b"\0")
    return f"prefix-{digest.hexdigest()[:20]}.bin"


async def restore(address: str, directory: str, name: str, *, key: str = "") -> bool:
    """Load the saved slot into slot 0; False when there is none or the server refuses it.
    ``key``: the server's API key."""
    if not directory or not (Path(directory) / name).is_file():
        return False
    return await _slot_action(address, "restore", name, key)


async def save(address: str, directory: str, name: str, *, key: str = "") -> bool:
    """Save slot 0 under a name of this process's, then put it in place in one rename (two
    taor processes saving at once each leave a whole file)."""
    if not directory:  # the server child made the directory
        return False
    partial = f"{name}.{os.getpid()}.part"
    if not await _slot_action(address, "save", partial, key):
        return False
    try:
        make_private(Path(directory) / partial)  # llama.cpp wrote it with the umask's mode
        os.replace(Path(directory) / partial, Path(directory) / name)
    except OSError:
        with contextlib.suppress(OSError):
            os.unlink(Path(directory) / partial)
        return False
    return True


async def _slot_action(address: str, action: str, filename: str, key: str) -> bool:
    import httpx2

    url = f"{address}/slots/0?action={action}"
    headers = {"Authorization": f"Bearer {key}"} if key else {}
    try:
        async with httpx2.AsyncClient(timeout=TIMEOUT) as client:
            response = await client.post(url, json={"filename": filename}, headers=headers)
    except httpx2.HTTPError:
        return False
    return response.status_code == 200


def _stamp(path: str) -> str:
    try:
        info = os.stat(path)
    except OSError:
        return ""
    return f"{info.st_size}:{info.st_mtime_ns}"


def _text(path: str) -> str:
    try:
        return Path(path).read_text(encoding="utf-8") if path else ""
    except OSError:
        return ""
