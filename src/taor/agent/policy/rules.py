"""Permission rules: ``tool`` or ``tool(pattern)``, parsed and matched against a call's subjects.

The tool part is a name where ``*`` matches anything (``mcp__server__*``). The pattern, when
given, is matched against the call's subjects (``taor.agent.policy.subjects``) in the tool's style;
a pattern of just ``*`` (like no pattern) matches any arguments. ``\\`` makes the next character
literal (``shell(ls \\*.py)``).

- ``command`` (shell): ``*`` matches anything, spaces and ``/`` included. The command is split
  into its simple commands (``taor.agent.policy.shell_split``): allow rules must match every one of
  them (``git status*`` does not allow ``git status; rm -rf /``) and their ``*`` does not stretch
  over a redirection (``git status*`` does not allow ``git status > notes.txt``); a deny rule
  matches when the whole command or any one part matches. Runs of spaces count as one.
- ``path``: gitignore-like globs: ``**`` any depth, ``*`` and ``?`` within a segment, ``[abc]``;
  a pattern without ``/`` matches a name at any depth (``*.py``; ``./name`` only at the top),
  a pattern ending in ``/`` or ``/**`` matches the directory and all inside it, and a pattern
  that matches a directory matches the files below it. Relative patterns match only paths
  inside the workspace: a path that climbs out (``../x``) or is absolute matches only patterns
  that start with ``..`` or ``/``.
- ``text`` (other tools: the canonical JSON of the arguments): ``*`` matches anything.

A call is allowed by rules when each of its subjects (each file of a patch, each simple command
of a shell command) is matched by some allow rule; it is denied when any deny rule matches any
subject (or, for shell, the whole command).
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from taor._records import frozen
from taor.agent.policy.shell_split import CommandPart, split_command
from taor.agent.policy.subjects import SubjectStyle, is_outside
from taor.errors import ConfigurationError

_RULE = re.compile(r"\s*([A-Za-z0-9_.*\-]+)\s*(?:\((.*)\))?\s*", re.S)
_EXAMPLES = "for example 'shell(git status*)', 'edit_file(src/**)', 'read_file' or 'mcp__server__*'"
_SPACES = re.compile(r"\s+")


@frozen
class Rule:
    """``tool`` is a name with ``*`` wildcards; ``pattern`` None matches any arguments."""

    tool: str
    pattern: str | None = None

    def __str__(self) -> str:
        return self.tool if self.pattern is None else f"{self.tool}({self.pattern})"

    def matches_tool(self, name: str) -> bool:
        return _wildcard(self.tool).fullmatch(name) is not None

    @property
    def matches_any(self) -> bool:
        """No pattern, or just ``*``: any arguments."""
        return self.pattern is None or self.pattern == "*"


def allowing_rules(
    rules: Iterable[Rule], name: str, subjects: list[str], style: SubjectStyle
) -> tuple[Rule, ...]:
    """The allow rules that together cover the call, or ``()`` when some subject (for shell,
    some simple command) is covered by none of them."""
    relevant = [rule for rule in rules if rule.matches_tool(name)]
    for rule in relevant:
        if rule.matches_any:
            return (rule,)
    chosen: list[Rule] = []
    for unit in _units(subjects, style, deny=False):
        covering = next((r for r in relevant if _covers(r, unit, style)), None)
        if covering is None:
            return ()
        chosen.append(covering)
    return tuple(dict.fromkeys(chosen))


def denying_rule(
    rules: Iterable[Rule], name: str, subjects: list[str], style: SubjectStyle
) -> Rule | None:
    """The first deny rule that matches the whole command or any subject or part of it."""
    units = _units(subjects, style, deny=True)
    for rule in rules:
        if rule.matches_tool(name) and (
            rule.matches_any or any(_covers(rule, unit, style) for unit in units)
        ):
            return rule
    return None


def parse_rule(text: str) -> Rule:
    """``shell(git status*)`` -> ``Rule(tool="shell", pattern="git status*")``."""
    match = _RULE.fullmatch(text)
    if match is None:
        raise _bad(text, "write a tool name, optionally followed by an argument pattern in ()")
    tool, pattern = match.group(1), match.group(2)
    if pattern is not None and not pattern.strip():
        raise _bad(text, "the pattern in () is empty; leave out the () to match any arguments")
    return Rule(tool=tool, pattern=pattern)


def _bad(text: str, why: str) -> ConfigurationError:
    return ConfigurationError(f"Invalid permission rule {text!r}: {why}; {_EXAMPLES}.")


def escape(subject: str, style: SubjectStyle) -> str:
    """A pattern that matches exactly ``subject`` (wildcard characters made literal)."""
    special = "\\*?[" if style == "path" else "\\*"
    return "".join("\\" + c if c in special else c for c in subject)


def _units(subjects: list[str], style: SubjectStyle, *, deny: bool) -> list[CommandPart]:
    """What rules are matched against one by one. For a deny rule a shell command counts
    whole and part by part, and ``*`` may stretch over redirections."""
    if style != "command":
        return [CommandPart(text=subject) for subject in subjects]
    units: list[CommandPart] = []
    for command in subjects:
        parts = split_command(command)
        if deny:
            units.append(CommandPart(text=command))
            parts = [CommandPart(text=part.text) for part in parts]
        units.extend(parts)
    return units


def _covers(rule: Rule, unit: CommandPart, style: SubjectStyle) -> bool:
    pattern = rule.pattern or "*"
    if style == "command":
        star = "[^<>]*" if unit.redirects else ".*"
        return _wildcard(_squeeze(pattern), star=star).fullmatch(_squeeze(unit.text)) is not None
    if style == "path":
        return _path_matches(pattern, unit.text)
    return _wildcard(pattern).fullmatch(unit.text) is not None


def _squeeze(text: str) -> str:
    return _SPACES.sub(" ", text.strip())


def _wildcard(pattern: str, *, star: str = ".*") -> re.Pattern[str]:
    out, chars = [], iter(pattern)
    for char in chars:
        if char == "\\":
            out.append(re.escape(next(chars, "\\")))
        else:
            out.append(star if char == "*" else re.escape(char))
    return re.compile("".join(out), re.S)


def _path_matches(pattern: str, path: str) -> bool:
    if is_outside(path) and not pattern.startswith(("/", "..")):
        return False
    anchored = "/" in pattern.rstrip("/")  # so ./name is anchored at the workspace root
    pattern = pattern.removeprefix("./")
    pattern += "**" if pattern.endswith("/") else ""
    pattern = pattern if anchored else "**/" + pattern
    if pattern.endswith("/**") and _glob(pattern[:-3]).fullmatch(path):
        return True
    regex, segments = _glob(pattern), path.split("/")
    return any(regex.fullmatch("/".join(segments[:n])) for n in range(1, len(segments) + 1))


def _glob(pattern: str) -> re.Pattern[str]:
    out, at = [], 0
    while at < len(pattern):
        if pattern.startswith("**/", at):
            out.append("(?:.*/)?")
            at += 3
        elif pattern.startswith("**", at):
            out.append(".*")
            at += 2
        else:
            piece, at = _glob_char(pattern, at)
            out.append(piece)
    return re.compile("".join(out), re.S)


def _glob_char(pattern: str, at: int) -> tuple[str, int]:
    char = pattern[at]
    if char == "\\":
        return re.escape(pattern[at + 1 : at + 2] or "\\"), at + 2
    if char == "[" and (closing := pattern.find("]", at + 2)) != -1:
        body = pattern[at + 1 : closing].replace("\\", "\\\\")
        return "[" + ("^" + body[1:] if body.startswith("!") else body) + "]", closing + 1
    return {"*": "[^/]*", "?": "[^/]"}.get(char, re.escape(char)), at + 1
