"""``taor voice serve``: the speech-to-text MCP server (``taor.voice.server``) over stdio, for
``/voice`` in the interactive mode or any MCP client. It needs the voice extra
(``pip install 'taor[voice]'``: PocketSphinx with its English model, and sounddevice)."""

from __future__ import annotations

import argparse
import contextlib
import sys


def parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="taor voice",
        description="Voice input: a speech-to-text MCP server for /voice (the voice extra).",
    )
    commands = parser.add_subparsers(dest="command", required=True, metavar="serve")
    commands.add_parser("serve", help="serve speech to text over MCP on stdin and stdout")
    return parser


def run(argv: list[str]) -> int:
    try:
        parser().parse_args(argv)
    except SystemExit as done:  # --help (0), or a usage error argparse has explained (2)
        return int(done.code or 0)
    try:
        import pocketsphinx  # noqa: F401  # the engine, before a client is told it works
        from anyio import run as run_async

        from taor.voice.server import build
    except ModuleNotFoundError as error:
        print(f"taor voice serve needs {error.name}: pip install 'taor[voice]'", file=sys.stderr)
        return 2
    with contextlib.suppress(KeyboardInterrupt):
        run_async(build().run_stdio_async)
    return 0
