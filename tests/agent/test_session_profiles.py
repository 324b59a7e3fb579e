"""The session with a provider profile: the profile's tools and request defaults,
a system prompt built once and kept byte-stable, rebuilt when an instruction file changes, and
permission rules and summaries that read taor's argument names through the profile's tools."""

from __future__ import annotations

from taor.agent.config import PermissionConfig, SessionConfig
from taor.agent.events import PermissionDecision, SystemPromptChanged, ToolCallStart
from taor.agent.profiles import SUBAGENT_TOOLS, profile_for
from taor.agent.session import Session
from taor.agent.setup import default_tools
from taor.env.memory import MemoryEnvironment
from taor.testing import ScriptedModel, text, tool_calls

from .loop_support import collect, of

BYPASS = SessionConfig(permissions=PermissionConfig(mode="bypass"))


def claude(*steps: object) -> ScriptedModel:
    return ScriptedModel(list(steps), provider="anthropic", model_id="claude-sonnet-4-5")


async def test_a_session_takes_its_models_profile() -> None:
    model = claude(text("hi"), text("again"))
    env = MemoryEnvironment(files={"AGENTS.md": "Always run the tests.\n"})
    async with Session(model, environment=env, config=BYPASS) as s:
        assert s.profile is not None and s.profile.id == "anthropic"
        wanted = [*profile_for("anthropic").tool_names(), *SUBAGENT_TOOLS]
        assert sorted(s.tools.names()) == sorted(wanted)
        await s.run("hello")
        await s.run("and again")
    first, second = model.requests
    assert first.max_tokens == profile_for("anthropic").max_output_tokens
    assert "<environment>" in first.system and "Always run the tests." in first.system
    assert first.system == second.system  # byte-stable across turns
    assert first.system.startswith(profile_for("anthropic").base_prompt.strip()[:40])


async def test_a_test_double_gets_no_profile_and_taors_own_tools() -> None:
    async with Session(
        ScriptedModel([text("hi")]), environment=MemoryEnvironment(), config=BYPASS
    ) as s:
        assert s.profile is None
        assert s.tools.names() == [t.name for t in default_tools()]
        await s.run("hello")


async def test_the_configs_system_prompt_replaces_the_built_one() -> None:
    model = claude(text("hi"))
    config = SessionConfig(system_prompt="You are terse.", instructions="ignored here")
    async with Session(model, environment=MemoryEnvironment(), config=config) as s:
        await s.run("hello")
    assert model.requests[0].system == "You are terse."


async def test_user_instructions_come_last() -> None:
    model = claude(text("hi"))
    config = SessionConfig(instructions="Answer in French.")
    async with Session(
        model, environment=MemoryEnvironment(files={"AGENTS.md": "Be careful."}), config=config
    ) as s:
        await s.run("hello")
    system = model.requests[0].system
    assert system.index("Be careful.") < system.index("Answer in French.")


async def test_a_changed_instruction_file_rebuilds_the_prompt_with_an_event() -> None:
    model = claude(text("one"), text("two"), text("three"))
    env = MemoryEnvironment(files={"AGENTS.md": "Rule one.\n"})
    async with Session(model, environment=env, config=BYPASS) as s:
        await s.run("first")
        env.put("AGENTS.md", "Rule one.\nRule two, added later.\n")
        events = await collect(s, "second")
        assert [e.reason for e in of(events, SystemPromptChanged)] == [
            "a project instruction file changed"
        ]
        assert of(await collect(s, "third"), SystemPromptChanged) == []
    first, second, third = (r.system for r in model.requests)
    assert "Rule two" not in first and "Rule two" in second and second == third


async def test_permission_rules_and_summaries_read_profile_arguments_as_taors() -> None:
    edit = {"file_path": "src/app.py", "old_string": "a", "new_string": "b"}
    model = claude(tool_calls(("edit_file", edit)), text("could not"))
    config = SessionConfig(permissions=PermissionConfig(mode="bypass", deny=("edit_file(src/**)",)))
    env = MemoryEnvironment(files={"src/app.py": "a\n"})
    async with Session(model, environment=env, config=config) as s:
        events = await collect(s, "edit it")
    (start,) = of(events, ToolCallStart)
    assert start.summary == "edit_file: src/app.py"
    (decision,) = of(events, PermissionDecision)
    assert decision.decision == "deny" and decision.source == "rule"
    assert env.files["src/app.py"] == b"a\n"


async def test_rebuild_prompt_on_request() -> None:
    model = claude(text("one"))
    env = MemoryEnvironment()
    async with Session(model, environment=env, config=BYPASS) as s:
        events = s.events()
        env.put("AGENTS.md", "New rule.")
        await s.rebuild_prompt()
        await s.run("go")
        kinds = []
        async for event in events:
            kinds.append(event.kind)
            if event.kind == "processing_end":
                break
    assert "system_prompt_changed" in kinds
    assert "New rule." in model.requests[0].system
