"""The service's database: ``Database`` (open, migrate, close) and ``Tokens`` (users and their
bearer tokens); ``schema`` holds the tables, ``migrations`` the Alembic scripts that build and
upgrade them."""

from taor.server.store.database import Database
from taor.server.store.tokens import TokenInfo, Tokens, User

__all__ = ["Database", "TokenInfo", "Tokens", "User"]
