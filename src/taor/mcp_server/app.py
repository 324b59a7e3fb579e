"""The MCP server: one tool, ``run_task``, that runs a task in a folder and returns the agent's
final text. While it works the call sends progress notifications (``progress``); a permission
request becomes an elicitation (``asking``): asked within the call on the handshake-era
protocol, returned as an ``InputRequiredResult`` on the 2026 one (the client answers and calls
again; the job waits in ``Jobs`` meanwhile). A cancelled call stops its task."""

from __future__ import annotations

from typing import Annotated, Any

import anyio
import mcp_types as types
from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp_types.version import MODERN_PROTOCOL_VERSIONS
from pydantic import Field

from taor._version import __version__
from taor.errors import ConfigurationError
from taor.mcp_server.asking import NO_ELICITATION, can_ask, decision, question
from taor.mcp_server.job import Ask, Done, Job, Jobs, Progress
from taor.mcp_server.task import Defaults, Task, compose

INSTRUCTIONS = (
    "taor runs coding-agent tasks: run_task gives a task to an agent working in a folder "
    "(reading and editing files, running commands) and returns its final answer. It asks "
    "before it acts where the person's permission rules say so."
)
DESCRIPTION = (
    "Run a coding task with taor's agent in a folder and return its final answer. Progress "
    "comes as notifications; permission requests come as elicitations (denied when the client "
    "cannot answer them)."
)
ANSWER = "permission"  # the key of the one input request a round asks


def build(defaults: Defaults, jobs: Jobs) -> MCPServer:
    server = MCPServer("taor", version=__version__, instructions=INSTRUCTIONS, log_level="WARNING")
    annotations = types.ToolAnnotations(
        title="Run a task with taor", destructive_hint=True, open_world_hint=True
    )

    @server.tool(name="run_task", description=DESCRIPTION, annotations=annotations)
    async def run_task(
        task: Annotated[str, Field(description="what the agent should do", min_length=1)],
        ctx: Context,
        folder: Annotated[
            str | None,
            Field(description="the folder to work in (default: where the server started)"),
        ] = None,
        model: Annotated[
            str | None, Field(description="provider:model (default: the person's settings)")
        ] = None,
        max_turns: Annotated[int | None, Field(ge=1, description="most model calls")] = None,
        max_budget_usd: Annotated[float | None, Field(gt=0, description="most cost")] = None,
        max_wall: Annotated[float | None, Field(gt=0, description="most seconds")] = None,
    ) -> types.CallToolResult | types.InputRequiredResult:
        call = Task(
            text=task,
            folder=folder,
            model=model,
            max_turns=max_turns,
            max_budget_usd=max_budget_usd,
            max_wall=max_wall,
        )
        return await _call(call, ctx, defaults, jobs)

    return server


async def _call(
    call: Task, ctx: Context, defaults: Defaults, jobs: Jobs
) -> types.CallToolResult | types.InputRequiredResult:
    job = _resumed(ctx, jobs) if ctx.request_state else _started(call, defaults, jobs)
    try:
        return await _drive(job, ctx, jobs)
    except BaseException:  # cancelled by the client, or its connection went away
        with anyio.CancelScope(shield=True):
            await jobs.drop(job)
        raise


def _started(call: Task, defaults: Defaults, jobs: Jobs) -> Job:
    try:
        job = compose(call, defaults)
    except ConfigurationError as error:
        raise ToolError(str(error)) from None
    jobs.add(job)
    job.start(call.text)
    return job


def _resumed(ctx: Context, jobs: Jobs) -> Job:
    """The job a retry carries on, its question answered from the retry's responses."""
    job = jobs.take(ctx.request_state or "")
    if job is None or job.waiting is None:
        raise ToolError("this task is no longer waiting for an answer; run it again")
    answer = (ctx.input_responses or {}).get(ANSWER)
    if isinstance(answer, types.ElicitResult):
        job.decide(job.waiting, *decision(answer))
    else:
        job.decide(job.waiting, "deny", "the MCP client sent no answer to the permission request")
    return job


async def _drive(
    job: Job, ctx: Context, jobs: Jobs
) -> types.CallToolResult | types.InputRequiredResult:
    while True:
        item = await job.next()
        if isinstance(item, Progress):
            job.step += 1
            await ctx.report_progress(job.step, None, item.text)
        elif isinstance(item, Ask):
            if not can_ask(ctx.client_capabilities):
                job.decide(item.request, "deny", NO_ELICITATION)
            elif ctx.protocol_version in MODERN_PROTOCOL_VERSIONS:
                jobs.park(job)
                asked = types.ElicitRequest(params=question(item.request))
                return types.InputRequiredResult(
                    input_requests={ANSWER: asked}, request_state=job.handle
                )
            else:
                job.decide(item.request, *await _ask(ctx, item))
        elif isinstance(item, Done):
            await jobs.drop(job)
            return result(item.summary)


async def _ask(ctx: Context, item: Ask) -> tuple[str, str]:
    """The client's answer to one question, asked within the call."""
    params = question(item.request)
    try:
        answer = await ctx.session.elicit_form(
            params.message, params.requested_schema, related_request_id=ctx.request_id
        )
    except Exception as error:  # the client failed to answer: a denial, with its reason
        return "deny", f"the MCP client could not answer: {error}"
    return decision(answer)


def result(summary: dict[str, Any]) -> types.CallToolResult:
    """The agent's final text, what stopped it when it did not finish, and the whole summary."""
    lines = [summary["result"]] if summary["result"] else []
    stop = summary["stop_reason"]
    if summary["error"]:
        lines.append(f"error: {summary['error']}")
    elif stop != "completed":
        lines.append(f"(stopped: {stop})")
    if summary["permission_denials"]:
        denied = ", ".join(d["tool"] for d in summary["permission_denials"])
        lines.append(f"(denied: {denied})")
    return types.CallToolResult(
        content=[types.TextContent(type="text", text="\n\n".join(lines) or "(no answer)")],
        structured_content=summary,
        is_error=bool(summary["error"]),
    )
