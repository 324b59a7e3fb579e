"""How many of taor's modules one ``taor -p`` prompt with one tool call passes through.

    python benchmarks/modules_crossed.py             # the count, and the modules by package
    python benchmarks/modules_crossed.py --list      # and every module's name

The run: ``taor -p "list the files" --model openai-compat:m --base-url URL`` in a scratch
folder against a ``FakeProviderServer``, whose model calls ``list_dir`` once and then answers.
The count is of the taor modules a function of which runs from the command's start to its
exit (``sys.setprofile`` in the child process): the modules the prompt, the tool call and the
answer pass through. Module-level code that runs on import is not counted: importing a module
is not passing data through it.

It ends with ``RESULT modules_crossed=N target=143``: 143 is this count on ``main`` before the
tools declared their effects and the host layer moved out of the command (an outside review
counted 56 by following the data by hand, a narrower measure; fewer is the aim either way).
"""

from __future__ import annotations

import argparse
import collections
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

from taor.testing import FakeProviderServer, Reply, ToolCall

PY = sys.executable
BEFORE = 143

# Runs in the child: counts the taor modules whose functions are called, then runs the command.
TRACE = """
import atexit, json, sys
seen = set()
def profile(frame, event, arg):
    if event == "call" and frame.f_code.co_name != "<module>":
        name = frame.f_globals.get("__name__") or ""
        if name.startswith("taor"):
            seen.add(name)
sys.setprofile(profile)
import threading; threading.setprofile(profile)
atexit.register(lambda out=sys.argv[1]: open(out, "w").write(json.dumps(sorted(seen))))
sys.argv = ["taor", *sys.argv[2:]]
from taor.cli import main
main()
"""


def crossed(url: str) -> list[str]:
    with tempfile.TemporaryDirectory() as scratch:
        (Path(scratch) / "hello.txt").write_text("hello\n")
        out = Path(scratch) / ".modules.json"
        env = {**os.environ, "OPENAI_API_KEY": "k", "XDG_CONFIG_HOME": scratch}
        command = ["-p", "list the files", "--model", "openai-compat:m", "--base-url", url]
        run = subprocess.run(
            [PY, "-c", TRACE, str(out), *command],
            cwd=scratch,
            env=env,
            capture_output=True,
            text=True,
        )
        if not out.exists():
            sys.exit(f"the traced run failed:\n{run.stderr[-2000:]}")
        return list(json.loads(out.read_text()))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--list", action="store_true", help="print every module's name")
    args = parser.parse_args()
    replies = [Reply(tool_calls=(ToolCall(name="list_dir", arguments={"path": "."}),)),
               Reply(text="There is hello.txt.")]  # fmt: skip
    with FakeProviderServer(replies) as server:
        modules = crossed(server.url)
    by_package = collections.Counter(".".join(m.split(".")[:2]) for m in modules)
    for package, count in sorted(by_package.items()):
        print(f"  {package:24} {count}")
    if args.list:
        print("\n".join(modules))
    print(f"\nRESULT modules_crossed={len(modules)} target={BEFORE}")


if __name__ == "__main__":
    main()
