"""The permission policy: may this tool call run now, must it be denied, or must someone be asked?

``PermissionPolicy.decide`` settles a call in this order:

1. **Deny rules** (``PermissionConfig.deny`` and rules added with ``allow=False``): deny wins,
   in every mode, also over read-only tools.
2. **Plan mode** is strict: only read-only tools run; anything else is denied with a message
   that tells the model it is in plan mode and should present a plan (allow rules do not lift it).
3. **Allow rules** (``PermissionConfig.allow`` and rules added since).
4. **The mode**: ``bypass`` allows everything; ``accept_edits`` allows read-only tools and file
   edits (the calls whose tool declares them file edits, or the tools named in ``edit_tools``
   when it is given) and asks for the rest; ``default`` allows read-only tools and asks for
   everything else.

A call's subjects and whether it is a file edit are what its tool declares
(``taor.tools.effects.Effects``, passed as ``effects``); a call passed without them gets the
declaration of the built-in tool of its name.

Rule syntax and matching are in ``taor.agent.policy.rules``; what a pattern is matched against (a call's
subjects) in ``taor.agent.policy.subjects``. The policy is pure logic: it asks no one and does no I/O.
The session turns ``ask`` into a ``permission_request`` (or a ``can_use_tool`` call, or the
headless default).

"Allow always" is ``allow_always(name, arguments)``: it adds rules for exactly this call's
subjects: ``shell(git status)`` (one rule per simple command of a compound command),
``edit_file(src/app.py)`` (one per file of a patch; ``./name`` for a file at the top), and for
a tool whose subject is its JSON arguments the bare tool name (the tool is allowed from then on).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, Literal

from taor._records import frozen
from taor.agent.config import PermissionConfig
from taor.agent.policy.rules import Rule, allowing_rules, denying_rule, escape, parse_rule
from taor.agent.policy.shell_split import split_command
from taor.agent.policy.subjects import NO_SPECS, SubjectSpec, is_outside, spec_of, subjects_of
from taor.tools.effects import Effects

Decision = Literal["allow", "deny", "ask"]
VerdictSource = Literal["rule", "mode"]

PLAN_MODE_MESSAGE = (
    "Plan mode is on (read-only): {name} was not run because only read-only tools may run. "
    "Investigate with read-only tools, then present your plan to the user; make changes only "
    "after they approve it and leave plan mode."
)


@frozen
class Verdict:
    """``reason`` is written for the model and the host; ``rule`` is the rule that decided."""

    decision: Decision
    source: VerdictSource
    reason: str
    rule: Rule | None = None


class PermissionPolicy:
    """Decides tool calls from a ``PermissionConfig`` plus the rules added while a session runs."""

    def __init__(
        self,
        config: PermissionConfig | None = None,
        *,
        edit_tools: Iterable[str] | None = None,
        subjects: Mapping[str, SubjectSpec] = NO_SPECS,
        workspace: str | None = None,
    ) -> None:
        self._edit_tools = None if edit_tools is None else frozenset(edit_tools)
        self._subjects = subjects
        self._workspace = workspace
        self._added: dict[bool, list[Rule]] = {True: [], False: []}
        self.configure(config or PermissionConfig())

    @property
    def config(self) -> PermissionConfig:
        return self._config

    def configure(self, config: PermissionConfig) -> None:
        """Use a new config (mode and rules); rules added with ``add_rule`` stay."""
        allow = tuple(parse_rule(text) for text in config.allow)
        deny = tuple(parse_rule(text) for text in config.deny)
        self._config, self._allow, self._deny = config, allow, deny

    def rules(self, *, allow: bool) -> tuple[Rule, ...]:
        """The allow (or deny) rules in force: the config's first, then the added ones."""
        return (self._allow if allow else self._deny) + tuple(self._added[allow])

    def decide(
        self,
        name: str,
        arguments: Mapping[str, Any],
        *,
        read_only: bool,
        effects: Effects | None = None,
    ) -> Verdict:
        """``arguments`` by the executor's names; ``effects``: what the tool declares for them."""
        spec = spec_of(name, arguments, effects, self._subjects)
        style, found = spec.style, subjects_of(spec, arguments, self._workspace)
        denying = denying_rule(self.rules(allow=False), name, found, style)
        if denying is not None:
            reason = f"The permission rule {denying} denies this call."
            return Verdict(decision="deny", source="rule", reason=reason, rule=denying)
        if self._config.mode == "plan" and not read_only:
            return Verdict(
                decision="deny", source="mode", reason=PLAN_MODE_MESSAGE.format(name=name)
            )
        allowing = allowing_rules(self.rules(allow=True), name, found, style)
        if allowing:
            plural = "s" if len(allowing) > 1 else ""
            reason = f"Allowed by the rule{plural} " + ", ".join(map(str, allowing)) + "."
            return Verdict(decision="allow", source="rule", reason=reason, rule=allowing[0])
        return self._by_mode(name, arguments, read_only=read_only, effects=effects)

    def _is_edit(self, name: str, arguments: Mapping[str, Any], effects: Effects | None) -> bool:
        if self._edit_tools is not None:
            return name in self._edit_tools
        if effects is None:
            from taor.tools.builtin import builtin_effects  # only a call without its declaration

            effects = builtin_effects(name, arguments)
        return effects.file_edit

    def _by_mode(
        self, name: str, arguments: Mapping[str, Any], *, read_only: bool, effects: Effects | None
    ) -> Verdict:
        mode = self._config.mode
        if mode == "bypass":
            return Verdict(decision="allow", source="mode", reason="The mode bypass allows all.")
        if read_only:
            return Verdict(decision="allow", source="mode", reason=f"{name} is read-only.")
        if mode == "accept_edits" and self._is_edit(name, arguments, effects):
            reason = f"{name} edits files and the mode is accept_edits."
            return Verdict(decision="allow", source="mode", reason=reason)
        what = "neither read-only nor a file edit" if mode == "accept_edits" else "not read-only"
        reason = f"{name} is {what}; the permission mode {mode} asks before it runs."
        return Verdict(decision="ask", source="mode", reason=reason)

    def add_rule(self, rule: str | Rule, *, allow: bool = True) -> Rule:
        """Add an allow (or deny) rule for the rest of the session; returns it, parsed."""
        parsed = parse_rule(rule) if isinstance(rule, str) else rule
        if parsed not in self._added[allow]:
            self._added[allow].append(parsed)
        return parsed

    def allow_always(
        self, name: str, arguments: Mapping[str, Any], *, effects: Effects | None = None
    ) -> tuple[Rule, ...]:
        """Add the rules ``exact_rules`` gives for this call; returns them."""
        rules = self.exact_rules(name, arguments, effects=effects)
        return tuple(self.add_rule(rule) for rule in rules)

    def exact_rules(
        self, name: str, arguments: Mapping[str, Any], *, effects: Effects | None = None
    ) -> tuple[Rule, ...]:
        """Rules that allow exactly this call again (see the module docstring)."""
        spec = spec_of(name, arguments, effects, self._subjects)
        found = subjects_of(spec, arguments, self._workspace)
        if spec.style == "command":
            parts = [p.text for command in found for p in split_command(command)]
            return tuple(Rule(tool=name, pattern=escape(p, "command")) for p in parts)
        if spec.style == "path":
            return tuple(Rule(tool=name, pattern=_exact_path(p)) for p in found)
        return (Rule(tool=name),)


def _exact_path(path: str) -> str:
    if path == ".":
        return "**"
    pattern = escape(path, "path")
    return pattern if "/" in path or is_outside(path) else "./" + pattern
