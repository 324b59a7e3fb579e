"""Runs carried out by ``taor worker`` processes, queued and followed through ``taor serve
--redis`` API processes: every event once and in order on either API process, and a worker's
death costing a run no event and no tool call run twice."""

from __future__ import annotations

import asyncio
from pathlib import Path

from .cluster import Cluster, create, follow, kinds, status


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
    assert calls(marker) == ["r1"]
