"""The flags of ``taor``, with argparse (stdlib: no import cost, and its usage errors are the
one-line kind users expect). A usage error exits 2 with one line on stderr."""

from __future__ import annotations

import argparse
from typing import Any

from taor._version import __version__
from taor.errors import ConfigurationError
from taor.host.settings.schema import (
    EFFORTS,
    INPUT_FORMATS,
    KEYS,
    MODES,
    OUTPUT_FORMATS,
    PROFILES,
)

EPILOG = """configuration: ~/.config/taor/config.toml, then .taor/config.toml at the git root,
  then TAOR_* variables (or the project's .env), then flags; see `taor config show`.
rewind: taor --resume ID --rewind N puts the files back as they were before input N of that
  session and forks it there (see the inputs with taor sessions show ID); add -p to go on.
trust: a folder's own settings that could act for you (endpoints, keys, laxer permissions,
  no sandbox, hooks) apply only once you trust it: taor trust [DIR], or --trust for one run.
mcp: MCP servers from taor mcp add|list|get|remove, [mcp.servers.NAME] in config.toml, a
  trusted project's .mcp.json, or --mcp-config FILE; /mcp in the interactive mode.
other commands: taor config show, taor trust [DIR | --list | --revoke [DIR]], taor sessions
  [--all], taor sessions show ID, taor doctor, taor models list, taor models install [NAME],
  taor serve [--port N] (the service, over HTTP), taor serve token create NAME [--admin]
  taor build --brief FILE --qna FILE --plan FILE [--workspace DIR] | --continue (a project,
  built on its own from an idea brief, interview answers and a plan, narrated as it goes)

exit codes:
  0    done
  1    error (provider, internal)
  2    usage or configuration error, or an input too large for the model's context window
  3    a limit (--max-turns, --max-budget-usd, --max-wall) or the loop detection stopped
       the run
  4    a permission request was denied because no one could answer it
  130  interrupted (SIGINT or SIGTERM)"""


class UsageError(ConfigurationError):
    """A flag the command cannot take; the message says which and why."""


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # type: ignore[override]
        raise UsageError(message)


def parser_for(prog: str, description: str, epilog: str = "") -> argparse.ArgumentParser:
    """A parser whose errors raise ``UsageError`` (for ``taor`` and its subcommands)."""
    return _Parser(
        prog=prog,
        description=description,
        epilog=epilog,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )


def parser() -> argparse.ArgumentParser:
    p = parser_for(
        "taor",
        "Think, act, observe, repeat: a coding agent in the current directory.",
        EPILOG,
    )
    p.add_argument("prompt", nargs="?", help="the first input of the interactive mode (without -p)")
    p.add_argument(
        "-p",
        "--print",
        dest="headless",
        nargs="?",
        const="",
        default=None,
        metavar="PROMPT",
        help="run PROMPT (or stdin) headless and exit",
    )
    _run_flags(p)
    _session_flags(p)
    _output_flags(p)
    p.add_argument("--version", action="version", version=f"taor {__version__}")
    return p


def _run_flags(p: argparse.ArgumentParser) -> None:
    """The model, the permissions, the limits and the workspace."""
    p.add_argument("--model", help="provider:model, e.g. anthropic:claude-sonnet-4-5, or local")
    p.add_argument("--base-url", help="the provider's base URL (a local OpenAI-compatible server)")
    p.add_argument("--effort", choices=EFFORTS)
    p.add_argument(
        "--profile",
        choices=PROFILES,
        help="the tools and prompt the model gets (auto: by the model; small: for small "
        "models, chosen by itself for the local model and open models up to 8B)",
    )
    p.add_argument("--permission-mode", choices=MODES)
    p.add_argument("--allow", action="append", default=[], metavar="RULE")
    p.add_argument("--deny", action="append", default=[], metavar="RULE")
    p.add_argument(
        "--max-turns",
        type=int,
        metavar="N",
        help="model calls at most (retries and the summary included)",
    )
    p.add_argument(
        "--max-budget-usd",
        type=float,
        metavar="USD",
        help="no model call starts once this is spent (the one in flight may pass it)",
    )
    p.add_argument("--max-wall", type=float, metavar="SECONDS")
    p.add_argument("--temperature", type=float, metavar="T", help="sampling temperature, 0 to 2")
    p.add_argument("--max-output-tokens", type=int, metavar="N", help="output tokens per reply")
    p.add_argument("--cwd", help="the workspace (default: the current directory)")
    p.add_argument(
        "--trust",
        action="store_true",
        help="trust this folder for this run: its .taor/config.toml, .env keys and hooks apply "
        "(taor trust keeps it trusted)",
    )
    p.add_argument(
        "--sandbox", action="store_true", default=None, help="run commands under bubblewrap"
    )
    p.add_argument(
        "--mcp-config",
        action="append",
        default=[],
        metavar="FILE",
        help='MCP servers to start for this run: {"mcpServers": {NAME: {...}}} (repeatable)',
    )
    p.add_argument("--append-system-prompt", metavar="TEXT")
    p.add_argument("--system-prompt-file", metavar="FILE")


def _session_flags(p: argparse.ArgumentParser) -> None:
    resume = p.add_mutually_exclusive_group()
    resume.add_argument(
        "--continue",
        dest="continue_",
        action="store_true",
        help="continue this project's newest session",
    )
    resume.add_argument("--resume", metavar="ID", help="continue the session ID (a prefix will do)")
    p.add_argument(
        "--fork",
        action="store_true",
        help="with --continue or --resume: a new session from a copy of that one",
    )
    p.add_argument(
        "--rewind",
        type=int,
        metavar="N",
        help="with --continue or --resume: put the files back as they were before input N and "
        "go on from there (a new session); without -p, only that",
    )
    p.add_argument(
        "--rewind-only",
        choices=("files", "conversation"),
        help="with --rewind: rewind only the files, or only the conversation",
    )


def _output_flags(p: argparse.ArgumentParser) -> None:
    p.add_argument("--output-format", choices=OUTPUT_FORMATS)
    p.add_argument(
        "--input-format",
        choices=INPUT_FORMATS,
        help="stream-json: JSON lines on stdin drive the session (needs --output-format stream-json)",
    )
    verbosity = p.add_mutually_exclusive_group()
    verbosity.add_argument(
        "--verbose", dest="verbosity", action="store_const", const="verbose", help="log to stderr"
    )
    verbosity.add_argument(
        "--quiet", dest="verbosity", action="store_const", const="quiet", help="no progress"
    )


def settings_flags(args: argparse.Namespace) -> dict[str, Any]:
    """The settings this run's flags give, by their config key (None: not given)."""
    return {key.name: getattr(args, key.field, None) for key in KEYS if key.flag}


def parse(argv: list[str]) -> argparse.Namespace:
    args = parser().parse_args(argv)
    if args.fork and not (args.continue_ or args.resume):
        raise UsageError("--fork needs --continue or --resume (the session to copy)")
    if args.rewind is not None and not (args.continue_ or args.resume):
        raise UsageError("--rewind needs --continue or --resume (the session to rewind)")
    if args.rewind is not None and args.rewind < 1:
        raise UsageError("--rewind N counts the session's inputs from 1")
    if args.rewind is not None and args.fork:
        raise UsageError("--rewind makes a new session already: leave out --fork")
    if args.rewind_only and args.rewind is None:
        raise UsageError("--rewind-only needs --rewind N")
    return args
