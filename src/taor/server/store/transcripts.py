"""``Transcripts``: runs' transcripts kept in the database line by line (each line a JSON
record of the run's JSONL transcript), appended as a run goes and read back whole."""

from __future__ import annotations

from collections.abc import Sequence

from sqlalchemy import func, select

from taor.server.store.database import Database, insert_new
from taor.server.store.schema import transcripts


class Transcripts:
    def __init__(self, database: Database) -> None:
        self._engine = database.engine

    async def append(self, run_id: str, first: int, lines: Sequence[str]) -> None:
        """Keep ``lines`` as the run's lines ``first``, ``first + 1``, ... (0 is the first);
        lines kept before are left as they are."""
        if not lines:
            return
        rows = [{"run_id": run_id, "line": first + n, "text": text} for n, text in enumerate(lines)]
        await insert_new(self._engine, transcripts, rows)

    async def count(self, run_id: str) -> int:
        query = select(func.count()).where(transcripts.c.run_id == run_id)
        async with self._engine.connect() as db:
            return int(await db.scalar(query) or 0)

    async def read(self, run_id: str) -> list[str]:
        query = (
            select(transcripts.c.text)
            .where(transcripts.c.run_id == run_id)
            .order_by(transcripts.c.line)
        )
        async with self._engine.connect() as db:
            return list((await db.execute(query)).scalars())
