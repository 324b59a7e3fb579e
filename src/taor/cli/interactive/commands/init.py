"""``/init``: a cycle of the agent that looks at the project and writes its ``AGENTS.md`` (the
instructions every session here reads). An ``AGENTS.md`` already there is not replaced: the
agent reads it and improves it (what is stale fixed, what is missing added, what is right
kept), as Claude Code's ``/init`` does with its file. The file is written by the agent's own
tools, so the permission mode applies (in the default mode, the write is asked first)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from taor.cli.interactive.commands.command import Command

if TYPE_CHECKING:
    from taor.cli.interactive.app import Repl

WHAT = """\
It is read at the start of every session in this project by coding agents, which know nothing
else about it. Look before you write: list the top folders, read the README, the build and
package files (pyproject.toml, package.json, Cargo.toml, go.mod, Makefile and the like) and the
CI configuration, and a few central source files and tests. Then write, in short sections:
- what the project is, in two or three sentences;
- how to set it up, build it, run it, and run its tests (one test, one folder, everything),
  lint and format it, with the exact commands;
- the layout: the main folders and what lives where;
- the conventions a newcomer would get wrong: style, naming, error handling, how tests are
  written, what must not be done.
Only what you have checked in the files, nothing generic or invented; keep it under 150
lines."""

CREATE = f"Write {{path}} for this project.\n{WHAT}"
IMPROVE = f"""\
{{path}} already exists. Read it, then improve it in place: keep what is right, fix what is
stale or wrong against the project as it is now, add what is missing, and cut what is generic.
Do not replace it wholesale.
The file: {WHAT}"""


async def init(repl: Repl, argument: str) -> None:
    here = repl.project == repl.root  # else the project's root is above the working folder
    path = "AGENTS.md" if here else str(repl.project / "AGENTS.md")
    exists = await repl.session.environment.exists(path)
    prompt = (IMPROVE if exists else CREATE).format(path=path)
    if argument:
        prompt += f"\nAlso: {argument}"
    if exists:
        repl.screen.line(f"{path} exists: the agent improves it (it is not replaced)", "dim")
    else:
        repl.screen.line(f"the agent looks at the project and writes {path}", "dim")
    await repl.send(prompt)


INIT = Command(
    name="init",
    run=init,
    arguments="[what to stress]",
    help="the agent writes AGENTS.md for this project (improves it when there is one)",
    idle_only=True,
)
