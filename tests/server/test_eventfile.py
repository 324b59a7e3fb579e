"""A run's events are in its event file before anyone is sent them; a service that stopped
before writing them to its database (killed) finds them there on its next start and keeps
them, in order, once each; a line cut short is skipped. A run that ends normally leaves no
file behind."""

from __future__ import annotations

import json
from pathlib import Path

from taor.server.config import ServiceConfig
from taor.server.eventfile import EventFiles
from taor.server.service import Service
from taor.server.store import StoredEvent
from taor.testing import text

from .conftest import Served
from .test_runs_api import create, sse, until


def event(n: int) -> StoredEvent:
    return StoredEvent(seq=n, kind="assistant_text_delta", data=f'{{"seq":{n},"delta":"é"}}')


async def test_events_only_in_the_file_are_kept_on_the_next_start(tmp_path: Path) -> None:
    config = ServiceConfig(data_dir=tmp_path, sandbox=False)
    service = await Service.open(config)
    try:
        owner = await service.tokens.authenticate(service.first_token or "")
        assert owner is not None
        run = await service.runs.create(
            owner, prompt="p", model="m", workspace="", options={}, metadata={}
        )
        await service.runs.change(run.id, status="running")
        await service.events.write(run.id, [event(1), event(2)])  # the database had these
        for n in range(1, 6):  # the file has every one
            service.files.append(run.id, event(n))
    finally:
        await service.close()  # no worker held the run, nothing waited to be written
    with service.files.path(run.id).open("ab") as cut:
        cut.write(b'6\tassistant_text_delta\t{"se')  # a line cut short
    again = await Service.open(config)
    try:
        assert await again.events.since(run.id) == [event(n) for n in range(1, 6)]
        found = await again.runs.get(run.id, owner)
        assert found is not None and found.status == "interrupted"
        assert not again.files.path(run.id).exists()  # all in the database: let go
    finally:
        await again.close()


async def test_a_run_that_ends_leaves_no_event_file(served: Served) -> None:
    served.model.push(text("Done."))
    async with served.client(served.admin) as client:
        run = await create(client)
        await until(client, run["id"], "finished")
        assert len(await sse(client, run["id"])) > 3
    assert served.service.files.runs() == []


def test_a_file_reads_back_what_was_appended(tmp_path: Path) -> None:
    files = EventFiles(tmp_path / "events")
    files.append("run_a", event(1))
    files.append("run_a", event(2))
    files.done("run_a")
    files.append("run_a", event(3))  # opened again: appended after
    tricky = StoredEvent(seq=4, kind="tool_call_output_delta", data=json.dumps({"d": "\t\n\u2028"}))
    files.append("run_a", tricky)
    assert files.read("run_a") == [event(1), event(2), event(3), tricky]
    assert files.path("run_a").stat().st_mode & 0o077 == 0  # the owner's only
    files.remove("run_a")
    assert files.read("run_a") == [] and not files.path("run_a").exists()


def test_a_damaged_line_is_skipped_and_the_others_read(tmp_path: Path) -> None:
    files = EventFiles(tmp_path / "events")
    files.append("run_a", event(1))
    files.done("run_a")
    with files.path("run_a").open("ab") as damaged:
        damaged.write(b"\xff\xfe not an event\n7\n")
    files.append("run_a", event(2))
    with files.path("run_a").open("ab") as torn:
        torn.write(b"3\twarn")  # cut short: no newline
    assert files.read("run_a") == [event(1), event(2)]
