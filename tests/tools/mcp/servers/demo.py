"""A small MCP server for the tests, written with the SDK's MCPServer.

    python demo.py [--http PORT] [--hang] [--crash-marker FILE] [--name NAME]

Tools: ``echo`` (read-only), ``add`` (structured result), ``write_note`` (destructive),
``pixel`` (an image), ``crash`` (exits the process, unless ``--crash-marker`` exists: then it
answers, so a restarted server works), ``slow`` (waits until cancelled; writes the file named by its
argument + ``.started`` at once and the file itself when cancelled), ``grow`` (adds the tool ``extra``
and tells the client the list changed). A resource ``notes://today`` and a prompt ``review``.
``--hang``: never answers (reads stdin forever).
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import os
import sys
from pathlib import Path

from mcp.server.mcpserver import Context, MCPServer
from mcp.types import ImageContent, ToolAnnotations

PNG = base64.b64encode(
    bytes.fromhex(
        "89504e470d0a1a0a0000000d4948445200000001000000010806000000"
        "1f15c4890000000d4944415478da63f8cfc0f01f0005000201a5e5c2d50000000049454e44ae426082"
    )
).decode()


def build(marker: str | None, name: str) -> MCPServer:
    server = MCPServer(name)

    @server.tool(annotations=ToolAnnotations(read_only_hint=True))
    def echo(text: str) -> str:
        """Say the text back."""
        return f"echo: {text}"

    @server.tool(annotations=ToolAnnotations(read_only_hint=True))
    def add(a: int, b: int) -> dict[str, int]:
        """Add two numbers."""
        return {"sum": a + b}

    @server.tool(annotations=ToolAnnotations(destructive_hint=True))
    def write_note(text: str) -> str:
        """Write a note."""
        return f"noted: {text}"

    @server.tool()
    def pixel() -> ImageContent:
        """A one-pixel image."""
        return ImageContent(type="image", data=PNG, mime_type="image/png")

    @server.tool()
    def crash() -> str:
        """Exit the process (once, when a marker file is given)."""
        if marker and Path(marker).exists():
            return "alive again"
        if marker:
            Path(marker).write_text("crashed")
        os._exit(3)

    @server.tool()
    async def slow(flag: str) -> str:
        """Wait until cancelled."""
        await asyncio.to_thread(Path(flag + ".started").write_text, "started")
        try:
            await asyncio.sleep(3600)
        except BaseException:
            Path(flag).write_text("cancelled")  # noqa: ASYNC240 (no await while cancelled)
            raise
        return "done"

    @server.tool()
    async def grow(ctx: Context) -> str:
        """Add the tool 'extra'."""
        server.add_tool(lambda: "extra!", name="extra", description="An extra tool.")
        await ctx.session.send_tool_list_changed()
        return "grown"

    @server.resource("notes://today")
    def today() -> str:
        """Today's notes."""
        return "buy milk"

    @server.prompt()
    def review(topic: str) -> str:
        """Ask for a review."""
        return f"Please review {topic} carefully."

    return server


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--http", type=int)
    parser.add_argument("--hang", action="store_true")
    parser.add_argument("--crash-marker")
    parser.add_argument("--name", default="demo")
    args = parser.parse_args()
    if args.hang:
        sys.stdin.read()
        return
    server = build(args.crash_marker, args.name)
    if args.http:
        server.run("streamable-http", host="127.0.0.1", port=args.http)
    else:
        server.run()


if __name__ == "__main__":
    main()
