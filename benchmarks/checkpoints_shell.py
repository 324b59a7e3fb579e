"""What checkpoints add to a shell call: the pictures of the workspace taken before and after
the command (``taor.agent.checkpoints.commands``), in a workspace of ``--files`` files.

    python benchmarks/checkpoints_shell.py                 # 3000 files, 40 calls per layout
    python benchmarks/checkpoints_shell.py --files 10000 --calls 20
    python benchmarks/checkpoints_shell.py --quick         # smoke run: 500 files, 5 calls

Three layouts: ``plain`` (no git: a scan of sizes and times), ``git`` (every file committed)
and ``git-dirty`` (the same with ``--dirty`` files modified, which a picture also reads: after
the first call they are known and only looked at). Each call is the ``shell`` tool on
``LocalEnvironment`` running ``true``, with and without the watch, alternately; the medians
are reported, and their difference is what checkpoints cost per call.

It ends with ``RESULT <layout>_added_ms=<value> target=<value>`` lines.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import subprocess
import tempfile
import time
from pathlib import Path

from taor.agent.checkpoints.commands import CommandWatch
from taor.agent.checkpoints.log import CheckpointLog
from taor.env.local import LocalEnvironment
from taor.tools.base import ToolContext
from taor.tools.builtin.shell import ShellTool

TARGET_MS = 50.0  # per call, for a few thousand files


def make_tree(root: Path, files: int) -> None:
    for n in range(files):
        folder = root / f"pkg{n // 100}"
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"mod{n}.py").write_text(f"value = {n}\n" * 20)


def git(root: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=root, check=True, capture_output=True)


def commit_all(root: Path) -> None:
    git(root, "init", "-q")
    git(root, "add", "-A")
    git(root, "-c", "user.email=b@b", "-c", "user.name=b", "commit", "-qm", "tree")


async def shell_call(environment: LocalEnvironment, log: CheckpointLog | None) -> float:
    watch = CommandWatch(log, "true") if log is not None else None
    started = time.perf_counter()
    if watch is not None:
        await watch.start()
    await ShellTool().execute({"command": "true"}, ToolContext(environment=environment))
    if watch is not None:
        await watch.finish()
    return (time.perf_counter() - started) * 1000


async def measure(root: Path, store: Path, calls: int) -> tuple[float, float]:
    environment = LocalEnvironment(root)
    log = CheckpointLog(environment, lambda: store, turn=1)
    await shell_call(environment, log)  # warm-up: dirty files are read once here
    with_watch, bare = [], []
    for _ in range(calls):
        with_watch.append(await shell_call(environment, log))
        bare.append(await shell_call(environment, None))
    return statistics.median(with_watch), statistics.median(bare)


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--files", type=int, default=3000)
    parser.add_argument("--dirty", type=int, default=100)
    parser.add_argument("--calls", type=int, default=40)
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args()
    if args.quick:
        args.files, args.dirty, args.calls = 500, 20, 5
    results = []
    with tempfile.TemporaryDirectory() as scratch:
        for layout in ("plain", "git", "git-dirty"):
            root = Path(scratch) / layout
            make_tree(root, args.files)
            if layout != "plain":
                commit_all(root)
            if layout == "git-dirty":
                for path in sorted(root.rglob("mod*.py"))[: args.dirty]:
                    path.write_text("changed\n")
            watched, bare = await measure(root, Path(scratch) / f"{layout}.checkpoints", args.calls)
            results.append((layout, watched, bare))
            print(f"{layout:10} {args.files} files: shell true {bare:6.1f} ms, "
                  f"with checkpoints {watched:6.1f} ms (+{watched - bare:.1f} ms)")  # fmt: skip
    for layout, watched, bare in results:
        print(
            f"RESULT {layout.replace('-', '_')}_added_ms={watched - bare:.1f} target={TARGET_MS:g}"
        )


if __name__ == "__main__":
    asyncio.run(main())
