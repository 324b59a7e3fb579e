"""Bearer tokens: made once and shown once, never stored as they are, checked in full, revoked
for good, listed without the secret."""

from __future__ import annotations

import sqlite3
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from taor.errors import ConfigurationError
from taor.server.store import Database, Tokens


@pytest.fixture
async def store(tmp_path: Path) -> AsyncIterator[tuple[Tokens, Path]]:
    file = tmp_path / "taor.db"
    database = await Database.open(f"sqlite:///{file}")
    yield Tokens(database), file
    await database.close()


async def test_a_token_speaks_for_its_user_and_is_not_kept_as_it_is(
    store: tuple[Tokens, Path],
) -> None:
    tokens, file = store
    token = await tokens.create("ann")
    user = await tokens.authenticate(token)
    assert user is not None and user.name == "ann" and not user.admin
    assert token.encode() not in file.read_bytes()
    with sqlite3.connect(file) as raw:
        everything = " ".join(str(v) for row in raw.execute("SELECT * FROM tokens") for v in row)
    assert token not in everything and token.split("_", 2)[2] not in everything


async def test_anything_but_the_whole_token_is_refused(store: tuple[Tokens, Path]) -> None:
    tokens, _ = store
    token = await tokens.create("ann")
    key = token.split("_", 2)[1]
    for wrong in (
        "",
        "Bearer " + token,
        token[:-1],
        token[:-1] + ("A" if token[-1] != "A" else "B"),  # right key, wrong secret
        f"taor_{key}_" + "x" * 43,
        token + "x",
        token.upper(),
    ):
        assert await tokens.authenticate(wrong) is None, wrong


async def test_a_revoked_token_no_longer_works_and_the_list_says_when(
    store: tuple[Tokens, Path],
) -> None:
    tokens, _ = store
    token = await tokens.create("ann")
    await tokens.authenticate(token)
    assert await tokens.revoke("ann")
    assert await tokens.authenticate(token) is None
    assert not await tokens.revoke("ann")  # already revoked
    assert not await tokens.revoke("nobody")
    [info] = await tokens.list()
    assert info.name == "ann" and info.revoked_at is not None and info.last_used_at is not None
    assert token not in repr(info)


async def test_the_first_start_makes_one_admin_and_only_once(store: tuple[Tokens, Path]) -> None:
    tokens, _ = store
    first = await tokens.first_admin()
    assert first is not None
    user = await tokens.authenticate(first)
    assert user is not None and user.admin and user.name == "admin"
    assert await tokens.first_admin() is None


async def test_names_are_checked_and_never_taken_twice(store: tuple[Tokens, Path]) -> None:
    tokens, _ = store
    await tokens.create("ci-bot")
    with pytest.raises(ConfigurationError, match="in use"):
        await tokens.create("ci-bot")
    for bad in ("", "-x", "a b", "é", "x" * 101, "a/b"):
        with pytest.raises(ConfigurationError, match="invalid token name"):
            await tokens.create(bad)


async def test_a_revoked_name_is_given_again_to_replace_a_users_token(
    store: tuple[Tokens, Path],
) -> None:
    tokens, _ = store
    old = await tokens.create("ann")
    await tokens.revoke("ann")
    new = await tokens.create("ann", admin=True)
    assert await tokens.authenticate(old) is None
    user = await tokens.authenticate(new)
    assert user is not None and user.name == "ann" and user.admin
    listed = [(t.name, t.revoked_at is not None) for t in await tokens.list()]
    assert listed == [("ann", True), ("ann", False)]
