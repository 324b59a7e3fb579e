"""``taor voice serve``: the speech-to-text MCP server (``taor.voice.server``) over stdio, for
``/voice`` in the interactive mode or any MCP client. It needs the voice extra
(``pip install 'taor[voice]'``: PocketSphinx with its English model, and sounddevice)."""

from __future__ import annotations

import contextlib
import sys

USAGE = "usage: taor voice serve   (a speech-to-text MCP server on stdin and stdout)"


def run(argv: list[str]) -> int:
    if argv in (["-h"], ["--help"]):
        print(USAGE)
        print(__doc__)
        return 0
    if argv != ["serve"]:
        print(f"taor: {USAGE}", file=sys.stderr)
        return 2
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
