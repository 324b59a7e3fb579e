"""The service's request and response bodies (pydantic: FastAPI validates requests with them,
answers 422 naming the field and what it allows, and documents them in the OpenAPI schema)."""

from __future__ import annotations

import datetime
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

PermissionMode = Literal["default", "plan", "accept_edits", "bypass"]
Decision = Literal["allow", "allow_always", "deny"]


class _Body(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class Limits(_Body):
    max_turns: int | None = Field(default=None, ge=1, le=10_000, description="model calls at most")
    max_budget_usd: float | None = Field(
        default=None, gt=0, description="cost at most, in US dollars"
    )
    max_wall: float | None = Field(default=None, gt=0, description="seconds of wall time at most")


class Workspace(_Body):
    """Where the run works: a new empty folder (the default), a copy of a template folder the
    service knows, a clone of a git URL, or a host folder from the service's allowlist."""

    kind: Literal["empty", "template", "git", "host"] = "empty"
    template: str | None = Field(default=None, description="kind=template: the template's name")
    url: str | None = Field(default=None, description="kind=git: the repository to clone")
    ref: str | None = Field(default=None, description="kind=git: a branch, tag or commit")
    path: str | None = Field(default=None, description="kind=host: an allowed folder on the host")


class BuildSpec(_Body):
    """A build run's inputs (``taor.build``): the founder's idea brief, the understanding
    interview's answers, and the build plan it carries out in order."""

    brief: str = Field(..., min_length=1, max_length=200_000)
    qna: str = Field(..., min_length=1, max_length=200_000)
    plan: str = Field(..., min_length=1, max_length=200_000)
    max_tool_calls: int | None = Field(default=None, ge=1, le=10_000, description="150 if none")


class RunCreate(_Body):
    kind: Literal["agent", "build"] = Field(
        default="agent", description="agent: the prompt is the task; build: a build run"
    )
    prompt: str = Field(default="", max_length=200_000, description="the task (agent runs)")
    build: BuildSpec | None = Field(default=None, description="kind=build: its inputs")
    model: str | None = Field(
        default=None, description="provider:model; the service's default if none"
    )
    workspace: Workspace = Field(default_factory=Workspace)
    limits: Limits = Field(default_factory=Limits)
    permission_mode: PermissionMode = "default"
    allow: tuple[str, ...] = Field(
        default=(), max_length=200, description="rules: shell(git *), ..."
    )
    deny: tuple[str, ...] = Field(default=(), max_length=200)
    metadata: dict[str, Any] = Field(default_factory=dict, description="kept, never read")

    @model_validator(mode="after")
    def _inputs_of_the_kind(self) -> RunCreate:
        if self.kind == "build" and self.build is None:
            raise ValueError("a build run needs build: {brief, qna, plan}")
        if self.kind == "agent" and not self.prompt.strip():
            raise ValueError("prompt: the task, at least one character")
        if self.kind == "agent" and self.build is not None:
            raise ValueError("build: only for kind=build")
        return self


class Text(_Body):
    text: str = Field(..., min_length=1, max_length=200_000)


class OptionalText(_Body):
    text: str | None = Field(default=None, max_length=200_000, description="an input to add")


class PermissionAnswer(_Body):
    decision: Decision
    message: str = Field(default="", max_length=10_000, description="why, for the model (deny)")


class PendingPermission(BaseModel):
    request_id: str
    tool: str
    summary: str
    arguments: dict[str, Any] = Field(default_factory=dict, description="the call's arguments")
    command: str | None = Field(default=None, description="a shell call: its whole command")
    diff: str | None = Field(default=None, description="an edit: the unified diff it would make")
    reason: str = ""
    rules: list[str] = Field(default_factory=list, description="what allow_always would add")


class RunView(BaseModel):
    id: str
    user: str
    status: str
    prompt: str
    model: str
    workspace: str
    created_at: datetime.datetime
    started_at: datetime.datetime | None = None
    finished_at: datetime.datetime | None = None
    usage: dict[str, Any] | None = None
    cost: float | None = None
    stop_reason: str | None = None
    error: str | None = None
    queue_position: int | None = Field(
        default=None, description="while queued: runs ahead of it, +1"
    )
    pending: list[PendingPermission] = Field(default_factory=list)
    metadata: dict[str, Any] = Field(default_factory=dict)


class RunPage(BaseModel):
    runs: list[RunView]
    next: str | None = Field(default=None, description="pass as ?after= for the next page")
