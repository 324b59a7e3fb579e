"""The first schema: users, tokens, runs and their events.

Revision ID: 0001
Revises:
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None


def upgrade() -> None:
    moment = sa.DateTime(timezone=True)
    op.create_table(
        "users",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("name", sa.String(100), nullable=False),
        sa.Column("admin", sa.Boolean, nullable=False),
        sa.Column("created_at", moment, nullable=False),
        sa.PrimaryKeyConstraint("id", name="pk_users"),
        sa.UniqueConstraint("name", name="uq_users_name"),
    )
    op.create_table(
        "tokens",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("name", sa.String(100), nullable=False),
        sa.Column("user_id", sa.Integer, nullable=False),
        sa.Column("key", sa.String(16), nullable=False),
        sa.Column("digest", sa.String(64), nullable=False),
        sa.Column("created_at", moment, nullable=False),
        sa.Column("last_used_at", moment),
        sa.Column("revoked_at", moment),
        sa.PrimaryKeyConstraint("id", name="pk_tokens"),
        sa.UniqueConstraint("key", name="uq_tokens_key"),
        sa.ForeignKeyConstraint(
            ["user_id"], ["users.id"], name="fk_tokens_user_id_users", ondelete="CASCADE"
        ),
    )
    op.create_index("ix_tokens_user_id", "tokens", ["user_id"])
    op.create_index(
        "uq_tokens_name_in_use",
        "tokens",
        ["name"],
        unique=True,
        sqlite_where=sa.text("revoked_at IS NULL"),
        postgresql_where=sa.text("revoked_at IS NULL"),
    )
    op.create_table(
        "runs",
        sa.Column("id", sa.String(40), nullable=False),
        sa.Column("user_id", sa.Integer, nullable=False),
        sa.Column("status", sa.String(30), nullable=False),
        sa.Column("prompt", sa.Text, nullable=False),
        sa.Column("model", sa.String(200), nullable=False),
        sa.Column("workspace", sa.Text, nullable=False),
        sa.Column("options", sa.JSON, nullable=False),
        sa.Column("metadata", sa.JSON, nullable=False),
        sa.Column("created_at", moment, nullable=False),
        sa.Column("started_at", moment),
        sa.Column("finished_at", moment),
        sa.Column("usage", sa.JSON),
        sa.Column("cost", sa.Float),
        sa.Column("stop_reason", sa.String(40)),
        sa.Column("error", sa.Text),
        sa.PrimaryKeyConstraint("id", name="pk_runs"),
        sa.ForeignKeyConstraint(
            ["user_id"], ["users.id"], name="fk_runs_user_id_users", ondelete="CASCADE"
        ),
    )
    op.create_index("ix_runs_user_id", "runs", ["user_id"])
    op.create_index("ix_runs_status", "runs", ["status"])
    op.create_index("ix_runs_created_at", "runs", ["created_at"])
    op.create_table(
        "events",
        sa.Column("run_id", sa.String(40), nullable=False),
        sa.Column("seq", sa.Integer, nullable=False),
        sa.Column("kind", sa.String(40), nullable=False),
        sa.Column("data", sa.Text, nullable=False),
        sa.PrimaryKeyConstraint("run_id", "seq", name="pk_events"),
        sa.ForeignKeyConstraint(
            ["run_id"], ["runs.id"], name="fk_events_run_id_runs", ondelete="CASCADE"
        ),
    )


def downgrade() -> None:
    for table in ("events", "runs", "tokens", "users"):
        op.drop_table(table)
