"""The checks ``connect("local...")`` makes before anything starts, each failing with one line
that says what to do: the ``local`` extra, the model file, the memory it needs."""

from __future__ import annotations

import importlib.util
from pathlib import Path

from taor.errors import ConfigurationError
from taor.llm.local.known import Resolved

EXTRA_COMMAND = "pip install 'taor[local]'"
GGUF_MAGIC = b"GGUF"
OVERHEAD_BYTES = 384 * 1024 * 1024  # compute buffers and the server itself, measured ~300 MiB


def require_extra() -> None:
    """llama.cpp (``xllamacpp``) is importable, without importing it."""
    if importlib.util.find_spec("xllamacpp") is None:
        raise ConfigurationError(
            f"the local provider needs llama.cpp, which is not installed: run `{EXTRA_COMMAND}`"
        )


def require_model_file(model: Resolved) -> None:
    path = model.path
    if not path.is_file():
        if model.known is not None:
            raise ConfigurationError(
                f"local model {model.known.name} is not installed ({path} is missing): "
                f"run `taor models install {model.known.name}`"
            )
        raise ConfigurationError(f"no model file at {path}: give the path of a .gguf file")
    with path.open("rb") as file:
        magic = file.read(4)
    if magic != GGUF_MAGIC:
        raise ConfigurationError(
            f"{path} is not a GGUF model file (it starts with {magic!r}, not b'GGUF'): "
            "give a llama.cpp .gguf file"
        )


def needed_bytes(model: Resolved, context_size: int) -> int:
    """The model's weights, its KV cache at ``context_size`` tokens and the server's buffers."""
    return model.path.stat().st_size + context_size * model.kv_bytes_per_token + OVERHEAD_BYTES


def require_memory(
    model: Resolved, context_size: int, meminfo: Path = Path("/proc/meminfo")
) -> None:
    """Enough available memory (``MemAvailable``; skipped where the kernel does not say)."""
    available = mem_available(meminfo)
    needed = needed_bytes(model, context_size)
    if available is not None and available < needed:
        raise ConfigurationError(
            f"not enough memory for {model.model_id}: it needs about {_gib(needed)} at a "
            f"{context_size}-token context and {_gib(available)} is available; close other "
            "programs or use a smaller context (context_size=, TAOR_LOCAL_CONTEXT_SIZE)"
        )


def mem_available(meminfo: Path = Path("/proc/meminfo")) -> int | None:
    try:
        text = meminfo.read_text()
    except OSError:
        return None
    for line in text.splitlines():
        if line.startswith("MemAvailable:"):
            return int(line.split()[1]) * 1024
    return None


def _gib(count: int) -> str:
    return f"{count / 1024**3:.1f} GiB"
