"""The real service under uvicorn on a free loopback port, for the tests that call it."""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path

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


@pytest.fixture
async def served(tmp_path: Path) -> AsyncIterator[Served]:
    with FakeProviderServer([]) as model:
        config = ServiceConfig(
            data_dir=tmp_path / "data",
            max_body=64 * 1024,
            default_model="openai-compat:m",
            base_url=model.url,
            sandbox=False,
        )
        service = await Service.open(config)
        assert service.first_token is not None
        try:
            async with serving(create_app(service)) as url:
                yield Served(url=url, service=service, admin=service.first_token, model=model)
        finally:
            await service.close()
