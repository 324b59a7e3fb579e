"""Split a shell command into its simple commands, for permission rules (no shell is run).

``git status; rm -rf /`` is two commands, and an allow rule must match each of them. The scan
knows single quotes, double quotes and backslash escapes, and splits at the control operators
outside quotes: ``;``, ``&``, ``&&``, ``|``, ``||``, newline, ``(`` and ``)``, and at command
substitutions (``$(...)``, backticks, ``<(...)``, ``>(...)``), also inside double quotes, where
the shell still runs them. Unknown or odd syntax only ever makes more parts, never fewer.

Redirections stay in their command: ``make > log`` is one part, flagged ``redirects`` so that an
allow rule's ``*`` does not stretch over the file it writes. Harmless redirections (to
``/dev/null`` and file-descriptor copies such as ``2>&1``) are dropped from the text first.
"""

from __future__ import annotations

import re

from taor._records import frozen

_SPLIT = frozenset(";&|\n()")
_HARMLESS = re.compile(r"(?:[<>]&\s*(?:\d+|-)|&?>>?\s*/dev/null)(?=[\s;&|)]|\Z)")
_OPERATOR = re.compile(r"&>>?|<<-|<<<?|<>|<&|>>|>&|>\||[<>]")
_FD_NUMBER = re.compile(r"(?<!\S)\d+\Z")


@frozen
class CommandPart:
    """One simple command; ``redirects`` when it reads or writes a file through ``<`` / ``>``."""

    text: str
    redirects: bool = False


def split_command(command: str) -> list[CommandPart]:
    """The simple commands of ``command``, stripped, empty ones left out."""
    return [part for part in _Scanner(command).parts() if part.text]


class _Scanner:
    """Walks the command once; ``_stack`` holds the open contexts (quotes, substitutions)."""

    def __init__(self, command: str) -> None:
        self._text = command
        self._at = 0
        self._stack: list[str] = []  # "'", '"', "$(" or "`"
        self._current: list[str] = []
        self._redirects = False
        self._parts: list[CommandPart] = []

    def parts(self) -> list[CommandPart]:
        while self._at < len(self._text):
            self._step()
        self._cut()
        return self._parts

    def _cut(self) -> None:
        text = "".join(self._current).strip()
        text = text if text.strip("'\"") else ""  # the tail of a string around a substitution
        self._parts.append(CommandPart(text=text, redirects=self._redirects))
        self._current, self._redirects = [], False

    def _take(self, count: int = 1) -> None:
        self._current.append(self._text[self._at : self._at + count])
        self._at += count

    def _step(self) -> None:
        char, top = self._text[self._at], self._stack[-1] if self._stack else ""
        if top == "'":
            if char == "'":
                self._stack.pop()
            self._take()
        elif char == "\\":
            self._take(2)
        elif self._opens_substitution(char):
            return
        elif top == '"':
            if char == '"':
                self._stack.pop()
            self._take()
        else:
            self._unquoted(char, top)

    def _opens_substitution(self, char: str) -> bool:
        """``$(``, ``<(``, ``>(`` and backticks start a new command, even in double quotes."""
        ahead = self._text[self._at : self._at + 2]
        if char == "`" and self._stack[-1:] == ["`"]:
            self._stack.pop()
        elif char == "`":
            self._stack.append("`")
        elif ahead == "$(" or (ahead in ("<(", ">(") and self._stack[-1:] != ['"']):
            self._stack.append("$(")
            self._at += 1
        else:
            return False
        self._at += 1
        self._cut()
        return True

    def _unquoted(self, char: str, top: str) -> None:
        if char in "'\"":
            self._stack.append(char)
            self._take()
        elif char == ")" and top == "$(":
            self._stack.pop()
            self._at += 1
            self._cut()
        elif char in "<>" or self._text.startswith("&>", self._at):
            self._redirection()
        elif char in _SPLIT:
            self._at += 1
            self._cut()
        else:
            self._take()

    def _redirection(self) -> None:
        """Drop a harmless one (``2>&1``, ``>/dev/null``); keep and flag any other."""
        harmless = _HARMLESS.match(self._text, self._at)
        if harmless:
            before = "".join(self._current)
            self._current = [_FD_NUMBER.sub("", before)]
            self._at = harmless.end()
            return
        operator = _OPERATOR.match(self._text, self._at)
        self._redirects = True
        self._take(len(operator.group()) if operator else 1)
