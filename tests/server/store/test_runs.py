"""Runs as the service keeps them: each user sees only their own (an admin every one), pages
newest first, and the events of a run come back in order from any number on, each kept once."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from taor.server.store import Database, EventLog, Runs, StoredEvent, Tokens, User


@pytest.fixture
async def database(tmp_path: Path) -> AsyncIterator[Database]:
    database = await Database.open(f"sqlite:///{tmp_path / 'taor.db'}")
    yield database
    await database.close()


async def user(database: Database, name: str, *, admin: bool = False) -> User:
    tokens = Tokens(database)
    found = await tokens.authenticate(await tokens.create(name, admin=admin))
    assert found is not None
    return found


async def start(runs: Runs, owner: User, prompt: str = "fix it") -> str:
    run = await runs.create(
        owner, prompt=prompt, model="local", workspace="/w", options={"max_turns": 3}, metadata={}
    )
    assert run.status == "queued" and run.user == owner.name and run.options == {"max_turns": 3}
    return run.id


async def test_a_user_sees_only_their_runs_and_an_admin_sees_all(database: Database) -> None:
    runs = Runs(database)
    ann, bob, boss = (
        await user(database, "ann"),
        await user(database, "bob"),
        await user(database, "boss", admin=True),
    )
    mine = await start(runs, ann)
    theirs = await start(runs, bob)
    assert await runs.get(mine, ann) is not None
    assert await runs.get(theirs, ann) is None  # another user's run is not there for ann
    assert {r.id for r in await runs.page(ann)} == {mine}
    assert {r.id for r in await runs.page(boss)} == {mine, theirs}
    assert [r.id for r in await runs.page(boss, owner="bob")] == [theirs]
    assert [r.id for r in await runs.page(ann, owner="bob")] == []


async def test_pages_run_newest_first_and_filter_by_status(database: Database) -> None:
    runs = Runs(database)
    ann = await user(database, "ann")
    ids = [await start(runs, ann, f"task {i}") for i in range(5)]
    assert ids == sorted(ids)  # ids sort by creation
    first = await runs.page(ann, limit=2)
    assert [r.id for r in first] == [ids[4], ids[3]]
    second = await runs.page(ann, limit=2, after=first[-1].id)
    assert [r.id for r in second] == [ids[2], ids[1]]
    await runs.change(ids[0], status="finished", cost=0.25, usage={"input_tokens": 10})
    [done] = await runs.page(ann, status="finished")
    assert done.id == ids[0] and done.cost == 0.25 and done.usage == {"input_tokens": 10}
    assert await runs.in_states(["queued"]) == ids[1:]


async def test_events_come_back_in_order_from_any_number_each_kept_once(
    database: Database,
) -> None:
    runs, log = Runs(database), EventLog(database)
    run = await start(runs, await user(database, "ann"))
    batch = [
        StoredEvent(seq=n, kind="assistant_text_delta", data=f'{{"n":{n}}}') for n in range(1, 6)
    ]
    await log.write(run, batch[:3])
    await log.write(run, batch[1:])  # 2 and 3 again, after a failed flush: kept once
    assert [e.seq for e in await log.since(run)] == [1, 2, 3, 4, 5]
    assert [e.data for e in await log.since(run, after=3)] == ['{"n":4}', '{"n":5}']
    assert [e.seq for e in await log.since(run, after=1, limit=2)] == [2, 3]
    assert await log.last(run) == 5
    await runs.delete(run)
    assert await log.since(run) == [] and await log.last(run) == 0


async def test_events_of_a_run_deleted_meanwhile_do_not_hold_up_the_others(
    database: Database,
) -> None:
    runs, log = Runs(database), EventLog(database)
    ann = await user(database, "ann")
    kept, gone = await start(runs, ann), await start(runs, ann)
    await runs.delete(gone)
    event = StoredEvent(seq=1, kind="assistant_text_delta", data="{}")
    await log.write_all({gone: [event], kept: [event]})  # one batch, as the writer sends them
    assert [e.seq for e in await log.since(kept)] == [1]
    assert await log.since(gone) == []
