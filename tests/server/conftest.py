"""The real service under uvicorn on a free loopback port, for the tests that call it."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx2
import pytest

from taor.server.app import create_app
from taor.server.config import ServiceConfig
from taor.server.service import Service
from taor.testing import FakeProviderServer

from .loopback import serving


@dataclass
class Served:
    url: str
    service: Service
    admin: str  # the first admin token
    model: FakeProviderServer  # the runs' model: push its replies

    async def user(self, name: str) -> str:
        """A token of a new user ``name``."""
        return await self.service.tokens.create(name)

    def client(self, token: str | None = None) -> httpx2.AsyncClient:
        headers = {"authorization": f"Bearer {token}"} if token else {}
        return httpx2.AsyncClient(base_url=self.url, headers=headers, timeout=10)


@contextlib.asynccontextmanager
async def serve(
    data: Path, model: FakeProviderServer, *, send_buffer: int = 0, **settings: Any
) -> AsyncIterator[Served]:
    """The service on ``data``, its runs' model ``model``; ``settings``: of ``ServiceConfig``;
    ``send_buffer``: as ``serving`` takes it."""
    config = ServiceConfig(
        **{
            "data_dir": data,
            "max_body": 64 * 1024,
            "default_model": "openai-compat:m",
            "base_url": model.url,
            "sandbox": False,
            **settings,
        }
    )
    service = await Service.open(config)
    token = service.first_token or ""
    try:
        async with serving(create_app(service), send_buffer=send_buffer) as url:
            yield Served(url=url, service=service, admin=token, model=model)
    finally:
        await service.close()


@pytest.fixture
async def served(tmp_path: Path) -> AsyncIterator[Served]:
    with FakeProviderServer([]) as model:
        async with serve(tmp_path / "data", model) as service:
            yield service
