"""A user's quota holds across API processes: creates sent at once to two ``taor serve
--redis`` processes admit exactly the quota's worth (each process alone would see room for
the last run). No workers: the runs stay queued, so live."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator

import pytest

from taor.testing import FakeProviderServer

from ..process import Home
from .cluster import Cluster
from .servers import RedisServer

QUOTA = 3


@pytest.fixture(scope="module")
def quota_cluster(
    tmp_path_factory: pytest.TempPathFactory,
    redis: RedisServer,
    database: str,
    model: FakeProviderServer,
) -> Iterator[Cluster]:
    made = Cluster(
        Home(tmp_path_factory.mktemp("home")),
        redis=redis,
        database=database,
        model=model,
        settings=f"max_runs_per_user = {QUOTA}\n",
    )
    try:
        made.start(apis=2, workers=0)
        yield made
    finally:
        made.stop()


async def test_creates_at_once_on_two_api_processes_admit_exactly_the_quota(
    quota_cluster: Cluster,
) -> None:
    async with quota_cluster.client(0) as first, quota_cluster.client(1) as second:
        sent = [
            (first if n % 2 else second).post("/runs", json={"prompt": f"count q{n}"})
            for n in range(16)
        ]
        answers = await asyncio.gather(*sent)
        codes = sorted(answer.status_code for answer in answers)
        assert codes == [201] * QUOTA + [429] * (16 - QUOTA), [a.text for a in answers]
        refused = next(a for a in answers if a.status_code == 429)
        assert "max_runs_per_user=3" in refused.json()["detail"]
        assert refused.headers["retry-after"] == "10"
        listed = (await first.get("/runs", params={"status": "queued"})).json()
        assert len(listed["runs"]) == QUOTA
