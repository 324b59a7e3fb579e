"""Adding permission rules to a config file, as "allow always, and save to this project" asks:
``add_allow_rules`` puts them in the ``allow`` list of the file's ``[permissions]`` table and
leaves every other byte of the file as it was (comments, order, layout).

TOML has no writer in the standard library, and rewriting the file from its parsed table would
lose the comments, so the change is made in the text: the list's span is found with a small
scanner that knows TOML's strings and comments, and replaced. The result is parsed again
before it is written; if it does not read back as the old rules plus the new ones, the file is
left alone and the error says what to add by hand. The file is replaced atomically.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from taor.errors import ConfigurationError

HEADER = re.compile(r"^[ \t]*\[[ \t]*permissions[ \t]*\][ \t]*(?:#.*)?$", re.MULTILINE)
ANY_HEADER = re.compile(r"^[ \t]*\[", re.MULTILINE)
ALLOW = re.compile(r"^[ \t]*allow[ \t]*=[ \t]*", re.MULTILINE)


def add_allow_rules(path: Path, rules: Sequence[str]) -> list[str]:
    """Add ``rules`` to ``[permissions] allow`` of the TOML file at ``path`` (created with its
    folder when missing); returns those that were not there yet."""
    text = path.read_text(encoding="utf-8") if path.exists() else ""
    current = _allow_of(_parse(text, path))
    new = [rule for rule in dict.fromkeys(rules) if rule not in current]
    if not new:
        return []
    wanted = current + new
    updated = _with_allow(text, wanted)
    if updated is None or _allow_of(_parse(updated, path)) != wanted:
        raise ConfigurationError(
            f"{path}: could not add the rules for you; add them under [permissions] by hand: "
            f"allow = {_array(wanted, multiline=False)}"
        )
    _replace(path, updated)
    return new


def _parse(text: str, path: Path) -> dict[str, Any]:
    import tomllib

    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        raise ConfigurationError(f"{path}: not valid TOML: {error}") from None


def _allow_of(table: dict[str, Any]) -> list[str]:
    permissions = table.get("permissions", {})
    allow = permissions.get("allow", []) if isinstance(permissions, dict) else []
    return [str(rule) for rule in allow] if isinstance(allow, list) else []


def _with_allow(text: str, allow: list[str]) -> str | None:
    """``text`` with its ``[permissions]`` allow list set to ``allow`` (None: not found where
    it can be changed safely, such as a dotted key or an inline table)."""
    header = HEADER.search(text)
    if header is None:
        if re.search(r"^[ \t]*permissions[ \t.=]", text, re.MULTILINE):
            return None
        gap = "" if not text else ("\n" if text.endswith("\n") else "\n\n")
        return f"{text}{gap}[permissions]\nallow = {_array(allow, multiline=False)}\n"
    following = ANY_HEADER.search(text, header.end())
    end = following.start() if following else len(text)
    found = ALLOW.search(text, header.end(), end)
    if found is None:
        line = f"\nallow = {_array(allow, multiline=False)}"
        return text[: header.end()] + line + text[header.end() :]
    span = _array_span(text, found.end())
    if span is None:
        return None
    multiline = "\n" in text[span[0] : span[1]]
    return text[: span[0]] + _array(allow, multiline=multiline) + text[span[1] :]


def _array_span(text: str, start: int) -> tuple[int, int] | None:
    """Where the array starting at ``start`` begins and ends (its closing bracket included)."""
    if not text.startswith("[", start):
        return None
    depth, i = 0, start
    while i < len(text):
        char = text[i]
        if char in "\"'":
            i = _string_end(text, i)
            if i < 0:
                return None
            continue
        if char == "#":
            newline = text.find("\n", i)
            i = len(text) if newline < 0 else newline
            continue
        depth += {"[": 1, "]": -1}.get(char, 0)
        i += 1
        if depth == 0:
            return start, i
    return None


def _string_end(text: str, i: int) -> int:
    """The index just past the string that starts at ``i`` (-1 when it does not end)."""
    quote = text[i] * 3 if text.startswith(text[i] * 3, i) else text[i]
    j = i + len(quote)
    while j < len(text):
        if text[i] == '"' and text[j] == "\\":
            j += 2
            continue
        if text.startswith(quote, j):
            return j + len(quote)
        j += 1
    return -1


def _array(rules: list[str], *, multiline: bool) -> str:
    items = [json.dumps(rule, ensure_ascii=False) for rule in rules]
    if not multiline:
        return "[" + ", ".join(items) + "]"
    return "[\n" + "".join(f"    {item},\n" for item in items) + "]"


def _replace(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    temporary.write_text(text, encoding="utf-8")
    os.replace(temporary, path)
