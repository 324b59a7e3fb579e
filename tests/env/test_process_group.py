"""Process groups: liveness ignores zombies; kill_group ends every member."""

from __future__ import annotations

import asyncio
import os

from taor.env.process_group import end_groups, group_alive, kill_group, wait_exit


async def test_kill_group_ends_bash_and_its_background_children() -> None:
    proc = await asyncio.create_subprocess_exec(
        "/bin/bash",
        "-c",
        "sleep 300 & sleep 300 & wait",
        stdout=asyncio.subprocess.DEVNULL,
        start_new_session=True,
    )
    assert group_alive(proc.pid)

    await kill_group(proc)

    assert proc.returncode is not None
    assert not group_alive(proc.pid)


async def test_wait_exit_gives_up_after_the_limit() -> None:
    proc = await asyncio.create_subprocess_exec("sleep", "5", start_new_session=True)
    try:
        assert not await wait_exit(proc, 0.05)
    finally:
        await kill_group(proc)
    assert await wait_exit(proc, 1)


def test_a_group_with_no_members_is_not_alive() -> None:
    assert not group_alive(2**22 + os.getpid())


async def test_end_groups_ends_groups_known_only_by_id() -> None:
    procs = [
        await asyncio.create_subprocess_exec(
            "/bin/bash", "-c", command, stdout=asyncio.subprocess.DEVNULL, start_new_session=True
        )
        for command in ("sleep 300 & wait", "trap '' TERM; sleep 300 & wait")
    ]

    await end_groups([proc.pid for proc in procs], grace=0.2)

    for proc in procs:
        await proc.wait()
        assert not group_alive(proc.pid)


async def test_end_groups_ignores_groups_already_gone() -> None:
    await end_groups([2**22 + os.getpid()])
