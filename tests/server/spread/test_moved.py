"""A run whose worker dies, as its followers see it: ``taor.server.Client`` hands the ``moved``
notice to ``on_moved`` once, between the events it comes between, and the events go on each
once; a ``RemoteSession`` reads on through it as one session (killed, or handed back by a
worker told to stop); the live page shows one quiet line in the run's log."""

from __future__ import annotations

import asyncio
import os
import shutil
import signal
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from taor.agent.events import Event, ProcessingEnd, SessionEnd
from taor.server import Client, RunMoved

from .cluster import Cluster, eventually
from .test_workers import calls

CHROMIUM = shutil.which("chromium")
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-sync"]


def others(cluster: Cluster, holder: Any) -> list[str]:
    return [n for n, p in zip(cluster.names, cluster.workers, strict=True) if p is not holder]


async def kill_holder_mid_call(cluster: Cluster, marker: Path, run_id: str, tag: str) -> Any:
    """Once the run's tool call runs, kill its worker (-9)."""
    await eventually(lambda: tag in calls(marker))
    holder = cluster.holder(run_id)
    cluster.kill(holder)
    return holder


async def test_a_client_hears_once_that_the_run_moved_and_gets_every_event_once(
    cluster: Cluster, marker: Path
) -> None:
    async with Client(cluster.apis[1][1], cluster.token) as client:
        run = await client.create_run("count slow m1", permission_mode="bypass")
        heard: list[tuple[int, RunMoved]] = []
        seqs: list[int] = []

        async def read() -> None:
            async for event in client.events(
                run.id, on_moved=lambda n: heard.append((seqs[-1], n))
            ):
                seqs.append(event.seq)

        reading = asyncio.create_task(read())
        holder = await kill_holder_mid_call(cluster, marker, run.id, "m1")
        await reading
        assert (await client.get(run.id)).status == "finished"
        again: list[RunMoved] = []  # back after the notice: the rest, once, and no notice
        back = heard[0][0] + 1
        after = [e.seq async for e in client.events(run.id, back, on_moved=again.append)]
    assert seqs == list(range(1, len(seqs) + 1))
    [(before, notice)] = heard
    assert notice.after == before and notice.worker in others(cluster, holder), (notice, holder)
    assert after == seqs[back:] and again == []
    assert calls(marker).count("m1") == 1


@pytest.mark.parametrize("stop", ["kill", "term"])
async def test_a_remote_session_goes_on_through_a_move_as_if_nothing_happened(
    cluster: Cluster, marker: Path, stop: str
) -> None:
    tag = f"m2{stop}"
    async with Client(cluster.apis[0][1], cluster.token) as client:
        session = client.session(permission_mode="bypass")
        prompt = f"count slow {tag}" if stop == "kill" else f"count nap {tag}"
        running = asyncio.create_task(collect(session.submit(prompt)))
        await eventually(lambda: bool(session.id))
        if stop == "kill":
            await kill_holder_mid_call(cluster, marker, session.id, tag)
        else:  # scaled in: the call finishes, the run is handed back, another worker goes on
            await eventually(lambda: tag in calls(marker))
            holder = cluster.holder(session.id)
            holder.send_signal(signal.SIGTERM)
            assert await asyncio.to_thread(holder.wait, 60) == 0
        events = await running
        assert session.state == "idle"
        await session.close()
    ends = [e for e in events if isinstance(e, ProcessingEnd | SessionEnd)]
    assert [e.kind for e in ends] == ["processing_end"] and ends[0].stop_reason == "completed"
    assert calls(marker).count(tag) == 1


async def collect(events: AsyncIterator[Event]) -> list[Event]:
    return [event async for event in events]


@pytest.mark.slow
async def test_the_page_shows_that_the_run_moved_to_another_worker(
    cluster: Cluster, marker: Path, tmp_path: Path
) -> None:
    if CHROMIUM is None:
        pytest.skip("chromium is not installed (apt-get install chromium)")
    playwright = pytest.importorskip("playwright.async_api")
    url = cluster.apis[0][1]
    async with Client(url, cluster.token) as client, playwright.async_playwright() as pw:
        run = await client.create_run("count slow m3", permission_mode="bypass")
        browser = await pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            page = await browser.new_page(viewport={"width": 1200, "height": 860})
            errors: list[str] = []
            page.on("pageerror", lambda error: errors.append(str(error)))
            await page.goto(url + "/")
            await page.fill("#token", cluster.token)
            await page.click("#sign-in-form button")
            await page.wait_for_selector("#main:not([hidden])")
            await page.goto(f"{url}/runs/{run.id}")
            await page.wait_for_selector("#stream-state.live")
            holder = await kill_holder_mid_call(cluster, marker, run.id, "m3")
            await page.wait_for_selector("#status.status-finished", timeout=60_000)
            await page.wait_for_selector("#stream-state.ended", state="attached")
            shot = tmp_path / "moved.png"
            await page.screenshot(path=shot, full_page=True)
            lines = await page.locator(".note.moved").all_inner_texts()
            tools = await page.locator(".tool").count()
            await page.reload()  # read again, from the database: the line in its place
            await page.wait_for_selector("#stream-state.ended", state="attached")
            again = await page.locator(".note.moved").all_inner_texts()
            order = await page.eval_on_selector_all(
                "#timeline > [data-seq]",
                "rows => rows.map(r => [Number(r.dataset.seq), r.className])",
            )
            await page.screenshot(path=tmp_path / "moved-reloaded.png", full_page=True)
        finally:
            await browser.close()
    if os.environ.get("TAOR_WEB_SHOTS"):
        for name in ("moved", "moved-reloaded"):
            shutil.copy(
                tmp_path / f"{name}.png", Path(os.environ["TAOR_WEB_SHOTS"]) / f"{name}.png"
            )
    print(f"\nscreenshot: {shot}")
    [line] = lines
    assert line.startswith("Moved to worker ") and line.split()[-1] in others(cluster, holder)
    assert tools == 1 and errors == []
    assert again == lines
    assert [seq for seq, _ in order] == sorted(seq for seq, _ in order), order  # in its place
    assert [kind for _, kind in order].count("note muted moved") == 1, order
