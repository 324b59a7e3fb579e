"""The ``grep`` tool: regex search of the workspace, read-only.

It runs ripgrep (``taor.tools.ripgrep``) through the environment's command runner when the
environment says its commands run this machine's programs (``Capabilities.host_programs``:
``LocalEnvironment``, its sandbox, and a subagent's shared or scoped view of them); otherwise, or
when rg cannot run, it uses the environment's own pure-Python ``grep``. Both paths give the same
output: ``path:line:text`` (content), paths (files_with_matches) or ``path:count`` (count), sorted
by path and line, capped at ``head_limit`` entries with a note that says how many were left out.
``.gitignore`` is respected and ``.git`` skipped; paths are relative to the workspace root. The
model gets text cut by ``taor.tools.truncation``; when anything was cut the whole text goes to
the host in ``metadata["full_output"]``.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from dataclasses import field
from typing import Any

from taor._records import frozen
from taor.env.base import EnvError, Environment, GrepMatch, capabilities
from taor.tools.base import ToolContext, ToolOutput
from taor.tools.builtin.search_output import capped, cut_output
from taor.tools.effects import Effects, string_field, text_argument
from taor.tools.ripgrep import RgQuery, RgResult, find_rg, run_rg
from taor.tools.truncation import Limits

DEFAULT_HEAD_LIMIT = 100
GREP_LIMITS = Limits(chars=20_000, lines=200, mode="tail")
MAX_LINE_CHARS = 500
FALLBACK_MAX_MATCHES = 100_000
_MODES = ("content", "files_with_matches", "count")

GREP_PARAMETERS: Mapping[str, Any] = {
    "type": "object",
    "properties": {
        "pattern": {"type": "string", "description": "Regular expression to search for."},
        "path": {
            "type": "string",
            "description": "File or directory to search, relative to the workspace (default: .).",
        },
        "glob": {"type": "string", "description": 'Only search files matching, e.g. "*.py".'},
        "case_insensitive": {"type": "boolean", "description": "Ignore case (default false)."},
        "output_mode": {
            "type": "string",
            "enum": list(_MODES),
            "description": "content: matching lines as path:line:text (default); "
            "files_with_matches: paths only; count: path:count.",
        },
        "head_limit": {
            "type": "integer",
            "minimum": 1,
            "description": f"Show at most this many entries (default {DEFAULT_HEAD_LIMIT}).",
        },
    },
    "required": ["pattern"],
    "additionalProperties": False,
}


def _short(line: str) -> str:
    if len(line) <= MAX_LINE_CHARS:
        return line
    return f"{line[:MAX_LINE_CHARS]} [... {len(line) - MAX_LINE_CHARS} characters cut]"


def _entries(mode: str, found: RgResult) -> list[str]:
    if mode == "content":
        return [f"{m.path}:{m.line_number}:{_short(m.line)}" for m in found.lines]
    if mode == "count":
        return [f"{path}:{count}" for path, count in found.counts]
    return [path for path, _ in found.counts]


@frozen
class GrepTool:
    """Regex search with ripgrep, or the environment's pure-Python grep when rg cannot run.

    ``rg_path`` overrides where rg is looked for (None: ``find_rg()``); ``use_ripgrep=False``
    always uses the fallback. ``limits`` overrides the truncation limits of ``grep``.
    """

    name: str = "grep"
    description: str = (
        "Search file contents with a regular expression (ripgrep syntax). Respects .gitignore. "
        "Output modes: content (path:line:text), files_with_matches, count."
    )
    parameters: Mapping[str, Any] = field(default_factory=lambda: GREP_PARAMETERS)
    read_only: bool = True
    rg_path: str | None = None
    use_ripgrep: bool = True
    limits: Limits | None = None

    @property
    def output_limits(self) -> Limits:
        return GREP_LIMITS

    def effects(self, arguments: Mapping[str, Any]) -> Effects:
        searched = string_field(arguments, "path", ".")
        pattern, path = text_argument(arguments, "pattern"), text_argument(arguments, "path")
        summary = None if pattern is None else f'"{pattern}" in {path}' if path else f'"{pattern}"'
        return Effects(
            reads=searched,
            writes_elsewhere=False,
            subject_style="path",
            subjects=searched,
            summary=summary,
        )

    async def execute(self, arguments: Mapping[str, Any], context: ToolContext) -> ToolOutput:
        if context.environment is None:
            return ToolOutput.error("grep needs an execution environment; none was configured.")
        try:
            return await self._search(arguments, context.environment)
        except EnvError as exc:
            return ToolOutput.error(str(exc))

    async def _search(self, arguments: Mapping[str, Any], environment: Environment) -> ToolOutput:
        mode = arguments.get("output_mode", "content")
        head_limit = int(arguments.get("head_limit") or DEFAULT_HEAD_LIMIT)
        query = RgQuery(
            pattern=arguments["pattern"],
            path=(await environment.stat(arguments.get("path") or ".")).path,
            glob=arguments.get("glob") or None,
            ignore_case=bool(arguments.get("case_insensitive", False)),
            counts=mode != "content",
            limit=head_limit,
        )
        found, engine = await self._ripgrep(environment, query), "ripgrep"
        if found is None:
            found, engine = await _fallback(environment, query), "python"
        return self._format(query, mode, found, engine)

    async def _ripgrep(self, environment: Environment, query: RgQuery) -> RgResult | None:
        rg = self.rg_path or find_rg()
        if not self.use_ripgrep or rg is None or not capabilities(environment).host_programs:
            return None
        return await run_rg(environment, rg, query)

    def _format(self, query: RgQuery, mode: str, found: RgResult, engine: str) -> ToolOutput:
        entries = _entries(mode, found)
        if not found.total:
            text = f"No matches for {query.pattern!r} in {query.path}."
        else:
            what = "matching lines" if mode == "content" else "files"
            hint = "Narrow the path, pattern or glob, or raise head_limit."
            text = capped(entries, found.total, query.limit or DEFAULT_HEAD_LIMIT, what, hint)
        if not found.complete:
            text += f"\n[NOTE: the search may be incomplete: {found.errors[:300] or 'output cut'}]"
        metadata: dict[str, Any] = {"engine": engine, "entries": found.total}
        return cut_output(text, self.limits or GREP_LIMITS, metadata)


async def _fallback(environment: Environment, query: RgQuery) -> RgResult:
    matches: list[GrepMatch] = await environment.grep(
        query.pattern,
        query.path,
        glob=query.glob,
        ignore_case=query.ignore_case,
        max_matches=FALLBACK_MAX_MATCHES,
    )
    complete = len(matches) < FALLBACK_MAX_MATCHES
    if not query.counts:
        matches.sort(key=lambda m: (m.path, m.line_number))
        lines = matches[: query.limit]
        return RgResult(lines=lines, counts=[], total=len(matches), complete=complete)
    counts = sorted(Counter(m.path for m in matches).items())
    return RgResult(lines=[], counts=counts, total=len(counts), complete=complete)
