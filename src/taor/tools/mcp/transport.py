"""The two ways to reach a server, as the SDK's stream pair: ``connect_streams``.

A stdio server runs through ``Environment.spawn`` (the environment's variable policy and its
sandbox hold it, like any command), its stdout read line by line into the SDK's read stream and
the SDK's messages written to its stdin; ``Exited`` is set when its stdout ends (it exited or
closed it), which is how the supervisor learns it died. An HTTP server goes through the SDK's
streamable HTTP client with the configured headers.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator

import anyio
from mcp import types
from mcp.client._transport import TransportStreams
from mcp.shared.message import SessionMessage

from taor.env.base import Environment, Spawned
from taor.tools.mcp.config import McpServerConfig


@contextlib.asynccontextmanager
async def connect_streams(
    config: McpServerConfig, environment: Environment, exited: asyncio.Event
) -> AsyncIterator[tuple[TransportStreams, Spawned | None]]:
    """The stream pair to ``config``'s (expanded) server, and its process when it has one."""
    if config.url:
        async with http_streams(config) as streams:
            yield streams, None
        return
    process = await environment.spawn(
        [config.command, *config.args], cwd=config.cwd, env=dict(config.env) or None
    )
    try:
        async with spawned_streams(process, exited) as streams:
            yield streams, process
    finally:
        with anyio.CancelScope(shield=True):
            await process.terminate()


@contextlib.asynccontextmanager
async def http_streams(config: McpServerConfig) -> AsyncIterator[TransportStreams]:
    from mcp.client.streamable_http import streamable_http_client
    from mcp.shared._httpx_utils import create_mcp_http_client

    client = create_mcp_http_client(headers=dict(config.headers) or None)
    async with client, streamable_http_client(config.url, http_client=client) as streams:
        yield streams


@contextlib.asynccontextmanager
async def spawned_streams(
    process: Spawned, exited: asyncio.Event
) -> AsyncIterator[TransportStreams]:
    read_send, read_receive = anyio.create_memory_object_stream[SessionMessage | Exception](0)
    write_send, write_receive = anyio.create_memory_object_stream[SessionMessage](0)

    async def read() -> None:
        async with read_send:
            try:
                while line := await process.read_line():
                    if line.strip():
                        await read_send.send(parse_line(line))
            except (anyio.ClosedResourceError, anyio.BrokenResourceError):
                return
            except Exception as error:  # a line over the limit, a broken pipe
                with contextlib.suppress(anyio.ClosedResourceError, anyio.BrokenResourceError):
                    await read_send.send(error)
            finally:
                exited.set()

    async def write() -> None:
        async with write_receive:
            try:
                async for message in write_receive:
                    text = message.message.model_dump_json(by_alias=True, exclude_unset=True)
                    await process.write(text + "\n")
            except Exception:  # the server stopped reading: the session sees the end
                await read_send.aclose()

    async with anyio.create_task_group() as group:
        group.start_soon(read)
        group.start_soon(write)
        try:
            yield read_receive, write_send
        finally:
            group.cancel_scope.cancel()


def parse_line(line: bytes) -> SessionMessage | Exception:
    try:
        return SessionMessage(types.jsonrpc_message_adapter.validate_json(line, by_name=False))
    except ValueError as error:
        return error
