"""``taor build``: build a project from an idea brief, interview answers and a build plan, on
its own, narrating as it goes (``taor.build``).

    taor build --brief brief.md --qna interview.md --plan plan.md [--workspace DIR]
    taor build --continue [--workspace DIR]     # a build interrupted or killed goes on

The inputs are checked before any model is called (one line and exit 2 for a missing or empty
file, a plan with no steps, or inputs too big for the model). The build works in the workspace
(default: the current directory) with every tool allowed (``--permission-mode`` for less;
``--sandbox`` runs commands under bubblewrap), writes ``BUILD_REPORT.md`` there and prints the
narration: phases as headings, milestones, a line per tool call. Exit 0 when the plan was
carried out, 3 when the build stopped early (the tool-call cap, a repetition), 1 on an error,
130 when interrupted.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from taor.cli.args import UsageError, parser_for
from taor.errors import ConfigurationError, TaorError, brief
from taor.host.outcome import EXIT_ERROR, EXIT_INTERRUPTED, EXIT_USAGE

if TYPE_CHECKING:
    from taor.build.state import BuildState
    from taor.cli.build_render import BuildRenderer
    from taor.host.settings import Settings

EXIT_DONE, EXIT_INCOMPLETE = 0, 3
EPILOG = """The build writes BUILD_REPORT.md in the workspace.

exit codes:
  0    the plan was carried out
  1    error (provider, internal)
  2    usage error, or inputs that cannot be built (one line, before any model call)
  3    stopped early (the tool-call cap, or a repetition): taor build --continue goes on
  130  interrupted (SIGINT or SIGTERM): taor build --continue goes on"""


def _parser() -> argparse.ArgumentParser:
    p = parser_for(
        "taor build", "Build a project from a brief, interview answers and a plan.", EPILOG
    )
    p.add_argument("--brief", metavar="FILE", help="the founder's idea brief")
    p.add_argument("--qna", metavar="FILE", help="the understanding interview's answers")
    p.add_argument("--plan", metavar="FILE", help="the build plan, one step a line")
    p.add_argument("--workspace", metavar="DIR", help="where to build (default: here)")
    p.add_argument("--continue", dest="continue_", action="store_true",
                   help="go on with this workspace's last build, from its transcript")  # fmt: skip
    p.add_argument("--model", help="provider:model, or local")
    p.add_argument("--base-url", help="the provider's base URL")
    p.add_argument("--max-tool-calls", type=int, metavar="N", help="tool calls at most (150)")
    p.add_argument("--permission-mode", choices=("default", "accept_edits", "plan", "bypass"))
    p.add_argument("--sandbox", action="store_true", default=None, help="commands in bubblewrap")
    p.add_argument("--trust", action="store_true", help="trust the workspace for this run")
    p.add_argument("--output-format", choices=("text", "json", "stream-json"), default="text")
    return p


def run(argv: list[str]) -> int:
    try:
        args = _parser().parse_args(argv)
        state = _state(args)
        workspace = _workspace(args)
    except ConfigurationError as error:
        print(f"taor build: {error}", file=sys.stderr)
        return EXIT_USAGE
    from taor.cli.build_render import BuildRenderer
    from taor.host.settings.project import settings_for

    render = BuildRenderer(args.output_format, out=sys.stdout, err=sys.stderr)
    flags = {"model": args.model, "base_url": args.base_url, "sandbox": args.sandbox,
             "permissions.mode": args.permission_mode}  # fmt: skip
    import asyncio

    try:
        settings = settings_for(workspace, os.environ, flags=flags, trust=args.trust)
        return asyncio.run(_build(args, settings, state, workspace, render))
    except ConfigurationError as error:
        render.problem(str(error))
        return EXIT_USAGE
    except TaorError as error:
        render.problem(brief(str(error)))
        return EXIT_ERROR


def _state(args: argparse.Namespace) -> BuildState | None:
    """The inputs of a new build, checked; None for ``--continue`` (its own are read later)."""
    from taor.build.inputs import read_inputs
    from taor.build.state import BuildState

    given = [f for f in ("brief", "qna", "plan") if getattr(args, f)]
    if args.continue_:
        if given:
            raise UsageError("--continue goes on with the build's own brief, interview and plan: "
                             "leave out --brief, --qna and --plan")  # fmt: skip
        return None
    missing = [f"--{f}" for f in ("brief", "qna", "plan") if f not in given]
    if missing:
        raise UsageError(f"{' and '.join(missing)} needed (or --continue)")
    if args.max_tool_calls is not None and args.max_tool_calls < 1:
        raise UsageError("--max-tool-calls must be 1 or more")
    inputs = read_inputs(args.brief, args.qna, args.plan)
    return BuildState(
        inputs=inputs, title=_title(inputs.brief), max_tool_calls=args.max_tool_calls or 0
    )


def _title(text: str) -> str:
    first = next((line.strip(" #*") for line in text.splitlines() if line.strip()), "")
    return f"Build report: {first[:80]}" if first else "Build report"


def _workspace(args: argparse.Namespace) -> Path:
    root = Path(args.workspace or os.getcwd()).resolve()
    if args.workspace and not root.exists():
        root.mkdir(parents=True)
    if not root.is_dir():
        raise ConfigurationError(f"--workspace {args.workspace}: not a folder")
    return root


async def _build(
    args: argparse.Namespace,
    settings: Settings,
    state: BuildState | None,
    workspace: Path,
    render: BuildRenderer,
) -> int:
    from taor.agent.profiles import profile_id_for
    from taor.build.inputs import check_budget
    from taor.build.runner import MAX_TOOL_CALLS, BuildRun, ReportGuard, build_config, build_hooks
    from taor.build.state import load_state, newest_build, save_state
    from taor.cli.ending import on_signals
    from taor.host import sessions
    from taor.host.compose.hooks import hooks_from
    from taor.host.compose.model import model_from
    from taor.host.compose.session import (
        config_from,
        environment_from,
        open_session,
        profile_from,
    )
    from taor.llm.catalog import Catalog

    folder = sessions.sessions_dir(workspace)
    earlier = newest_build(folder) if state is None else None
    if state is None:
        assert earlier is not None
        state = load_state(earlier)
    model = model_from(settings)
    try:
        window = Catalog.default().lookup(model.provider, model.model_id).context_window
        check_budget(state.inputs, window, f"{model.provider}:{model.model_id}")
        base = config_from(settings)
        if args.permission_mode is None:  # a mode set for interactive work does not apply
            base = _bypass(base)
        cap = args.max_tool_calls or state.max_tool_calls or MAX_TOOL_CALLS
        profile = profile_from(settings)
        small = (profile_id_for(model) if profile == "auto" else settings.profile) == "small"
        config = build_config(base, state.inputs, max_tool_calls=cap, compact=small)
        guard = ReportGuard(state.inputs)
        hooks = build_hooks(guard, hooks_from(settings.hooks, workspace))
        environment = environment_from(workspace, settings)
        session = open_session(
            environment, model, config, earlier=earlier, hooks=hooks, profile=profile
        )
        if earlier is None:
            save_state(sessions.by_id([folder], session.id), state)
        interrupted = on_signals(session)
        build = BuildRun(
            session, workspace=workspace, guard=guard, title=state.title, inputs=state.inputs
        )
        try:
            async for event in build.run():
                render.event(event)
        finally:
            await session.close()
    finally:
        await model.aclose()
    report = build.report
    render.final(report, session.id)
    if interrupted.is_set():
        return EXIT_INTERRUPTED
    if report is None:
        return EXIT_ERROR
    if report.complete:
        return EXIT_DONE
    return EXIT_ERROR if report.why == "the model failed" else EXIT_INCOMPLETE


def _bypass(config: Any) -> Any:
    """A build acts on its own, with no one to ask: every tool allowed unless the person
    gives ``--permission-mode`` (the sandbox, ``--sandbox``, bounds what commands reach)."""
    import dataclasses

    return dataclasses.replace(
        config, permissions=dataclasses.replace(config.permissions, mode="bypass")
    )
