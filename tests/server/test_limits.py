"""``BodyLimit`` under uvicorn: a body declared too large is refused before it is read, a
chunked one as soon as it passes the limit, and one within the limit reaches the app whole."""

from __future__ import annotations

from collections.abc import AsyncIterator

import httpx2
import pytest
from fastapi import FastAPI, Request

from taor.server.limits import BodyLimit

from .loopback import serving


@pytest.fixture
async def url() -> AsyncIterator[str]:
    app = FastAPI()
    app.add_middleware(BodyLimit, limit=1000)

    @app.post("/echo")
    async def echo(request: Request) -> dict[str, int]:
        return {"size": len(await request.body())}

    async with serving(app) as served:
        yield served


async def chunks(count: int, size: int = 100) -> AsyncIterator[bytes]:
    for _ in range(count):
        yield b"x" * size


async def test_bodies_within_the_limit_arrive_whole(url: str) -> None:
    async with httpx2.AsyncClient(base_url=url) as client:
        assert (await client.post("/echo", content=b"x" * 1000)).json() == {"size": 1000}
        assert (await client.post("/echo", content=chunks(10))).json() == {"size": 1000}


async def test_bodies_over_it_are_refused_declared_or_chunked(url: str) -> None:
    async with httpx2.AsyncClient(base_url=url) as client:
        declared = await client.post("/echo", content=b"x" * 1001)
        chunked = await client.post("/echo", content=chunks(50))
    assert declared.status_code == chunked.status_code == 413
    assert "1000 bytes" in chunked.json()["detail"]
