"""Users and their bearer tokens.

A token reads ``taor_<key>_<secret>``: the key (public, 12 characters) finds its row, and the
SHA-256 of the whole token is compared with the stored one in constant time. The token itself
is shown once, when it is made, and never stored, logged or shown again. ``create`` makes the
user of the same name when there is none; ``revoke`` marks the token, so ``list`` still says
when it was made, last used and revoked, and its name is free for a new token of that user.
"""

from __future__ import annotations

import datetime
import hashlib
import hmac
import re
import secrets

from sqlalchemy import func, insert, select, update

from taor._records import frozen
from taor.errors import ConfigurationError
from taor.server.store.database import Database
from taor.server.store.schema import tokens, users

PREFIX = "taor_"
_KEY_LENGTH = 12
_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.@-]{0,99}$")
_TOKEN = re.compile(rf"^{PREFIX}([A-Za-z0-9]{{{_KEY_LENGTH}}})_[A-Za-z0-9_-]{{43}}$")
_ALPHABET = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"


@frozen
class User:
    """Who a token speaks for."""

    id: int
    name: str
    admin: bool


SERVICE = User(id=0, name="(service)", admin=True)  # the service itself: reads every run


@frozen
class TokenInfo:
    """A token as ``list`` shows it: never the token itself."""

    name: str
    user: str
    admin: bool
    created_at: datetime.datetime
    last_used_at: datetime.datetime | None
    revoked_at: datetime.datetime | None


class Tokens:
    def __init__(self, database: Database) -> None:
        self._engine = database.engine
        self._transactional = database.transactional

    async def create(self, name: str, *, admin: bool = False) -> str:
        """A new token called ``name`` for the user ``name`` (made if there is none; made
        an admin when ``admin``); the token, to be shown once. A revoked token's name can be
        given again: that is how a user's token is replaced."""
        check_name(name)
        key = "".join(secrets.choice(_ALPHABET) for _ in range(_KEY_LENGTH))
        token = f"{PREFIX}{key}_{secrets.token_urlsafe(32)}"
        now = _now()
        async with self._transactional.begin() as db:
            in_use = select(tokens.c.id).where(tokens.c.name == name, tokens.c.revoked_at.is_(None))
            if await db.scalar(in_use) is not None:
                raise ConfigurationError(
                    f"a token named {name!r} is in use: revoke it first, or pick another name"
                )
            user_id = await db.scalar(select(users.c.id).where(users.c.name == name))
            if user_id is None:
                user_id = await db.scalar(
                    insert(users)
                    .values(name=name, admin=admin, created_at=now)
                    .returning(users.c.id)
                )
            elif admin:
                await db.execute(update(users).where(users.c.id == user_id).values(admin=True))
            await db.execute(
                insert(tokens).values(
                    name=name, user_id=user_id, key=key, digest=_digest(token), created_at=now
                )
            )
        return token

    async def first_admin(self) -> str | None:
        """On a service with no users yet: an admin called ``admin`` and its token; else None."""
        async with self._engine.connect() as db:
            if await db.scalar(select(func.count()).select_from(users)):
                return None
        return await self.create("admin", admin=True)

    async def authenticate(self, token: str) -> User | None:
        """The user of a valid, unrevoked token; None for anything else."""
        found = _TOKEN.match(token)
        if found is None:
            return None
        query = (
            select(
                tokens.c.id,
                tokens.c.digest,
                users.c.id,
                users.c.name,
                users.c.admin,
                tokens.c.last_used_at,
            )
            .join(users, users.c.id == tokens.c.user_id)
            .where(tokens.c.key == found.group(1), tokens.c.revoked_at.is_(None))
        )
        async with self._engine.connect() as db:
            row = (await db.execute(query)).first()
        if row is None or not hmac.compare_digest(row[1], _digest(token)):
            return None
        now = _now()
        if _stale(row[5], now):  # a write per request would queue every request behind the
            async with self._engine.begin() as db:  # database's one writer
                await db.execute(
                    update(tokens).where(tokens.c.id == row[0]).values(last_used_at=now)
                )
        return User(id=row[2], name=row[3], admin=bool(row[4]))

    async def list(self) -> list[TokenInfo]:
        query = (
            select(tokens, users.c.name.label("user"), users.c.admin)
            .join(users, users.c.id == tokens.c.user_id)
            .order_by(tokens.c.created_at, tokens.c.id)
        )
        async with self._engine.connect() as db:
            rows = (await db.execute(query)).mappings().all()
        return [
            TokenInfo(
                name=row["name"],
                user=row["user"],
                admin=bool(row["admin"]),
                created_at=row["created_at"],
                last_used_at=row["last_used_at"],
                revoked_at=row["revoked_at"],
            )
            for row in rows
        ]

    async def revoke(self, name: str) -> bool:
        """Revoke the token called ``name``; False when there is no such token in use."""
        async with self._engine.begin() as db:
            done = await db.execute(
                update(tokens)
                .where(tokens.c.name == name, tokens.c.revoked_at.is_(None))
                .values(revoked_at=_now())
            )
        return bool(done.rowcount)


def check_name(name: str) -> None:
    if not _NAME.match(name):
        raise ConfigurationError(
            f"invalid token name {name!r}: use up to 100 letters, digits, '_', '.', '@' or '-', "
            "starting with a letter or digit"
        )


def _digest(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


LAST_USED_EVERY = datetime.timedelta(minutes=1)  # how fresh ``last_used_at`` is kept


def _stale(last: datetime.datetime | None, now: datetime.datetime) -> bool:
    if last is None:
        return True
    if last.tzinfo is None:  # SQLite gives back what it was given, without the zone
        last = last.replace(tzinfo=datetime.UTC)
    return now - last >= LAST_USED_EVERY


def _now() -> datetime.datetime:
    return datetime.datetime.now(datetime.UTC)
