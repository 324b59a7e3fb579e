"""Alembic's environment for the service's database: migrations always run on the connection
``taor.server.store.database`` hands over (``config.attributes["connection"]``)."""

from __future__ import annotations

from alembic import context

from taor.server.store.schema import metadata

connection = context.config.attributes["connection"]
context.configure(
    connection=connection,
    target_metadata=metadata,
    render_as_batch=True,  # SQLite alters a table by copying it
)
with context.begin_transaction():
    context.run_migrations()
