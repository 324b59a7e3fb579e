"""How each profile's model names its tools and arguments, and where each
provider's request body keeps what the parity tests look at.

A ``Native`` builds tool calls the way that family's model writes them: Claude Code's
``file_path``/``old_string``/``new_string`` and a shell ``timeout`` in milliseconds; codex's
relative paths, ``apply_patch`` with the v4a patch as ``input``, ``timeout_ms`` and ``workdir``;
gemini-cli's ``file_path``, ``dir_path``, ``include`` and ``expected_replacements``.
"""

from __future__ import annotations

import posixpath
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

PROFILES = ("anthropic", "openai", "gemini")
MODEL_IDS = {
    "anthropic": "claude-sonnet-4-5",
    "openai": "gpt-5",
    "gemini": "gemini-3.1-pro-preview",
}
Call = tuple[str, dict[str, Any]]
Change = tuple[str, str, str]  # path, old text, new text


def patch(*sections: str) -> str:
    """A v4a patch of the given sections."""
    return "*** Begin Patch\n" + "".join(sections) + "*** End Patch\n"


def update_section(path: str, old: str, new: str, hint: str = "") -> str:
    """An ``*** Update File`` section replacing the whole lines ``old`` by ``new``."""
    removed = "".join(f"-{line}\n" for line in old.splitlines())
    added = "".join(f"+{line}\n" for line in new.splitlines())
    return f"*** Update File: {path}\n@@ {hint}".rstrip() + "\n" + removed + added


@dataclass(frozen=True, kw_only=True, slots=True)
class Native:
    """Tool calls as ``profile``'s model writes them, for a workspace at ``root``."""

    profile: str
    root: str

    def path(self, relative: str) -> str:
        """Claude Code and gemini-cli give absolute paths; codex gives relative ones."""
        return relative if self.profile == "openai" else posixpath.join(self.root, relative)

    def write(self, path: str, content: str) -> Call:
        return ("write_file", {"file_path": self.path(path), "content": content})

    def read(self, path: str, *, from_line: int | None = None) -> Call:
        """Read ``path``, from the 1-based line ``from_line`` if given (gemini-cli's
        ``offset`` is 0-based)."""
        arguments: dict[str, Any] = {"file_path": self.path(path)}
        if from_line is not None:
            arguments["offset"] = from_line - 1 if self.profile == "gemini" else from_line
        return ("read_file", arguments)

    def edit(self, path: str, old: str, new: str) -> Call:
        """One replacement; for openai ``old`` and ``new`` must be whole lines."""
        (call,) = self.edits([(path, old, new)])
        return call

    def edits(self, changes: Sequence[Change]) -> list[Call]:
        """Edits of several files: one patch for openai, one edit_file call per file else."""
        if self.profile == "openai":
            sections = [update_section(p, old, new) for p, old, new in changes]
            return [("apply_patch", {"input": patch(*sections)})]
        return [
            ("edit_file", {"file_path": self.path(p), "old_string": old, "new_string": new})
            for p, old, new in changes
        ]

    def shell(self, command: str, *, timeout_ms: int | None = None) -> Call:
        arguments: dict[str, Any] = {"command": command}
        if self.profile != "openai":  # codex's shell has no description
            arguments["description"] = "Run the command"
        if timeout_ms is not None:
            arguments["timeout" if self.profile == "anthropic" else "timeout_ms"] = timeout_ms
        return ("shell", arguments)

    def shell_in(self, command: str, directory: str) -> Call:
        """A command run in a subdirectory: codex's ``workdir``, gemini-cli's ``dir_path``,
        a ``cd`` for Claude Code (its Bash tool has no directory argument)."""
        if self.profile == "openai":
            return ("shell", {"command": command, "workdir": directory})
        if self.profile == "gemini":
            return ("shell", {"command": command, "dir_path": directory})
        return ("shell", {"command": f"cd {self.path(directory)} && {command}"})

    def grep(self, pattern: str, include: str) -> Call:
        key = "glob" if self.profile == "anthropic" else "include"
        return ("grep", {"pattern": pattern, key: include})

    def glob(self, pattern: str) -> Call:
        return ("glob", {"pattern": pattern})


def tool_definitions(profile: str, body: Mapping[str, Any]) -> dict[str, Mapping[str, Any]]:
    """The request's tools by name, each with its JSON schema."""
    tools = body.get("tools") or []
    if profile == "gemini":
        declarations = [d for t in tools for d in t.get("functionDeclarations", [])]
        return {d["name"]: d["parametersJsonSchema"] for d in declarations}
    key = "input_schema" if profile == "anthropic" else "parameters"
    return {t["name"]: t[key] for t in tools}


def effort_fields(profile: str, body: Mapping[str, Any]) -> Any:
    """Where the provider's body says how hard to think."""
    if profile == "anthropic":
        return body.get("thinking")
    if profile == "openai":
        return body.get("reasoning")
    return body["generationConfig"].get("thinkingConfig")


def last_user_message(profile: str, body: Mapping[str, Any]) -> list[str]:
    """The parts of the request's last user message (the last input items for openai, which
    has no such message for tool results), as ``kind:text`` strings."""
    if profile == "anthropic":
        last = body["messages"][-1]
        assert last["role"] == "user"
        return [
            f"tool_result:{p['content'][0]['text']}"
            if p["type"] == "tool_result"
            else f"text:{p['text']}"
            for p in last["content"]
        ]
    if profile == "gemini":
        last = body["contents"][-1]
        assert last["role"] == "user"
        return [
            f"tool_result:{p['functionResponse']['response']['output']}"
            if "functionResponse" in p
            else f"text:{p['text']}"
            for p in last["parts"]
        ]
    parts: list[str] = []
    for item in reversed(body["input"]):
        if item.get("type") == "function_call_output":
            parts.insert(0, f"tool_result:{item['output']}")
        elif item.get("role") == "user":
            parts.insert(0, f"text:{item['content'][0]['text']}")
        else:
            break
    return parts
