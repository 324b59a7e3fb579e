"""run_command with real processes: output, timeouts, cancellation, grandchildren, bounds."""

from __future__ import annotations

import asyncio
import gc
import os
import signal
import tracemalloc
from pathlib import Path

import pytest

from taor.env.base import EnvError, StreamName
from taor.env.process import clamp_timeout, run_command

from ..processes import group_running, running


async def test_stdout_and_stderr_are_kept_apart_and_combined() -> None:
    result = await run_command("echo out; echo err >&2; exit 3")

    assert result.exit_code == 3
    assert result.stdout == "out\n" and result.stderr == "err\n"
    assert sorted(result.output.splitlines()) == ["err", "out"]
    assert result.duration > 0 and not result.timed_out and not result.truncated


async def test_invalid_utf8_is_replaced_and_stdin_is_empty() -> None:
    result = await run_command(r"printf 'a\377b'; cat")

    assert result.stdout == "a\ufffdb"
    assert result.exit_code == 0


async def test_cwd_and_env_are_used(tmp_path: Path) -> None:
    result = await run_command('pwd; echo "$FOO"', cwd=tmp_path, env={"FOO": "bar"})

    assert result.stdout == f"{tmp_path}\nbar\n"


async def test_a_command_that_cannot_start_raises_env_error(tmp_path: Path) -> None:
    with pytest.raises(EnvError, match="could not be started"):
        await run_command("true", cwd=tmp_path / "missing")


def test_clamp_timeout() -> None:
    assert clamp_timeout(None) == (10.0, None)
    assert clamp_timeout(30) == (30.0, None)
    assert clamp_timeout(900) == (600.0, 900)
    with pytest.raises(EnvError, match="positive"):
        clamp_timeout(0)


async def test_timeout_keeps_partial_output_and_says_how_to_ask_for_more(tmp_path: Path) -> None:
    groups: list[int] = []
    marker = tmp_path / "slept"
    result = await run_command(
        f"echo started; sleep 30; touch {marker}", timeout=0.5, on_start=groups.append
    )

    assert result.timed_out and result.exit_code == -signal.SIGTERM
    assert group_running(groups[0]) == [] and not marker.exists()  # stopped, not waited for
    assert result.stdout == "started\n"
    assert result.output.startswith("started\n[ERROR: Command timed out after 0.5 s.")
    assert "larger `timeout`" in result.output


async def test_a_clamped_timeout_is_reported() -> None:
    result = await run_command("echo hi", timeout=5, max_timeout=1)

    assert result.timeout == 1 and result.requested_timeout == 5
    assert "a timeout of 5 s was requested; the maximum of 1 s was used" in result.output


async def test_a_group_ignoring_sigterm_is_killed_after_the_grace_period(tmp_path: Path) -> None:
    groups: list[int] = []
    marker = tmp_path / "slept"
    result = await run_command(
        f"trap '' TERM; echo x; (sleep 30; touch {marker}) & wait",
        timeout=0.3,
        on_start=groups.append,
    )

    assert result.timed_out and result.exit_code == -signal.SIGKILL
    assert group_running(groups[0]) == [] and not marker.exists()


async def test_cancellation_kills_the_group_including_background_children() -> None:
    pids: list[int] = []
    started = asyncio.Event()

    def collect(text: str, stream: StreamName) -> None:
        pids.extend(int(word) for word in text.split())
        started.set()

    task = asyncio.create_task(run_command("sleep 300 & echo $!; wait", on_output=collect))
    await asyncio.wait_for(started.wait(), 5)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task

    assert not running(pids[0])


async def test_a_grandchild_holding_the_pipes_does_not_block_and_is_killed(
    tmp_path: Path,
) -> None:
    marker = tmp_path / "slept"
    result = await run_command(f"(sleep 30; touch {marker}) & echo $!")

    assert result.exit_code == 0 and not result.timed_out
    assert not running(int(result.stdout)) and not marker.exists()  # killed, not waited for


async def test_a_background_child_with_redirected_output_is_left_running() -> None:
    result = await run_command("sleep 300 >/dev/null 2>&1 & echo $!")
    pid = int(result.stdout)
    try:
        assert running(pid)
    finally:
        os.kill(pid, signal.SIGKILL)


async def test_huge_output_keeps_head_and_tail_and_counts_the_rest() -> None:
    total, cap = 200_000_000, 1 << 20
    result = await run_command(f"yes | head -c {total}", cap=cap)

    assert result.stdout_dropped == total - 2 * cap
    assert result.output_dropped == total - 2 * cap
    assert result.stdout.startswith("y\ny\n") and result.stdout.endswith("y\ny\n")
    assert len(result.stdout) < 2 * cap + 200
    assert f"[... {total - 2 * cap} bytes of output dropped" in result.stdout
    assert result.truncated


async def test_output_too_big_for_the_buffers_is_kept_whole_in_the_output_file(
    tmp_path: Path,
) -> None:
    spill = tmp_path / "outputs" / "call_1.txt"
    expected = "".join(f"{n}\n" for n in range(1, 200_001))  # 1.3 MB, cap 64 KiB a side
    result = await run_command("seq 1 200000", cap=1 << 16, output_file=str(spill))
    assert result.output_dropped > 0 and "characters of output dropped" in result.output
    assert result.output_file == str(spill)
    assert spill.read_text() == expected
    assert spill.stat().st_mode & 0o777 == 0o600
    assert spill.parent.stat().st_mode & 0o777 == 0o700


async def test_output_that_fits_creates_no_file(tmp_path: Path) -> None:
    spill = tmp_path / "call_2.txt"
    result = await run_command("seq 1 1000", cap=1 << 16, output_file=str(spill))
    assert result.output_file is None and not spill.exists()
    assert result.output == "".join(f"{n}\n" for n in range(1, 1001))


async def test_async_callback_sees_output_in_order() -> None:
    seen: list[tuple[StreamName, str]] = []

    async def collect(text: str, stream: StreamName) -> None:
        seen.append((stream, text))

    await run_command("echo one; sleep 0.1; echo two >&2", on_output=collect)

    assert seen == [("stdout", "one\n"), ("stderr", "two\n")]


async def test_a_failing_callback_raises_after_the_command_ends() -> None:
    def boom(text: str, stream: StreamName) -> None:
        raise ValueError("callback failed")

    with pytest.raises(ValueError, match="callback failed"):
        await run_command("echo hi", on_output=boom)


async def test_a_command_that_closes_its_pipes_still_times_out(tmp_path: Path) -> None:
    groups: list[int] = []
    marker = tmp_path / "slept"
    result = await run_command(
        f"exec >/dev/null 2>&1; sleep 30; touch {marker}", timeout=0.3, on_start=groups.append
    )

    assert result.timed_out and result.exit_code == -signal.SIGTERM
    assert group_running(groups[0]) == [] and not marker.exists()


async def test_a_child_in_its_own_session_holding_the_pipes_does_not_block_or_leak() -> None:
    result = await run_command("setsid sleep 30 & echo $!")
    pid = int(result.stdout)
    try:
        assert running(pid)  # the result came while the child still held the pipes
        assert result.exit_code == 0 and not result.timed_out
        gc.collect()  # an unclosed transport would warn here (warnings are errors)
    finally:
        os.kill(pid, signal.SIGKILL)


async def test_memory_stays_flat_while_a_command_prints_a_lot() -> None:
    cap = 1 << 18
    tracemalloc.start()
    try:
        result = await run_command("yes | head -c 100000000", cap=cap)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()

    assert result.stdout_dropped == 100_000_000 - 2 * cap
    assert peak < 24 * cap  # a few buffers of the cap, not the 100 MB printed


async def test_on_start_receives_the_process_group_id() -> None:
    started: list[int] = []

    result = await run_command(
        "read -r _ _ _ _ pgid _ < /proc/$$/stat; echo $pgid", on_start=started.append
    )

    assert [int(result.stdout)] == started
