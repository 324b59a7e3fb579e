"""The service's tables, one schema for every database (SQLite now, PostgreSQL too).

- ``users``: who may call the service; an admin sees and commands every run.
- ``tokens``: bearer tokens (``taor_<key>_<secret>``), found by their public ``key`` and
  checked against the SHA-256 of the whole token (256 random bits: a fast hash is enough, and
  the database never holds a token that works); revoked ones are kept, marked, and their
  name can be given to a new token.
- ``runs``: one agent run: who started it, its request (prompt, model, workspace, options), its
  state and what it came to (usage, cost, stop reason, error).
- ``events``: every event a run emitted, by its sequence number in the run, as the JSON of the
  library's codec: what the SSE stream replays from a ``Last-Event-ID``.
- ``transcripts``: a run's transcript (its JSONL file), line by line, written as the run goes
  by a worker of a service spread over machines, so that another can continue the run.

Changing a table means a new migration in ``migrations/versions`` (a test compares the
migrated database with this module).
"""

from __future__ import annotations

from sqlalchemy import (
    JSON,
    Boolean,
    Column,
    DateTime,
    Float,
    ForeignKey,
    Index,
    Integer,
    MetaData,
    String,
    Table,
    Text,
    text,
)

metadata = MetaData(
    naming_convention={
        "ix": "ix_%(column_0_label)s",
        "uq": "uq_%(table_name)s_%(column_0_name)s",
        "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
        "pk": "pk_%(table_name)s",
    }
)

users = Table(
    "users",
    metadata,
    Column("id", Integer, primary_key=True),
    Column("name", String(100), nullable=False, unique=True),
    Column("admin", Boolean, nullable=False, default=False),
    Column("created_at", DateTime(timezone=True), nullable=False),
)

tokens = Table(
    "tokens",
    metadata,
    Column("id", Integer, primary_key=True),
    Column("name", String(100), nullable=False),
    Column("user_id", ForeignKey("users.id", ondelete="CASCADE"), nullable=False, index=True),
    Column("key", String(16), nullable=False, unique=True),
    Column("digest", String(64), nullable=False),
    Column("created_at", DateTime(timezone=True), nullable=False),
    Column("last_used_at", DateTime(timezone=True)),
    Column("revoked_at", DateTime(timezone=True)),
    # One token in use per name; revoked ones keep theirs, and the name can be given again.
    Index(
        "uq_tokens_name_in_use",
        "name",
        unique=True,
        sqlite_where=text("revoked_at IS NULL"),
        postgresql_where=text("revoked_at IS NULL"),
    ),
)

runs = Table(
    "runs",
    metadata,
    Column("id", String(40), primary_key=True),
    Column("user_id", ForeignKey("users.id", ondelete="CASCADE"), nullable=False, index=True),
    Column("status", String(30), nullable=False, index=True),
    Column("prompt", Text, nullable=False),
    Column("model", String(200), nullable=False),
    Column("workspace", Text, nullable=False),
    Column("options", JSON, nullable=False),
    Column("metadata", JSON, nullable=False),
    Column("created_at", DateTime(timezone=True), nullable=False, index=True),
    Column("started_at", DateTime(timezone=True)),
    Column("finished_at", DateTime(timezone=True)),
    Column("usage", JSON),
    Column("cost", Float),
    Column("stop_reason", String(40)),
    Column("error", Text),
)

events = Table(
    "events",
    metadata,
    Column("run_id", ForeignKey("runs.id", ondelete="CASCADE"), primary_key=True),
    Column("seq", Integer, primary_key=True),
    Column("kind", String(40), nullable=False),
    Column("data", Text, nullable=False),
)

transcripts = Table(
    "transcripts",
    metadata,
    Column("run_id", ForeignKey("runs.id", ondelete="CASCADE"), primary_key=True),
    Column("line", Integer, primary_key=True),
    Column("text", Text, nullable=False),
)
