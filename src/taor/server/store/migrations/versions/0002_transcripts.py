"""Runs' transcripts in the database, line by line, so that any worker can continue a run.

Revision ID: 0002
Revises: 0001
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "transcripts",
        sa.Column("run_id", sa.String(40), nullable=False),
        sa.Column("line", sa.Integer, nullable=False),
        sa.Column("text", sa.Text, nullable=False),
        sa.PrimaryKeyConstraint("run_id", "line", name="pk_transcripts"),
        sa.ForeignKeyConstraint(
            ["run_id"], ["runs.id"], name="fk_transcripts_run_id_runs", ondelete="CASCADE"
        ),
    )


def downgrade() -> None:
    op.drop_table("transcripts")
