"""A permission request put to the MCP client as an elicitation (a form with one choice:
allow, allow_always or deny), and its answer read back. A client that declared no elicitation
gets no question: the call is denied, with a message that says how to allow it instead."""

from __future__ import annotations

from typing import Any

import mcp_types as types

from taor.agent.events import PermissionRequest

CHOICES = ("allow", "allow_always", "deny")
SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "decision": {
            "type": "string",
            "title": "Decision",
            "description": "allow this call; allow it and calls like it for the rest of the "
            "task; or deny it (the model is told and may try something else)",
            "enum": list(CHOICES),
        }
    },
    "required": ["decision"],
}
NO_ELICITATION = (
    "denied: the MCP client cannot answer permission requests (it has no elicitation); "
    "start `taor mcp serve` with --allow RULE or --permission-mode to allow such calls"
)
LONGEST_DIFF = 4000  # characters of an edit's diff shown in the question


def can_ask(capabilities: types.ClientCapabilities | None) -> bool:
    """Whether the client takes form elicitations (an empty capability means forms)."""
    elicitation = capabilities.elicitation if capabilities is not None else None
    return elicitation is not None and (elicitation.form is not None or elicitation.url is None)


def question(request: PermissionRequest) -> types.ElicitRequestFormParams:
    lines = [f"taor wants to run {request.summary or request.name}"]
    if request.reason:
        lines.append(request.reason)
    if request.rules:
        lines.append(f"allow_always adds: {', '.join(request.rules)}")
    if request.diff:
        diff = request.diff
        lines.append(diff if len(diff) <= LONGEST_DIFF else diff[:LONGEST_DIFF] + "\n[…]")
    return types.ElicitRequestFormParams(message="\n".join(lines), requested_schema=SCHEMA)


def decision(answer: types.ElicitResult) -> tuple[str, str]:
    """The session's decision and its message for the model, from the client's answer."""
    if answer.action != "accept":
        done = "declined" if answer.action == "decline" else "dismissed"
        return "deny", f"the person {done} the request through the MCP client"
    chosen = (answer.content or {}).get("decision")
    if chosen not in CHOICES:
        return "deny", f"the MCP client answered {chosen!r}, not one of {', '.join(CHOICES)}"
    return str(chosen), "" if chosen != "deny" else "denied through the MCP client"
