"""Overhead of the built-in tools over the bare operation they wrap.

    python benchmarks/tools_overhead.py            # 200 shell calls, 20 grep reps
    python benchmarks/tools_overhead.py --quick    # smoke run: 30 shell calls, 3 grep reps
    python benchmarks/tools_overhead.py --files 4000 --reps 40

- shell: the ``shell`` tool on ``LocalEnvironment`` running ``true``, against a bare
  ``asyncio.create_subprocess_exec("/bin/bash", "-c", "true")`` with piped output (the tool runs
  the same bash); median wall time per call, calls interleaved. Target: <= 1.5x.
- grep: the ``grep`` tool (content mode, and files_with_matches) over a generated tree, against
  the same ``rg`` command line run alone as a subprocess with its output read. Target: <= 1.2x.
- read_file: the ``read_file`` tool on a 100,000-line file (the default first 2000 lines, and
  the whole file), when ``taor.tools.builtin.read`` exists. No target is set for it.
- truncation: ``truncate`` of 10 MB of shell output, as one line and as 10-character lines.
  Target: well under 50 ms.

Ratios are medians of the ratios of neighbouring calls (tool, then bare): a change of load
during the run moves both sides of each ratio.

It ends with ``RESULT <name>=<value> target=<value>`` lines (ratios, or milliseconds).
"""

from __future__ import annotations

import argparse
import asyncio
import importlib.util
import os
import shlex
import statistics
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from taor.env.local import LocalEnvironment
from taor.tools.base import ToolContext
from taor.tools.builtin.search import GrepTool
from taor.tools.builtin.shell import SHELL_LIMITS, ShellTool
from taor.tools.ripgrep import RgQuery, find_rg, rg_argv
from taor.tools.truncation import truncate

Timed = Callable[[], Awaitable[Any]]


async def median_ms(fn: Timed, reps: int) -> float:
    samples = []
    for _ in range(reps):
        t0 = time.perf_counter()
        await fn()
        samples.append(time.perf_counter() - t0)
    return statistics.median(samples) * 1000


async def interleaved(a: Timed, b: Timed, reps: int) -> tuple[float, float, float]:
    """Median ms of ``a`` and of ``b``, run alternately (after one warm-up each), and the median
    of the ratios of each pair of neighbouring calls (steadier when the machine's load drifts)."""
    await a()
    await b()
    times: tuple[list[float], list[float]] = ([], [])
    for _ in range(reps):
        for fn, samples in zip((a, b), times, strict=True):
            t0 = time.perf_counter()
            await fn()
            samples.append(time.perf_counter() - t0)
    ratio = statistics.median(x / y for x, y in zip(*times, strict=True))
    return statistics.median(times[0]) * 1000, statistics.median(times[1]) * 1000, ratio


async def bare(argv: list[str], cwd: str) -> bytes:
    proc = await asyncio.create_subprocess_exec(
        *argv,
        cwd=cwd,
        stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
        start_new_session=True,
    )
    out, _ = await proc.communicate()
    return out


async def bench_shell(root: str, reps: int) -> list[str]:
    env, tool = LocalEnvironment(root), ShellTool()
    context = ToolContext(environment=env)

    async def tool_call() -> None:
        out = await tool.execute({"command": "true"}, context)
        assert out.text.startswith("Exit code: 0"), out.text

    tool_ms, bare_ms, ratio = await interleaved(
        tool_call, lambda: bare(["/bin/bash", "-c", "true"], root), reps
    )
    print(f"shell `true`: tool {tool_ms:.2f} ms, bare bash {bare_ms:.2f} ms, ratio {ratio:.2f}")
    return [f"RESULT shell_true_vs_bare={ratio:.2f} target=1.5"]


def make_tree(root: Path, files: int, lines: int) -> None:
    """``files`` files of ``lines`` lines in nested directories; 1 line in 50 matches."""
    for i in range(files):
        path = root / f"pkg{i % 20}" / f"mod{i % 7}" / f"file{i}.py"
        path.parent.mkdir(parents=True, exist_ok=True)
        body = [
            f"def handler_{j}(x): return needle_{j}(x)" if j % 50 == 0 else f"value_{j} = {i * j}"
            for j in range(lines)
        ]
        path.write_text("\n".join(body) + "\n")
    (root / ".gitignore").write_text("*.log\n")


async def bench_grep(root: str, reps: int) -> list[str]:
    rg = find_rg()
    if rg is None:
        print("grep: skipped (rg not installed: pip install ripgrep)")
        return []
    env, tool = LocalEnvironment(root), GrepTool()
    context = ToolContext(environment=env)
    results = []
    for mode, counts in (("content", False), ("files_with_matches", True)):
        argv = rg_argv(rg, RgQuery(pattern="needle_[0-9]+", path=".", counts=counts))

        async def tool_call(mode: str = mode) -> None:
            args = {"pattern": "needle_[0-9]+", "output_mode": mode}
            out = await tool.execute(args, context)
            assert not out.is_error and out.metadata["engine"] == "ripgrep", out.text

        tool_ms, rg_ms, ratio = await interleaved(tool_call, lambda a=argv: bare(a, root), reps)
        print(f"grep {mode}: tool {tool_ms:.1f} ms, rg alone {rg_ms:.1f} ms, ratio {ratio:.2f}")
        results.append(f"RESULT grep_{mode}_vs_rg={ratio:.2f} target=1.2")
    print(f"  (rg command: {shlex.join(argv)})")
    return results


async def bench_read_file(root: str, reps: int) -> list[str]:
    if importlib.util.find_spec("taor.tools.builtin.read") is None:
        print("read_file: skipped (taor.tools.builtin.read does not exist yet)")
        return []
    from taor.tools.builtin.read import ReadFileTool

    path = Path(root) / "big.txt"
    path.write_text("".join(f"line {i}: some source text here\n" for i in range(100_000)))
    tool, context = ReadFileTool(), ToolContext(environment=LocalEnvironment(root))
    results = []
    for label, args in (
        ("default_2000_lines", {"path": "big.txt"}),
        ("all_100k_lines", {"path": "big.txt", "limit": 100_000}),
    ):
        ms = await median_ms(lambda a=args: tool.execute(a, context), reps)
        print(f"read_file of a 100k-line file, {label}: {ms:.1f} ms")
        results.append(f"RESULT read_file_{label}_ms={ms:.1f} target=none")
    return results


def bench_truncation(reps: int) -> list[str]:
    results = []
    limits = SHELL_LIMITS
    for label, text in (("one_line", "x" * 10_000_000), ("short_lines", "123456789\n" * 1_000_000)):
        samples = []
        for _ in range(reps):
            t0 = time.perf_counter()
            cut = truncate(text, limits)
            samples.append(time.perf_counter() - t0)
        assert cut.truncated
        ms = statistics.median(samples) * 1000
        print(f"truncate 10 MB, {label}: {ms:.2f} ms")
        results.append(f"RESULT truncate_10mb_{label}_ms={ms:.2f} target=50")
    return results


async def main(a: argparse.Namespace) -> None:
    results: list[str] = []
    with tempfile.TemporaryDirectory(prefix="taor-tools-bench-") as tmp:
        results += await bench_shell(tmp, a.shell_calls)
        tree = os.path.join(tmp, "tree")
        os.mkdir(tree)
        t0 = time.perf_counter()
        make_tree(Path(tree), a.files, a.lines)
        print(f"(tree: {a.files} files x {a.lines} lines in {time.perf_counter() - t0:.1f} s)")
        results += await bench_grep(tree, a.reps)
        results += await bench_read_file(tmp, a.reps)
    results += bench_truncation(a.reps)
    print()
    print("\n".join(results))


def parse_args() -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("--quick", action="store_true", help="30 shell calls, 3 reps, 500 files")
    p.add_argument("--shell-calls", type=int, default=200)
    p.add_argument("--reps", type=int, default=20)
    p.add_argument("--files", type=int, default=2000, help="files in the grep tree")
    p.add_argument("--lines", type=int, default=500, help="lines per file")
    a = p.parse_args()
    if a.quick:
        a.shell_calls, a.reps, a.files = 30, 3, 500
    return a


if __name__ == "__main__":
    asyncio.run(main(parse_args()))
