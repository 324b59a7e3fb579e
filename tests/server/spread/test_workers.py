"""Runs carried out by ``taor worker`` processes, queued and followed through ``taor serve
--redis`` API processes: every event once and in order on either API process, and a worker's
death costing a run no event and no tool call run twice."""

from __future__ import annotations

import asyncio
import json
import signal
import subprocess
from pathlib import Path
from typing import Any

import httpx2
import pytest

from ..process import Home, run
from .cluster import (
    Cluster,
    asked,
    create,
    data_of,
    eventually,
    follow,
    follow_from,
    kinds,
    status,
)
from .servers import PostgresServer


def calls(marker: Path) -> list[str]:
    return marker.read_text().split() if marker.exists() else []


async def test_a_run_is_carried_out_by_a_worker_and_followed_on_either_api(
    cluster: Cluster, marker: Path
) -> None:
    async with cluster.client(0) as first, cluster.client(1) as second:
        run_id = await create(first, "count r1", permission_mode="bypass")
        one, two = await asyncio.gather(follow(first, run_id), follow(second, run_id))
        done = await status(second, run_id)
    assert done["status"] == "finished", done
    assert one == two
    assert [seq for seq, _, _ in one] == list(range(1, len(one) + 1))
    assert kinds(one)[0] == "session_start" and kinds(one)[-1] == "session_end"
    assert calls(marker).count("r1") == 1
    kept = int(cluster.redis.command("TTL", f"taor:run:{run_id}:events").strip(":\r\n"))
    assert 0 < kept <= 600  # the stream is let go after stream_retention seconds


async def test_a_worker_killed_mid_tool_call_the_run_moves_and_the_call_is_not_run_again(
    cluster: Cluster, marker: Path
) -> None:
    async with cluster.client(0) as first, cluster.client(1) as second:
        run_id = await create(first, "count slow k1", permission_mode="bypass")
        notices: list[tuple[int, dict[str, Any]]] = []
        watching = asyncio.create_task(follow(second, run_id, notices))
        await eventually(lambda: "k1" in calls(marker))  # the call runs (and sleeps), and
        holder = cluster.holder(run_id)
        cluster.kill(holder)  # its worker dies at once: the call was on record before it ran
        (cluster.data / "runs" / f"{run_id}.jsonl").unlink()  # the next machine has none
        seen = await watching
        done = await status(first, run_id)
        await no_repeat_after_the_notice(first, run_id, seen, notices)
    assert done["status"] == "finished", done
    assert [seq for seq, _, _ in seen] == list(range(1, len(seen) + 1))  # each once, in order
    moved_once(cluster, notices, away_from=holder)
    assert calls(marker).count("k1") == 1  # run once, never again
    requests = [q for q in cluster.model.requests if "slow k1" in json.dumps(q.json)]
    told = [result for request in requests for result in request.tool_results]
    assert told and "process running this session ended" in told[-1], told  # the model was told
    assert len(data_of(seen, "tool_call_start")) == 1
    (ended,) = data_of(seen, "tool_call_end")  # by the worker that took it over: a page's
    assert ended["is_error"] and "interrupt" in ended["output"].lower()  # row stops running
    assert kinds(seen)[-1] == "session_end"


async def test_a_worker_killed_while_a_person_is_asked_the_answer_sent_after_applies(
    cluster: Cluster, marker: Path
) -> None:
    async with cluster.client(0) as first, cluster.client(1) as second:
        run_id = await create(first, "count p1")
        request_id = await asked(second, run_id)
        [shown] = (await status(first, run_id))["pending"]  # on the other API process too
        assert shown["request_id"] == request_id and "p1" in shown["command"]
        cluster.kill(cluster.holder(run_id))
        watching = asyncio.create_task(follow(second, run_id))
        answer = await second.post(
            f"/runs/{run_id}/permissions/{request_id}", json={"decision": "allow"}
        )
        assert answer.status_code == 202, answer.text
        seen = await watching
        assert (await status(first, run_id))["status"] == "finished"
    assert calls(marker).count("p1") == 1  # allowed after the move, run once
    assert [seq for seq, _, _ in seen] == list(range(1, len(seen) + 1))


@pytest.mark.slow
async def test_50_concurrent_runs_over_2_workers_every_event_once_in_order(
    cluster: Cluster, marker: Path
) -> None:
    async with cluster.client(0) as first, cluster.client(1) as second:
        apis = [first, second]
        ids = await asyncio.gather(
            *(create(apis[n % 2], f"count c{n}", permission_mode="bypass") for n in range(50))
        )
        streams = await asyncio.gather(
            *(follow(apis[(n + 1) % 2], run_id) for n, run_id in enumerate(ids))
        )
    async with cluster.client(0) as fresh:  # (the others' idle connections may be closed)
        states = [await status(fresh, run_id) for run_id in ids]
    assert [state["status"] for state in states] == ["finished"] * 50
    for seen in streams:
        assert [seq for seq, _, _ in seen] == list(range(1, len(seen) + 1))
        assert kinds(seen)[-1] == "session_end"
    done = calls(marker)
    assert all(done.count(f"c{n}") == 1 for n in range(50))


async def test_sigterm_on_a_worker_hands_its_run_to_another_nothing_repeated(
    cluster: Cluster, marker: Path
) -> None:
    async with cluster.client(0) as first, cluster.client(1) as second:
        run_id = await create(first, "count nap t1", permission_mode="bypass")
        notices: list[tuple[int, dict[str, Any]]] = []
        watching = asyncio.create_task(follow(second, run_id, notices))
        await eventually(lambda: "t1" in calls(marker))
        holder = cluster.holder(run_id)
        holder.send_signal(signal.SIGTERM)
        assert holder.wait(timeout=60) == 0
        assert "t1-done" in calls(marker)  # the call running at the SIGTERM finished first
        seen = await watching
        assert (await status(first, run_id))["status"] == "finished"
        await no_repeat_after_the_notice(first, run_id, seen, notices)
    assert calls(marker).count("t1") == 1
    moved_once(cluster, notices, away_from=holder)
    (ended,) = data_of(seen, "tool_call_end")
    assert not ended["is_error"], ended  # its own result, not "interrupted"
    assert [seq for seq, _, _ in seen] == list(range(1, len(seen) + 1))
    assert kinds(seen).count("session_start") == 2  # a session here, then one on the other


async def test_redis_restarted_mid_run_and_connections_killed_nothing_lost(
    cluster: Cluster, marker: Path
) -> None:
    async with cluster.client(0) as first, cluster.client(1) as second:
        run_id = await create(first, "count r2")
        request_id = await asked(second, run_id)
        watching = asyncio.create_task(follow(second, run_id))
        cluster.redis.restart()  # (AOF on: what was written is read back)
        answer = await first.post(
            f"/runs/{run_id}/permissions/{request_id}", json={"decision": "allow"}
        )
        assert answer.status_code == 202, answer.text
        cluster.redis.command("CLIENT", "KILL", "TYPE", "normal")  # every connection dropped
        seen = await watching
        assert (await status(first, run_id))["status"] == "finished"
        again = await follow(first, run_id)  # from the start, on the other API process
    assert calls(marker).count("r2") == 1
    assert [seq for seq, _, _ in seen] == list(range(1, len(seen) + 1))
    assert again == seen


async def test_sigterm_while_redis_is_down_waits_and_a_second_one_stops_at_once(
    cluster: Cluster,
) -> None:
    """The first SIGTERM waits to hand back to Redis and says so; a second stops the worker
    (exit 1) within a few seconds: nothing it holds is lost, its runs move as after a crash."""
    worker = cluster.start_worker()
    log = cluster.home.root / f"worker-{len(cluster.workers) - 1}.log"
    cluster.redis.stop()
    try:
        worker.send_signal(signal.SIGTERM)
        await eventually(lambda: "stopping:" in log.read_text())
        await asyncio.sleep(1)
        assert worker.poll() is None  # it waits for Redis (which has its queue)
        worker.send_signal(signal.SIGTERM)
        assert await asyncio.to_thread(worker.wait, 20) == 1
        assert "stopping at once" in log.read_text() and "Traceback" not in log.read_text()
    finally:
        cluster.redis.start()
    cluster.ensure(workers=2)


async def test_postgresql_down_new_runs_are_503_a_running_run_goes_on_and_is_written_later(
    cluster: Cluster, marker: Path, postgres_server: PostgresServer
) -> None:
    async with cluster.client(0) as first, cluster.client(1) as second:
        run_id = await create(first, "count nap twice d1", permission_mode="bypass")
        await eventually(lambda: "d1" in calls(marker))
        postgres_server.stop()
        try:
            refused = await second.post("/runs", json={"prompt": "count d2"})
            assert refused.status_code == 503, refused.text
            assert "database cannot be reached" in refused.json()["detail"]
            await eventually(lambda: told(cluster, "nap twice d1"))  # the run went on, and
            await eventually(lambda: "again-d1" in calls(marker))  # ran a call not on record
        finally:
            postgres_server.start()
        seen = await follow(second, run_id)
        assert (await status(first, run_id))["status"] == "finished"
    assert [seq for seq, _, _ in seen] == list(range(1, len(seen) + 1))
    assert kinds(seen)[-1] == "session_end"


def moved_once(
    cluster: Cluster,
    notices: list[tuple[int, dict[str, Any]]],
    *,
    away_from: subprocess.Popen[str],
) -> None:
    """The follower heard once that the run moved, right after the event the notice names, to
    a worker other than ``away_from``."""
    [(before, notice)] = notices
    assert notice["kind"] == "moved" and notice["after"] == before > 0, notices
    others = [n for n, p in zip(cluster.names, cluster.workers, strict=True) if p is not away_from]
    assert notice["worker"] in others, (notice, cluster.names)


async def no_repeat_after_the_notice(
    http: httpx2.AsyncClient,
    run_id: str,
    seen: list[tuple[int, str, str]],
    notices: list[tuple[int, dict[str, Any]]],
) -> None:
    """Read again once the run has ended (its events from the database): from the start, or
    from the event the notice follows, the notice comes in its place, once; from the event
    after it (a client that saw it), the rest and no notice."""
    [(before, _)] = notices
    for last, told in ((0, notices), (before, notices), (before + 1, [])):
        again: list[tuple[int, dict[str, Any]]] = []
        resumed = await follow_from(http, run_id, last, again)
        assert resumed == [event for event in seen if event[0] > last] and again == told


def told(cluster: Cluster, prompt: str) -> bool:
    """Whether the model was sent a tool's result in the run of ``prompt``."""
    return any(
        prompt in json.dumps(q.json) and q.tool_results for q in list(cluster.model.requests)
    )


async def test_taor_workers_lists_the_live_workers_and_their_runs(
    cluster: Cluster, marker: Path
) -> None:
    async with cluster.client(0) as first:
        run_id = await create(first, "count nap w1", permission_mode="bypass")
        await eventually(lambda: "w1" in calls(marker))
        listed = await asyncio.to_thread(run, cluster.home, "workers")
        await follow(first, run_id)
    assert listed.returncode == 0, listed.stderr
    lines = listed.stdout.splitlines()
    live = [
        name for name, p in zip(cluster.names, cluster.workers, strict=True) if p.poll() is None
    ]
    assert sorted(line.split("\t")[0] for line in lines) == sorted(live)
    assert [line for line in lines if run_id in line]


def test_a_worker_refuses_to_start_without_redis_or_a_shared_folder_it_can_write(
    tmp_path: Path,
) -> None:
    home = Home(tmp_path)
    no_redis = run(home, "worker")
    assert no_redis.returncode == 2 and "needs Redis: --redis" in no_redis.stderr
    unwritable = run(home, "worker", "--redis", "redis://127.0.0.1:1/0", "--data-dir", "/proc/x")
    assert unwritable.returncode == 2, unwritable.stderr
    assert "/proc/x" in unwritable.stderr and "Traceback" not in unwritable.stderr
