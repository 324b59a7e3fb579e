"""``/model``, ``/effort``, ``/permissions`` and ``/compact``: settings of the running session,
applied from its next model call (``Session.configure``), and compaction on request."""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING, cast

from taor.agent.config import PermissionMode
from taor.cli.interactive.commands.command import Command
from taor.cli.interactive.picker import Picker
from taor.errors import TaorError
from taor.host.settings.schema import EFFORTS, MODES

if TYPE_CHECKING:
    from taor.cli.interactive.app import Repl


async def model(repl: Repl, argument: str) -> None:
    from taor.llm.connect import connect, parse_model_string

    current = repl.session.model
    if not argument:
        here = f"{current.provider}:{current.model_id}"
        options, notes = model_options(here)
        repl.picker = Picker(
            title=f"model: {here}; pick another (or /model provider:model)",
            command="/model",
            options=options,
            notes=notes,
        )
        repl.redraw()
        return
    try:
        provider, _ = parse_model_string(argument)
        base_url = repl.settings.base_url if provider == current.provider else None
        new = connect(argument, base_url=base_url, env=repl.settings.provider_env)
    except TaorError as error:
        repl.screen.line(f"✗ {error}", "red")
        return
    repl.session.configure(model=new)
    repl.models.append(new)
    repl.screen.line(f"model: {new.provider}:{new.model_id} from the next call", "cyan")
    repl.refresh_status()


def model_options(current: str) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The models to pick from, the current one first: the catalog's, a local model only
    once installed; and a note for each (the current one, no images)."""
    from taor.llm.catalog import Catalog
    from taor.llm.local.install import is_installed
    from taor.llm.local.known import KNOWN, models_dir

    installed = {name for name, known in KNOWN.items() if is_installed(known, models_dir())}
    found = [
        (f"{m.provider}:{m.id}", m.vision)
        for m in Catalog.default().models()
        if m.provider != "local" or m.id in installed
    ]
    found.sort(key=lambda item: item[0] != current)
    if not found or found[0][0] != current:
        found.insert(0, (current, True))
    notes = [
        "(current)" if name == current else ("" if vision else "(text only)")
        for name, vision in found
    ]
    return tuple(name for name, _ in found), tuple(notes)


async def effort(repl: Repl, argument: str) -> None:
    if not argument:
        level = repl.session.config.reasoning_effort or "default"
        repl.screen.line(f"effort: {level} (/effort {'|'.join(EFFORTS)}|default)")
        return
    if argument not in (*EFFORTS, "default"):
        repl.screen.line(f"✗ effort is one of {', '.join(EFFORTS)} or default", "red")
        return
    repl.session.configure(reasoning_effort=None if argument == "default" else argument)
    repl.screen.line(f"effort: {argument} from the next call", "cyan")
    repl.refresh_status()


async def permissions(repl: Repl, argument: str) -> None:
    if argument:
        if argument not in MODES:
            repl.screen.line(f"✗ the mode is one of {', '.join(MODES)}", "red")
            return
        set_mode(repl, cast("PermissionMode", argument))
    rules = repl.session.permission_rules()
    lines = [f"permission mode: {rules.mode} (/permissions {'|'.join(MODES)})"]
    for title, found in (
        ("allow (config)", rules.allow),
        ("allow (this session)", rules.added),
        ("deny", rules.deny),
    ):
        lines.append(f"  {title}: {', '.join(found) if found else '-'}")
    repl.screen.line("\n".join(lines))


def set_mode(repl: Repl, mode: PermissionMode) -> None:
    current = repl.session.config.permissions
    repl.session.configure(permissions=dataclasses.replace(current, mode=mode))
    repl.refresh_status()


def next_mode(current: str, started: str) -> PermissionMode:
    """The mode Shift-Tab moves to: default → accept_edits → plan → default; bypass is in
    the round only for a session started in it (it is never one key press away otherwise)."""
    modes = [m for m in MODES if m != "bypass" or started == "bypass"]
    at = modes.index(current) if current in modes else -1
    return cast("PermissionMode", modes[(at + 1) % len(modes)])


def cycle_mode(repl: Repl) -> None:
    """Shift-Tab: the next permission mode, shown in the status line."""
    if repl.session.state == "closed":
        return
    set_mode(repl, next_mode(repl.session.config.permissions.mode, repl.settings.permission_mode))


async def compact(repl: Repl, argument: str) -> None:
    repl.session.compact(argument or None)
    repl.live.compacting = True
    repl.live.busy_since = repl.live.busy_since or repl.clock()
    repl.screen.line(
        "compacting the conversation" + (f" (keeping: {argument})" if argument else ""), "dim"
    )
    repl.redraw()


MODEL = Command(
    name="model",
    run=model,
    arguments="[provider:model]",
    help="switch the model (with no argument: pick from a list)",
)
EFFORT = Command(
    name="effort",
    run=effort,
    arguments="[level]",
    help="show or set the reasoning effort",
    choices=(*EFFORTS, "default"),
)
PERMISSIONS = Command(
    name="permissions",
    run=permissions,
    arguments="[mode]",
    help="the permission mode and rules in force; set the mode",
    choices=MODES,
)
COMPACT = Command(
    name="compact", run=compact, arguments="[focus]", help="compact the conversation now"
)
