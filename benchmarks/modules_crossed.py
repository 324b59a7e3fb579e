"""How many of taor's modules one ``taor -p`` prompt with one tool call passes through.

    python benchmarks/modules_crossed.py             # the counts, and the modules by package
    python benchmarks/modules_crossed.py --list      # and every module's name

The run: ``taor -p "list the files" --model openai-compat:m --base-url URL`` in a scratch
folder against a ``FakeProviderServer``, whose model edits ``hello.txt`` with one
``edit_file`` call (id ``call_trace_1``; ``--permission-mode accept_edits``) and then answers:
the call is checked by the permission policy, previewed, checkpointed, diffed and summarized. Two counts, taken in the child process with
``sys.setprofile`` from the command's start to its exit:

- ``data_path``: the modules whose functions are handed the run's data: an argument that is,
  or holds (in its fields, items or values, three levels deep), the prompt's text or the tool
  call's id. That is the path the prompt and the tool call take through taor.
- ``called``: the modules any function of which runs (set-up, configuration and clean-up too).

Module-level code that runs on import is not counted: importing a module is not passing data
through it.

It ends with ``RESULT data_path_modules=N target=M`` and ``RESULT modules_called=N target=M``,
where the targets are the counts on ``main`` before the tools declared their effects and the
host layer moved out of the command (fewer is the aim).
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
PROMPT = "say goodbye in hello.txt"
CALL_ID = "call_trace_1"
BEFORE = {"data_path": 43, "called": 146}  # at 83de2c3

# Runs in the child: notes the taor modules whose functions are called, and those handed the
# prompt or the tool call, then runs the command.
TRACE = """
import atexit, dataclasses, json, sys
MARKS = (sys.argv[2], sys.argv[3])
called, data = set(), set()

def holds(value, depth=3):
    if isinstance(value, str):
        return any(mark in value for mark in MARKS)
    if depth == 0 or value is None or isinstance(value, (int, float, bool, bytes)):
        return False
    if isinstance(value, dict):
        return any(holds(v, depth - 1) for v in list(value.values())[:50])
    if isinstance(value, (list, tuple)):
        return any(holds(v, depth - 1) for v in value[:50])
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return any(holds(getattr(value, f.name, None), depth - 1) for f in dataclasses.fields(value))
    return False

def profile(frame, event, arg):
    if event != "call" or frame.f_code.co_name == "<module>":
        return
    name = frame.f_globals.get("__name__") or ""
    if not name.startswith("taor"):
        return
    called.add(name)
    if name not in data:
        code = frame.f_code
        names = code.co_varnames[: code.co_argcount + code.co_kwonlyargcount]
        if any(holds(frame.f_locals.get(n)) for n in names if n != "self"):
            data.add(name)

sys.setprofile(profile)
import threading; threading.setprofile(profile)
def save(out=sys.argv[1]):
    sys.setprofile(None)
    open(out, "w").write(json.dumps({"called": sorted(called), "data_path": sorted(data)}))
atexit.register(save)
sys.argv = ["taor", *sys.argv[4:]]
from taor.cli import main
main()
"""


def traced(url: str) -> dict[str, list[str]]:
    with tempfile.TemporaryDirectory() as scratch:
        (Path(scratch) / "hello.txt").write_text("hello\n")
        out = Path(scratch) / ".modules.json"
        env = {**os.environ, "OPENAI_API_KEY": "k", "XDG_CONFIG_HOME": scratch}
        command = ["-p", PROMPT, "--model", "openai-compat:m", "--base-url", url,
                   "--permission-mode", "accept_edits"]  # fmt: skip
        run = subprocess.run(
            [PY, "-c", TRACE, str(out), PROMPT, CALL_ID, *command],
            cwd=scratch,
            env=env,
            capture_output=True,
            text=True,
        )
        if not out.exists():
            sys.exit(f"the traced run failed:\n{run.stderr[-2000:]}")
        found: dict[str, list[str]] = json.loads(out.read_text())
        return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--list", action="store_true", help="print every module's name")
    args = parser.parse_args()
    edit = {"path": "hello.txt", "old_string": "hello", "new_string": "goodbye"}
    call = ToolCall(name="edit_file", arguments=edit, id=CALL_ID)
    replies = [Reply(tool_calls=(call,)), Reply(text="Done.")]
    with FakeProviderServer(replies) as server:
        found = traced(server.url)
    for count in ("data_path", "called"):
        modules = found[count]
        by_package = collections.Counter(".".join(m.split(".")[:2]) for m in modules)
        print(
            f"{count}: {len(modules)}  "
            + ", ".join(f"{p} {n}" for p, n in sorted(by_package.items()))
        )
        if args.list:
            print("  " + "\n  ".join(modules))
    print(f"\nRESULT data_path_modules={len(found['data_path'])} target={BEFORE['data_path']}")
    print(f"RESULT modules_called={len(found['called'])} target={BEFORE['called']}")


if __name__ == "__main__":
    main()
