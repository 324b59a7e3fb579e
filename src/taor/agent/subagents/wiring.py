"""Subagents wired into a ``Session``: which sessions offer them, how a child is
built, and how a host's answer reaches a child's permission request.

A session offers ``spawn_agent``, ``send_input``, ``wait`` and ``close_agent`` when
``SessionConfig.subagents`` is True, or when it is None (the default) and the session's profile
lists them (``Profile.subagent_tools``) and the host did not give its own tool set (given tools
are the whole set). ``max_subagent_depth`` 0 turns them off; 1 (the default) lets the session's
children work but not spawn.

A child is a ``Session`` with its own history built from the parent as it is at spawn time: its
model (or the override: the parent's model when the string names it, else connected and owned
by the child), profile, config (limits tightened per spawn), tools (without the subagent tools,
unless the child may spawn), hooks, ``can_use_tool`` and catalog, and the parent's environment
(shared, scoped to ``working_dir`` when the spawn gives one). The files a child changes are
checkpointed in its parent's checkpoints, in the parent's current turn. Its events reach the parent's
channel tagged with its id (``SubagentManager``); the parent closes its children before it
releases its environment and emits ``session_end``.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable

from taor.agent.config import SessionConfig
from taor.agent.parts import Parent
from taor.agent.policy.decisions import Decision
from taor.agent.profiles import Profile
from taor.agent.subagents import (
    SUBAGENT_TOOL_NAMES,
    ChildFactory,
    ChildSession,
    ChildSpec,
    SubagentManager,
    subagent_tools,
)
from taor.agent.subagents.child import Publish
from taor.errors import UnknownIdError
from taor.llm.model import Model

MakeSession = Callable[..., ChildSession]  # the Session class, passed in by the session itself


def offered_tools(
    config: SessionConfig, profile: Profile | None, *, tools_given: bool
) -> tuple[str, ...]:
    """The names of the subagent tools a session registers (empty: it offers none)."""
    if config.subagents is False or config.max_subagent_depth < 1:
        return ()
    wanted = profile.subagent_tools if profile is not None else ()
    if config.subagents:
        return wanted or SUBAGENT_TOOL_NAMES
    return () if tools_given else wanted


def attach_subagents(
    rt: Parent,
    profile: Profile | None,
    publish: Publish,
    *,
    tools_given: bool,
    make_session: MakeSession,
) -> SubagentManager | None:
    """A manager for the session's children with its tools registered on ``rt.tools``, or
    None when the session offers no subagents."""
    names = offered_tools(rt.config, profile, tools_given=tools_given)
    if not names:
        return None
    manager = SubagentManager(
        child_factory(rt, profile, make_session),
        rt.environment,
        publish=publish,
        max_depth=rt.config.max_subagent_depth,
    )
    for tool in subagent_tools(manager):
        if tool.name in names:
            rt.tools.register(tool)
    return manager


def child_factory(rt: Parent, profile: Profile | None, make_session: MakeSession) -> ChildFactory:
    """Builds each child from the parent's runtime as it is when the child is spawned."""

    def build(spec: ChildSpec) -> ChildSession:
        config = dataclasses.replace(spec.config(rt.config), subagents=False)
        child = make_session(
            child_model(rt.model, spec.model),
            environment=spec.environment,
            tools=spec.tools(rt.tools),  # the child's own subagent tools come with the spec
            config=config,
            history=spec.history,
            hooks=rt.hooks,
            can_use_tool=rt.can_use_tool,
            catalog=rt.catalog,
            session_id=f"{rt.session_id}.{spec.agent_id}",
            profile=profile,
        )
        child.lend_checkpoints(rt.checkpoints)
        return child

    return build


def child_model(parent: Model, override: str | None) -> Model | str:
    """The parent's model unless ``override`` names another (``provider:model`` or a model
    id); a string is connected by the child's ``Session``, which then owns the model."""
    if override is None or not override.strip():
        return parent
    if override in (parent.model_id, f"{parent.provider}:{parent.model_id}"):
        return parent
    if override == parent.provider == "local" and parent.model_id == _default_local():
        return parent  # "local" names the default local model: share its server
    return override


def _default_local() -> str:
    from taor.llm.local.known import DEFAULT

    return DEFAULT


def decide_for_child(
    manager: SubagentManager | None,
    request_id: str,
    decision: Decision | str,
    message: str,
    agent_id: str,
) -> None:
    """Answer a child's permission request: the child named by ``agent_id`` (as tagged on the
    event, ``child/grandchild`` for deeper ones), or the first child with ``request_id``
    pending. ``KeyError`` when no child has it."""
    if manager is None:
        raise UnknownIdError(f"no pending permission request {request_id!r}")
    if agent_id:
        manager.decide(agent_id, request_id, decision, message)
    else:
        manager.decide_pending(request_id, decision, message)
