"""``SystemPrompt``: the system prompt of one session, built once and kept byte-stable.

``create`` gathers the environment facts (date, git snapshot) and reads the instruction files
once; ``current()`` then returns the very same string object on every turn, so the request
prefix stays cacheable. The date and the git snapshot never change it between turns (C-I 11).

``refresh_if_changed()`` stats the instruction files (every candidate path, so a new file counts
too) and re-reads them only when a size or modification time moved; the prompt is replaced only
when its text really differs (touching a file changes nothing). It returns whether the prompt
changed, so the session can emit an event. ``rebuild()`` re-gathers everything on request,
the facts included. Changes made within one modification-time tick that keep a file's size are
not seen by ``refresh_if_changed`` (``rebuild`` sees them).
"""

from __future__ import annotations

import datetime
from dataclasses import replace
from pathlib import Path

from taor._records import frozen
from taor.agent.context.prompt.builder import build_system_prompt
from taor.agent.context.prompt.facts import EnvironmentFacts, gather_facts
from taor.agent.context.prompt.instructions import (
    InstructionSources,
    ProjectInstructions,
    Stamp,
    fingerprint,
    read_instructions,
    sources_for,
)
from taor.env.base import Environment


@frozen
class PromptSettings:
    """The inputs a session gives: the profile's base prompt and instruction files, the model,
    tool guidance, the user's own instructions and the user-level instructions file (a host
    path, None to skip)."""

    base_prompt: str
    model: str
    instruction_files: tuple[str, ...] = ()
    tool_guidance: str = ""
    user_instructions: str = ""
    user_file: Path | None = None
    knowledge_cutoff: str | None = None
    list_files: int = 0  # name up to this many entries of the working directory (0: none)
    working_directory: bool = True  # name the working directory's path


@frozen
class _Snapshot:
    facts: EnvironmentFacts
    sources: InstructionSources
    stamps: tuple[Stamp, ...]
    instructions: ProjectInstructions
    text: str


class SystemPrompt:
    """The cached system prompt of one session (see the module docstring)."""

    __slots__ = ("_env", "_settings", "_snapshot")

    def __init__(self, env: Environment, settings: PromptSettings, snapshot: _Snapshot) -> None:
        self._env, self._settings, self._snapshot = env, settings, snapshot

    @classmethod
    async def create(
        cls, env: Environment, settings: PromptSettings, *, today: datetime.date
    ) -> SystemPrompt:
        """Gather the facts, read the instructions and build the prompt once."""
        return cls(env, settings, await _snapshot(env, settings, today))

    def current(self) -> str:
        """The prompt: the same object until a refresh or rebuild changes it."""
        return self._snapshot.text

    @property
    def facts(self) -> EnvironmentFacts:
        return self._snapshot.facts

    @property
    def instructions(self) -> ProjectInstructions:
        return self._snapshot.instructions

    async def refresh_if_changed(self) -> bool:
        """Re-read the instruction files if any changed on disk; True when the prompt changed."""
        old = self._snapshot
        stamps = await fingerprint(self._env, old.sources)
        if stamps == old.stamps:
            return False
        instructions = await read_instructions(self._env, old.sources)
        text = _build(self._settings, old.facts, instructions)
        changed = text != old.text
        self._snapshot = replace(
            old, stamps=stamps, instructions=instructions, text=text if changed else old.text
        )
        return changed

    async def rebuild(self, *, today: datetime.date) -> bool:
        """Gather the facts and read the files again; True when the prompt changed."""
        old = self._snapshot
        new = await _snapshot(self._env, self._settings, today)
        changed = new.text != old.text
        self._snapshot = new if changed else replace(new, text=old.text)
        return changed


def _build(
    settings: PromptSettings, facts: EnvironmentFacts, instructions: ProjectInstructions
) -> str:
    return build_system_prompt(
        settings.base_prompt,
        facts,
        tool_guidance=settings.tool_guidance,
        instructions=instructions,
        user_instructions=settings.user_instructions,
        working_directory=settings.working_directory,
    )


async def _snapshot(env: Environment, settings: PromptSettings, today: datetime.date) -> _Snapshot:
    facts = await gather_facts(
        env,
        model=settings.model,
        today=today,
        knowledge_cutoff=settings.knowledge_cutoff,
        list_files=settings.list_files,
    )
    sources = sources_for(
        facts.working_directory,
        facts.git.root if facts.git else None,
        profile_files=settings.instruction_files,
        user_file=settings.user_file,
    )
    stamps = await fingerprint(env, sources)
    instructions = await read_instructions(env, sources)
    return _Snapshot(
        facts=facts,
        sources=sources,
        stamps=stamps,
        instructions=instructions,
        text=_build(settings, facts, instructions),
    )
