"""``Mirror``: a run's transcript into the database as it grows, and back onto a machine that
lacks it."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from taor.server.spread.transcripts import Mirror
from taor.server.store import Database, Runs
from taor.server.store.tokens import Tokens
from taor.server.store.transcripts import Transcripts


@pytest.fixture
async def store(tmp_path: Path) -> AsyncIterator[tuple[Transcripts, str]]:
    database = await Database.open(f"sqlite:///{tmp_path / 'taor.db'}")
    yield Transcripts(database), await _run(database, Tokens(database))
    await database.close()


async def _run(database: Database, tokens: Tokens) -> str:
    token = await tokens.create("bob")
    user = await tokens.authenticate(token)
    assert user is not None
    record = await Runs(database).create(
        user, prompt="p", model="m", workspace="/w", options={}, metadata={}
    )
    return record.id


async def test_whole_lines_go_into_the_database_as_the_file_grows(
    store: tuple[Transcripts, str], tmp_path: Path
) -> None:
    transcripts, run_id = store
    file = tmp_path / "t.jsonl"
    mirror = Mirror(transcripts)
    await mirror.restore(run_id, file)
    file.write_text('{"a":1}\n{"b":')  # the second line not ended yet
    await mirror.sync(run_id, file)
    assert await transcripts.read(run_id) == ['{"a":1}']
    with file.open("a") as handle:
        handle.write('2}\n{"c":3}\n')
    await mirror.sync(run_id, file)
    await mirror.sync(run_id, file)  # nothing new: nothing twice
    assert await transcripts.read(run_id) == ['{"a":1}', '{"b":2}', '{"c":3}']


async def test_a_machine_without_the_file_gets_it_from_the_database_and_goes_on(
    store: tuple[Transcripts, str], tmp_path: Path
) -> None:
    transcripts, run_id = store
    await transcripts.append(run_id, 0, ['{"a":1}', '{"b":2}'])
    file = tmp_path / "elsewhere" / "t.jsonl"
    mirror = Mirror(transcripts)
    await mirror.restore(run_id, file)
    assert file.read_text() == '{"a":1}\n{"b":2}\n'
    assert file.stat().st_mode & 0o777 == 0o600
    with file.open("a") as handle:
        handle.write('{"c":3}\n')
    await mirror.sync(run_id, file)
    assert await transcripts.read(run_id) == ['{"a":1}', '{"b":2}', '{"c":3}']


async def test_a_file_ahead_of_the_database_is_kept_and_the_rest_copied(
    store: tuple[Transcripts, str], tmp_path: Path
) -> None:
    transcripts, run_id = store
    await transcripts.append(run_id, 0, ['{"a":1}'])
    file = tmp_path / "t.jsonl"
    file.write_text('{"a":1}\n{"b":2}\n')
    mirror = Mirror(transcripts)
    await mirror.restore(run_id, file)
    assert file.read_text() == '{"a":1}\n{"b":2}\n'
    await mirror.sync(run_id, file)
    assert await transcripts.read(run_id) == ['{"a":1}', '{"b":2}']
