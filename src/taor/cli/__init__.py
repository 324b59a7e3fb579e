"""The ``taor`` command: ``taor -p "task"`` runs one input headless in the current directory.

The command is a thin front end over ``taor.agent.Session`` and ``taor.host`` (settings,
sessions on disk, composing a session, outcomes): ``args`` reads the flags, ``setup`` turns
them into a session (``taor.host.compose``: new, continued or forked), ``render`` prints its
events, ``headless`` runs one input and maps how it ended to an exit code
(``taor.host.outcome``; ``ending``: the stop line and the signals), ``stream_run`` serves JSON
lines from stdin (``--input-format stream-json``, read by ``stream_input`` into the session's
commands). The subcommands: ``sessions/``, ``config_cmd``, ``doctor``, ``models``,
``trust_cmd``; ``interactive/``: ``taor`` in a terminal. ``--version`` and ``--help`` import
nothing else, so they answer at once.

Exit codes: 0 done, 1 error (provider, internal), 2 usage or configuration error, 3 a limit
or the loop detection stopped the run, 4 a permission request was denied because no one could answer it, 130
interrupted (SIGINT or SIGTERM; the session is closed properly; also a Ctrl-C while the command
starts, quietly).
"""

from __future__ import annotations

import sys

from taor._version import __version__

# ``taor NAME ...``: the module whose ``run(argv)`` answers it (imported only when used).
SUBCOMMANDS = {
    "sessions": "taor.cli.sessions.command",
    "config": "taor.cli.config_cmd",
    "doctor": "taor.cli.doctor",
    "models": "taor.cli.models",
    "trust": "taor.cli.trust_cmd",
    "mcp": "taor.cli.mcp_cmd",  # its serve is taor.mcp_server's, reached by name
    "build": "taor.cli.build",
    "serve": "taor.server.command",  # a front end of its own, reached by name
    "voice": "taor.voice.command",  # the speech-to-text MCP server (the voice extra)
    "worker": "taor.server.spread.command",  # the service's runs, across machines
    "workers": "taor.server.spread.listing",
}


def main(argv: list[str] | None = None) -> int:
    """Run the command; Ctrl-C before a run can take it (while the command imports, reads its
    settings or connects) exits 130 without a traceback, as Ctrl-C during a run does."""
    args = sys.argv[1:] if argv is None else argv
    if argv is None and not (args and args[0] in SUBCOMMANDS):
        _exit_on_early_interrupt()
    try:
        return _command(args)
    except KeyboardInterrupt:
        return 130  # ``taor.host.outcome.EXIT_INTERRUPTED``, not imported: this must not fail


def _exit_on_early_interrupt() -> None:
    """Until a run puts its own handlers in place (they interrupt the cycle and close the
    session), SIGINT ends the process at once with 130. A KeyboardInterrupt raised there can
    land where Python only reports it and goes on (an import lock's callback), and the run
    then carries on as if nothing had been pressed; before the session exists there is
    nothing to close. The subcommands keep Python's handling: they clean up after themselves.

    It uses ``_signal``, the C module under ``signal``: importing ``signal`` itself imports
    enum, functools and collections first, long enough for a Ctrl-C to land in them."""
    import _signal  # type: ignore[import-not-found]  # (no stub: it is what signal wraps)
    import os

    _signal.signal(_signal.SIGINT, lambda *_: os._exit(130))


def _command(args: list[str]) -> int:
    if args == ["--version"] or args == ["-V"]:
        print(f"taor {__version__}")
        return 0
    if args and args[0] in SUBCOMMANDS:
        from importlib import import_module

        return int(import_module(SUBCOMMANDS[args[0]]).run(args[1:]))
    from taor.cli.headless import run_command

    return run_command(args)


__all__ = ["SUBCOMMANDS", "main"]
