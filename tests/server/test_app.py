"""The service's HTTP surface as a client meets it under uvicorn: health without a token,
everything else with one, oversized bodies refused before they are read."""

from __future__ import annotations

import pytest

from .conftest import Served


async def test_health_needs_no_token(served: Served) -> None:
    async with served.client() as client:
        answer = await client.get("/healthz")
    assert answer.status_code == 200 and answer.json()["status"] == "ok"


@pytest.mark.parametrize(
    "authorization",
    [None, "", "Bearer", "Bearer nope", "Basic YWRtaW46eA==", "bearer taor_x_y"],
)
async def test_without_a_valid_token_every_other_endpoint_is_401(
    served: Served, authorization: str | None
) -> None:
    headers = {"authorization": authorization} if authorization is not None else {}
    async with served.client() as client:
        answer = await client.get("/me", headers=headers)
    assert answer.status_code == 401
    assert answer.headers["www-authenticate"] == "Bearer"
    assert "Bearer <token>" in answer.json()["detail"]


async def test_the_first_admin_token_speaks_for_the_admin(served: Served) -> None:
    async with served.client(served.admin) as client:
        answer = await client.get("/me")
    assert answer.json() == {"name": "admin", "admin": True}


async def test_a_revoked_token_is_refused_at_once(served: Served) -> None:
    token = await served.service.tokens.create("ann")
    async with served.client(token) as client:
        assert (await client.get("/me")).json() == {"name": "ann", "admin": False}
        await served.service.tokens.revoke("ann")
        assert (await client.get("/me")).status_code == 401


async def test_a_body_over_the_limit_is_refused_413_before_anything_else(served: Served) -> None:
    async with served.client() as client:  # no token: the size is checked first
        answer = await client.post("/me", content=b"x" * (65 * 1024))
    assert answer.status_code == 413
    assert answer.json()["detail"] == (
        "the request body is larger than this service accepts (65536 bytes)"
    )


async def test_the_openapi_document_describes_the_api(served: Served) -> None:
    async with served.client() as client:
        document = (await client.get("/openapi.json")).json()
    assert "/healthz" in document["paths"] and "/me" in document["paths"]
