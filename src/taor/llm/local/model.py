"""``LocalModel``: the ``openai-compat`` adapter over a llama.cpp server of its own, started on
the first request and stopped by ``aclose()``; ``connect_local`` builds one from a model string.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import AsyncIterator, Mapping
from importlib.resources import files
from typing import Any

from taor.errors import ConfigurationError, ProviderError
from taor.llm.adapters.openai_compat import OpenAICompatModel
from taor.llm.events import StreamEvent
from taor.llm.local import checks
from taor.llm.local.known import resolve
from taor.llm.local.prefix import prefix_directory
from taor.llm.local.server import PROVIDER, LocalServer, ServerSettings
from taor.llm.model import Timeouts
from taor.llm.types import Request

DEFAULT_CONTEXT_SIZE = 8192
MAX_DEFAULT_THREADS = 8  # beyond this llama.cpp on CPU gains little and starves the tools
CONTEXT_VAR = "TAOR_LOCAL_CONTEXT_SIZE"
THREADS_VAR = "TAOR_LOCAL_THREADS"
# A prompt of a few thousand tokens takes a small CPU a minute or more before the first byte.
LOCAL_TIMEOUTS = Timeouts(connect=10.0, idle=600.0, write=60.0)


class LocalModel(OpenAICompatModel):
    """A model served by llama.cpp in a child process of this one. One server per object:
    share the object (subagents get their parent's) to share the server."""

    provider = PROVIDER

    def __init__(self, model_id: str, *, server: ServerSettings, **kwargs: Any) -> None:
        kwargs.setdefault("timeouts", LOCAL_TIMEOUTS)
        kwargs["api_key"] = "not-needed"
        kwargs["base_url"] = None
        super().__init__(model_id, **kwargs)
        self.server = LocalServer(server)
        self._starting: asyncio.Lock | None = None
        self._prefix_saved = False

    async def stream(self, request: Request) -> AsyncIterator[StreamEvent]:
        if self._base_url is None:
            await self._start()
        try:
            async for event in super().stream(request):
                yield event
        except ProviderError as error:
            error.provider = PROVIDER  # the adapter's errors name openai-compat
            raise
        if not self._prefix_saved:  # the first prompt, for the next server to start from
            self._prefix_saved = True
            await self.server.save_prefix()

    async def _start(self) -> None:
        self._starting = self._starting or asyncio.Lock()
        async with self._starting:  # two subagents asking at once start one server
            if self._base_url is None:
                self._base_url = await self.server.start()
                self._api_key = self.server.api_key  # the client is made after, with it

    async def aclose(self) -> None:
        await super().aclose()
        await self.server.stop()
        self._base_url = None


def connect_local(
    spec: str,
    *,
    env: Mapping[str, str] | None = None,
    context_size: int | None = None,
    threads: int | None = None,
    timeouts: Timeouts | None = None,
    **options: Any,
) -> LocalModel:
    """``spec``: ``""`` (the default known model), a known model's name or a ``.gguf`` path.
    Context size and threads: the arguments, else ``TAOR_LOCAL_CONTEXT_SIZE`` /
    ``TAOR_LOCAL_THREADS``, else 8192 and the usable cores (at most 8)."""
    env = os.environ if env is None else env
    model = resolve(spec, env)
    checks.require_extra()
    checks.require_model_file(model)
    context = context_size or _positive(env, CONTEXT_VAR) or DEFAULT_CONTEXT_SIZE
    checks.require_memory(model, context)
    settings = ServerSettings(
        model_path=str(model.path),
        context_size=context,
        threads=threads or _positive(env, THREADS_VAR) or default_threads(),
        chat_template_file=_template(model.template),
        prefix_dir=prefix_directory(dict(env)),
    )
    options.pop("api_key", None)
    options.pop("base_url", None)
    if timeouts is not None:
        options["timeouts"] = timeouts
    return LocalModel(model.model_id, server=settings, **options)


def default_threads() -> int:
    usable = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    return max(1, min(usable or 1, MAX_DEFAULT_THREADS))


def _positive(env: Mapping[str, str], name: str) -> int | None:
    value = env.get(name)
    if not value:
        return None
    if not value.isdigit() or int(value) < 1:
        raise ConfigurationError(f"{name} must be a positive whole number, not {value!r}")
    return int(value)


def _template(name: str) -> str:
    """The path of a template shipped in ``templates/`` ("" for none)."""
    return str(files("taor.llm.local").joinpath("templates", name)) if name else ""


__all__ = ["LocalModel", "ServerSettings", "connect_local"]
