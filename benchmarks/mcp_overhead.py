"""What taor's MCP client adds: per call, and at start-up.

    python benchmarks/mcp_overhead.py            # 300 calls, 5 start-ups
    python benchmarks/mcp_overhead.py --quick    # smoke run: 50 calls, 1 start-up

- call: one ``tools/call`` of a read-only ``echo`` on a stdio server written with the SDK's
  MCPServer (``_mcp_server.py``), through taor's client as a session runs it
  (``ToolRegistry.execute``: the arguments validated against the server's schema, the call made
  through ``McpServer`` over ``Environment.spawn``, the result made a ``ToolOutput``), against
  the same call on the bare SDK client (``stdio_client`` + ``ClientSession.call_tool``) to
  another process of the same server. Calls interleaved; the ratio is the median of the ratios
  of neighbouring calls. Target: <= 1.2x.
- start-up: five servers, four healthy and one that never answers (its ``startup_timeout``:
  ``--hang-timeout``, 1 s), started by ``McpServers.start`` as a session does, against the
  slowest healthy server's own start (spawn, initialize, list tools) when the four start
  together on the bare SDK client beside a hanging one (the same processes on the same cores). Target: within that + 100
  ms (the median of the differences over the pairs, which one runs first alternating); and the
  hanging server given up no later than its timeout + 100 ms (the worst of the runs).

It ends with ``RESULT <name>=<value> target=<value>`` lines.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import statistics
import sys
import time
from pathlib import Path

from mcp import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client

from taor.env.local import LocalEnvironment
from taor.llm.types import ToolCallPart
from taor.tools.base import ToolContext
from taor.tools.mcp.config import McpServerConfig
from taor.tools.mcp.server import McpServer
from taor.tools.mcp.servers import McpServers
from taor.tools.registry import ToolRegistry

sys.path.insert(0, str(Path(__file__).resolve().parent))
from tools_overhead import interleaved  # (a script beside this one)

SERVER = str(Path(__file__).parent / "_mcp_server.py")
TEXT = "x" * 256


def config(name: str, *extra: str, timeout: float = 30.0) -> McpServerConfig:
    return McpServerConfig(
        name=name, command=sys.executable, args=(SERVER, *extra), startup_timeout=timeout
    )


@contextlib.asynccontextmanager
async def bare_session():  # type: ignore[no-untyped-def]
    params = StdioServerParameters(command=sys.executable, args=[SERVER])
    async with stdio_client(params) as streams, ClientSession(*streams) as session:
        await session.initialize()
        await session.list_tools()
        yield session


async def per_call(calls: int) -> tuple[float, float, float]:
    environment = LocalEnvironment(str(Path.cwd()))
    await environment.initialize()
    server = McpServer(config("bench"), environment=environment)
    await server.start()
    registry = ToolRegistry(sources=[server])
    call = ToolCallPart(id="c1", name="mcp__bench__echo", arguments={"text": TEXT})
    context = ToolContext(environment=environment, call_id="c1")
    try:
        async with bare_session() as session:

            async def taor_call() -> None:
                output = await registry.execute(call, context)
                assert output.text == TEXT, output

            async def sdk_call() -> None:
                result = await session.call_tool("echo", {"text": TEXT})
                assert result.content[0].text == TEXT  # type: ignore[union-attr]

            for _ in range(4):  # warm up both (``interleaved`` adds a fifth round)
                await taor_call()
                await sdk_call()
            return await interleaved(taor_call, sdk_call, calls)
    finally:
        await server.close()
        await environment.cleanup()


async def bare_starts(healthy: int) -> float:
    """The slowest own start (ms) of ``healthy`` servers started together on the bare SDK,
    beside a hanging one (started too, so both sides run the same processes)."""

    async def one() -> float:
        t0 = time.perf_counter()
        async with bare_session():
            return (time.perf_counter() - t0) * 1000

    hanging = await asyncio.create_subprocess_exec(
        sys.executable, SERVER, "--hang", stdin=asyncio.subprocess.PIPE
    )
    try:
        return max(await asyncio.gather(*(one() for _ in range(healthy))))
    finally:
        hanging.kill()
        await hanging.wait()


async def taor_start(healthy: int, hang_timeout: float) -> tuple[float, float]:
    """Wall ms of ``McpServers.start`` over the healthy servers and a hanging one, and when the
    hanging one was given up (ms from the start)."""
    environment = LocalEnvironment(str(Path.cwd()))
    await environment.initialize()
    configs = [config(f"ok{i}") for i in range(healthy)]
    configs.append(config("hang", "--hang", timeout=hang_timeout))
    given_up: list[float] = []
    t0 = time.perf_counter()

    def on_status(state) -> None:  # type: ignore[no-untyped-def]
        if state.server == "hang" and state.status == "failed":
            given_up.append((time.perf_counter() - t0) * 1000)

    servers = McpServers(configs, environment=environment, on_status=on_status)
    await servers.start()
    took = (time.perf_counter() - t0) * 1000
    connected = [s for s in servers.servers.values() if s.state.status == "connected"]
    assert len(connected) == healthy, [s.state for s in servers.servers.values()]
    await servers.close()
    await environment.cleanup()
    return took, given_up[0]


async def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--quick", action="store_true")
    p.add_argument("--calls", type=int, default=300)
    p.add_argument("--starts", type=int, default=5)
    p.add_argument("--hang-timeout", type=float, default=1.0)
    args = p.parse_args()
    calls, starts = (50, 1) if args.quick else (args.calls, args.starts)
    taor_ms, sdk_ms, ratio = await per_call(calls)
    print(
        f"call: taor {taor_ms:.2f} ms, bare SDK {sdk_ms:.2f} ms, ratio {ratio:.2f} ({calls} calls)"
    )
    over, waits = [], []
    for rep in range(starts):  # each pair under the same load, which goes first alternating
        if rep % 2:
            took, given_up = await taor_start(4, args.hang_timeout)
            slowest = await bare_starts(4)
        else:
            slowest = await bare_starts(4)
            took, given_up = await taor_start(4, args.hang_timeout)
        over.append(took - slowest)
        waits.append(given_up)
        print(
            f"start-up: taor {took:.0f} ms for 5 servers (hanging one given up at "
            f"{given_up:.0f} ms), slowest healthy own start {slowest:.0f} ms"
        )
    limit = args.hang_timeout * 1000
    print(f"RESULT mcp_call_vs_sdk={ratio:.2f} target=1.2")
    print(f"RESULT mcp_startup_over_slowest_ms={statistics.median(over):.0f} target=100")
    print(f"RESULT mcp_hang_given_up_over_timeout_ms={max(waits) - limit:.0f} target=100")


if __name__ == "__main__":
    asyncio.run(main())
