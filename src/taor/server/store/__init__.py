"""The service's database: ``Database`` (open, migrate, close), ``Tokens`` (users and their
bearer tokens), ``Runs`` and ``EventLog`` (runs and their numbered events); ``schema`` holds
the tables, ``migrations`` the Alembic scripts that build and upgrade them."""

from taor.server.store.database import Database
from taor.server.store.runs import EventLog, RunRecord, Runs, StoredEvent
from taor.server.store.tokens import TokenInfo, Tokens, User

__all__ = [
    "Database",
    "EventLog",
    "RunRecord",
    "Runs",
    "StoredEvent",
    "TokenInfo",
    "Tokens",
    "User",
]
