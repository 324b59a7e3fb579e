"""Provider profiles: tool sets, schemas, argument translation through a real ToolRegistry,
profile selection, and the registry's override rule for custom tools."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from jsonschema import Draft202012Validator

from taor.agent.profiles import (
    PROFILE_IDS,
    SUBAGENT_TOOLS,
    Profile,
    ProfiledTool,
    anthropic_profile,
    gemini_profile,
    openai_profile,
    profile_for,
    profile_id_for,
)
from taor.env import LocalEnvironment, MemoryEnvironment
from taor.llm.types import ToolCallPart
from taor.testing import ScriptedModel
from taor.tools.base import ToolContext, ToolOutput
from taor.tools.registry import ToolRegistry

EXPECTED_TOOLS = {
    "anthropic": ["read_file", "write_file", "edit_file", "shell", "grep", "glob"],
    "openai": ["read_file", "apply_patch", "write_file", "shell", "grep", "glob"],
    "gemini": [
        "read_file",
        "read_many_files",
        "write_file",
        "edit_file",
        "shell",
        "grep",
        "glob",
        "list_dir",
    ],
    "openai-compat": ["read_file", "write_file", "edit_file", "shell", "grep"],
    "small": ["read_file", "edit_file", "write_file", "shell"],
}
APP = "def greet(name):\n    return 'Hi ' + name\n\n\ndef main():\n    print(greet('x'))\n"


async def call(
    profile: Profile | ToolRegistry, env: Any, name: str, **arguments: object
) -> ToolOutput:
    registry = profile if isinstance(profile, ToolRegistry) else profile.registry()
    part = ToolCallPart(id=f"call_{name}", name=name, arguments=arguments)
    return await registry.execute(part, ToolContext(environment=env))


def run_timeouts(env: MemoryEnvironment) -> list[object]:
    return [c.arguments["timeout"] for c in env.log.calls if c.operation == "run"]


def run_commands(env: MemoryEnvironment) -> list[object]:
    return [c.arguments["command"] for c in env.log.calls if c.operation == "run"]


# tool sets and schemas


@pytest.mark.parametrize("profile_id", PROFILE_IDS)
def test_tool_names_are_exactly_the_issues(profile_id: str) -> None:
    profile = profile_for(profile_id)
    assert profile.id == profile_id
    assert profile.tool_names() == EXPECTED_TOOLS[profile_id]
    assert "apply_patch" not in anthropic_profile().tool_names()


@pytest.mark.parametrize("profile_id", PROFILE_IDS)
def test_schemas_are_valid_and_the_registry_accepts_them(profile_id: str) -> None:
    profile = profile_for(profile_id)
    registry = profile.registry()
    assert registry.names() == EXPECTED_TOOLS[profile_id]
    for definition in registry.definitions():
        Draft202012Validator.check_schema(dict(definition.parameters))
        assert definition.description
        assert definition.parameters["type"] == "object"


@pytest.mark.parametrize("profile_id", PROFILE_IDS)
def test_tools_are_fresh_instances_and_keep_the_executors_side_effects(profile_id: str) -> None:
    profile = profile_for(profile_id)
    first, second = profile.tools(), profile.tools()
    assert all(a is not b for a, b in zip(first, second, strict=True))
    for tool in first:
        assert isinstance(tool, ProfiledTool)
        assert tool.read_only == tool.executor.read_only
    read_only = {t.name for t in first if t.read_only}
    assert read_only <= {"read_file", "read_many_files", "grep", "glob", "list_dir"}


def test_native_argument_names() -> None:
    def props(profile: Profile, name: str) -> set[str]:
        tool = next(t for t in profile.tools() if t.name == name)
        return set(tool.parameters["properties"])

    anthropic, openai, gemini = anthropic_profile(), openai_profile(), gemini_profile()
    assert props(anthropic, "edit_file") == {"file_path", "old_string", "new_string", "replace_all"}
    assert props(anthropic, "shell") == {"command", "timeout", "description"}
    assert {"output_mode", "-i", "glob", "head_limit"} <= props(anthropic, "grep")
    assert props(openai, "apply_patch") == {"input"}
    assert props(openai, "shell") == {"command", "workdir", "timeout_ms"}
    assert props(gemini, "list_dir") == {"dir_path", "depth"}
    assert "expected_replacements" in props(gemini, "edit_file")


def test_compat_descriptions_are_short() -> None:
    for tool in profile_for("openai-compat").tools():
        assert len(tool.description) <= 80, tool.name
        assert tool.parameters["additionalProperties"] is True


# translation end to end through a ToolRegistry on MemoryEnvironment


async def test_anthropic_edit_file_with_file_path_relative_and_absolute() -> None:
    env = MemoryEnvironment(files={"src/app.py": APP})
    out = await call(
        anthropic_profile(),
        env,
        "edit_file",
        file_path="src/app.py",
        old_string="return 'Hi ' + name",
        new_string="return f'Hello, {name}!'",
    )
    assert not out.is_error, out.text
    out = await call(
        anthropic_profile(),
        env,
        "edit_file",
        file_path="/workspace/src/app.py",
        old_string="greet('x')",
        new_string="greet('y')",
    )
    assert not out.is_error, out.text
    text = (await env.read_text("src/app.py")).splitlines()
    assert text[1] == "    return f'Hello, {name}!'"
    assert text[5] == "    print(greet('y'))"


async def test_anthropic_edit_refuses_an_ambiguous_old_string_unless_replace_all() -> None:
    env = MemoryEnvironment(files={"a.txt": "x = 1\nx = 1\n"})
    args = {"file_path": "a.txt", "old_string": "x = 1", "new_string": "x = 2"}
    out = await call(anthropic_profile(), env, "edit_file", **args)
    assert out.is_error
    assert await env.read_text("a.txt") == "x = 1\nx = 1\n"
    out = await call(anthropic_profile(), env, "edit_file", **args, replace_all=True)
    assert not out.is_error
    assert await env.read_text("a.txt") == "x = 2\nx = 2\n"


def test_executor_arguments_are_what_permission_subjects_should_read() -> None:
    tools = {t.name: t for t in gemini_profile().tools()}
    shell, edit = tools["shell"], tools["edit_file"]
    assert isinstance(shell, ProfiledTool) and isinstance(edit, ProfiledTool)
    assert shell.executor_arguments({"command": "ls", "timeout_ms": 1500}) == {
        "command": "ls",
        "timeout": 1.5,
    }
    assert edit.executor_arguments(
        {"file_path": "a.py", "old_string": "a", "new_string": "b", "expected_replacements": 3}
    ) == {"path": "a.py", "old_string": "a", "new_string": "b", "replace_all": True}


async def test_executor_argument_names_are_refused_with_the_validators_message() -> None:
    env = MemoryEnvironment(files={"a.txt": "x\n"})
    out = await call(anthropic_profile(), env, "read_file", path="a.txt")
    assert out.is_error
    assert "file_path" in out.text


async def test_anthropic_read_file_and_write_file_use_file_path() -> None:
    env = MemoryEnvironment(files={"a.txt": "one\ntwo\nthree\n"})
    out = await call(anthropic_profile(), env, "read_file", file_path="/workspace/a.txt", offset=2)
    assert "two" in out.text and "one" not in out.text
    out = await call(anthropic_profile(), env, "write_file", file_path="new/b.txt", content="hi\n")
    assert not out.is_error
    assert await env.read_text("new/b.txt") == "hi\n"


async def test_openai_apply_patch_with_a_v4a_patch_in_input() -> None:
    env = MemoryEnvironment(files={"src/app.py": APP, "old.txt": "bye\n"})
    patch = (
        "*** Begin Patch\n"
        "*** Update File: src/app.py\n"
        "@@ def greet(name):\n"
        "-    return 'Hi ' + name\n"
        "+    return 'Hello ' + name\n"
        "*** Add File: docs/notes.md\n"
        "+# Notes\n"
        "*** Delete File: old.txt\n"
        "*** End Patch\n"
    )
    out = await call(openai_profile(), env, "apply_patch", input=patch)
    assert not out.is_error, out.text
    assert "return 'Hello ' + name" in await env.read_text("src/app.py")
    assert await env.read_text("docs/notes.md") == "# Notes\n"
    assert not await env.exists("old.txt")


async def test_openai_apply_patch_that_does_not_fit_changes_nothing() -> None:
    env = MemoryEnvironment(files={"a.py": "a = 1\n"})
    patch = "*** Begin Patch\n*** Update File: a.py\n@@\n-b = 2\n+b = 3\n*** End Patch\n"
    out = await call(openai_profile(), env, "apply_patch", input=patch)
    assert out.is_error
    assert await env.read_text("a.py") == "a = 1\n"


async def test_gemini_list_dir_read_many_and_zero_based_offset() -> None:
    env = MemoryEnvironment(files={"src/a.py": "a0\na1\na2\n", "src/b.py": "b\n", "README": "r"})
    out = await call(gemini_profile(), env, "list_dir", dir_path="src")
    assert not out.is_error
    assert "a.py" in out.text and "b.py" in out.text and "README" not in out.text
    out = await call(gemini_profile(), env, "read_file", file_path="src/a.py", offset=1, limit=1)
    assert re.search(r"\b2\ta1$", out.text, re.M), out.text
    assert "a0" not in out.text and "a2" not in out.text
    out = await call(gemini_profile(), env, "read_many_files", include=["src/*.py"])
    assert "==> src/a.py <==" in out.text and "==> src/b.py <==" in out.text


async def test_gemini_edit_expected_replacements() -> None:
    env = MemoryEnvironment(files={"a.txt": "x\nx\n"})
    args = {"file_path": "a.txt", "old_string": "x", "new_string": "y"}
    assert (await call(gemini_profile(), env, "edit_file", **args)).is_error
    out = await call(gemini_profile(), env, "edit_file", **args, expected_replacements=2)
    assert not out.is_error
    assert await env.read_text("a.txt") == "y\ny\n"


async def test_shell_timeouts_ms_to_seconds_and_profile_defaults() -> None:
    env = MemoryEnvironment()
    env.script(None, "ok\n")
    await call(anthropic_profile(), env, "shell", command="make")
    await call(anthropic_profile(), env, "shell", command="make", timeout=5000)
    await call(openai_profile(), env, "shell", command="make")
    await call(openai_profile(), env, "shell", command="make", timeout_ms=2500)
    await call(gemini_profile(), env, "shell", command="make")
    await call(profile_for("openai-compat"), env, "shell", command="make", timeout=30)
    slow = anthropic_profile().with_changes(default_command_timeout=300.0)
    await call(slow, env, "shell", command="make")
    assert run_timeouts(env) == [120.0, 5.0, 10.0, 2.5, 10.0, 30, 300.0]


async def test_shell_timeout_above_the_maximum_is_clamped_and_said() -> None:
    env = MemoryEnvironment()
    env.script("make", "ok\n")
    out = await call(anthropic_profile(), env, "shell", command="make", timeout=900_000)
    assert not out.is_error
    assert "clamped from 900 s to the maximum 600 s" in out.text


async def test_shell_workdir_runs_the_command_in_that_directory() -> None:
    env = MemoryEnvironment(directories=["pkg"])
    env.script(None, "ok\n")
    await call(openai_profile(), env, "shell", command="ls -l", workdir="pkg dir")
    await call(gemini_profile(), env, "shell", command="ls", dir_path="pkg")
    await call(gemini_profile(), env, "shell", command="ls", dir_path=".")
    assert run_commands(env) == [
        "cd -- 'pkg dir' || exit 1\nls -l",
        "cd -- pkg || exit 1\nls",
        "ls",
    ]


async def test_shell_workdir_on_a_real_environment(tmp_path: Path) -> None:
    (tmp_path / "sub dir").mkdir()
    env = LocalEnvironment(tmp_path)
    out = await call(openai_profile(), env, "shell", command="pwd", workdir="sub dir")
    assert out.text.rstrip().endswith("/sub dir"), out.text
    out = await call(openai_profile(), env, "shell", command="echo hi", workdir="missing")
    assert "Exit code: 1" in out.text
    assert "hi" not in out.text.splitlines()


async def test_grep_arguments_map_onto_the_executor() -> None:
    env = MemoryEnvironment(files={"a.py": "Foo = 1\n", "b.md": "foo\n", "c.py": "bar\n"})
    out = await call(anthropic_profile(), env, "grep", pattern="foo", **{"-i": True})
    assert "a.py:1:Foo = 1" in out.text and "b.md:1:foo" in out.text
    out = await call(
        anthropic_profile(), env, "grep", pattern="o", output_mode="files_with_matches", glob="*.py"
    )
    assert out.text.splitlines() == ["a.py"]
    out = await call(openai_profile(), env, "grep", pattern="o|bar", include="*.py", limit=1)
    assert out.text.splitlines()[0] == "a.py:1:Foo = 1"
    assert "[Showing 1 of 2 matching lines." in out.text
    out = await call(gemini_profile(), env, "grep", pattern="foo", include="*.md", dir_path=".")
    assert out.text.splitlines() == ["b.md:1:foo"]


async def test_compat_ignores_unknown_arguments() -> None:
    env = MemoryEnvironment(files={"a.txt": "hello\n"})
    compat = profile_for("openai-compat")
    out = await call(compat, env, "read_file", path="a.txt", encoding="utf-8", reason="look")
    assert not out.is_error and "hello" in out.text
    out = await call(compat, env, "edit_file", path="a.txt", old_string="hello", new_string="hi")
    assert not out.is_error
    assert await env.read_text("a.txt") == "hi\n"


# selection and registry semantics


@pytest.mark.parametrize(
    ("model", "expected"),
    [
        ("anthropic:claude-sonnet-4-5", "anthropic"),
        ("anthropic", "anthropic"),
        ("openai:gpt-5", "openai"),
        ("openai:gpt-5-codex", "openai"),
        ("gemini:gemini-3-pro-preview", "gemini"),
        ("google:gemini-2.5-pro", "gemini"),
        ("openai-compat:qwen3-coder", "openai-compat"),
        ("openai-compat:gpt-5", "openai-compat"),
        ("ollama:llama3.1", "openai-compat"),
        ("claude-opus-4-1", "anthropic"),
        ("gpt-5-mini", "openai"),
        ("o3", "openai"),
        ("gemini-2.5-flash", "gemini"),
        ("gpt-oss-20b", "openai-compat"),
        ("some-local-model", "openai-compat"),
        ("", "openai-compat"),
        # taor's own local model, and open models whose id says they are small
        ("local", "small"),
        ("local:qwen2.5-coder-1.5b", "small"),
        ("openai-compat:qwen2.5-coder:1.5b", "small"),
        ("ollama:llama3.2:3b", "small"),
        ("vllm:Qwen/Qwen2.5-Coder-7B-Instruct", "small"),
        ("lmstudio:gemma-3-270m-it", "small"),
        ("qwen2.5-coder-1.5b-instruct", "small"),
        ("openai-compat:qwen2.5-coder:14b", "openai-compat"),
        ("openai-compat:mixtral-8x7b", "openai-compat"),  # 56B all told
        ("openai-compat:qwen3-30b-a3b", "openai-compat"),  # 30B, 3B of them active
        ("openai:gpt-5-mini", "openai"),  # a family's own models never by size
        ("anthropic:claude-3b-test", "anthropic"),
    ],
)
def test_profile_for_model_strings(model: str, expected: str) -> None:
    assert profile_id_for(model) == expected
    assert profile_for(model).id == expected


def test_profile_for_a_model_uses_its_provider() -> None:
    assert profile_for(ScriptedModel([], provider="anthropic")).id == "anthropic"
    assert profile_for(ScriptedModel([], provider="gemini")).id == "gemini"
    assert profile_for(ScriptedModel([], provider="scripted")).id == "openai-compat"
    small = ScriptedModel([], provider="openai-compat", model_id="qwen2.5-coder:1.5b")
    assert profile_for(small).id == "small"
    assert profile_for(ScriptedModel([], provider="local")).id == "small"


@dataclass(frozen=True, kw_only=True, slots=True)
class CustomShell:
    name: str = "shell"
    description: str = "A host's own shell."
    parameters: Mapping[str, Any] = field(
        default_factory=lambda: {"type": "object", "properties": {"cmd": {"type": "string"}}}
    )
    read_only: bool = True

    async def execute(self, arguments: Mapping[str, Any], context: ToolContext) -> ToolOutput:
        return ToolOutput.of(f"custom ran {arguments['cmd']}")


async def test_a_custom_tool_overrides_the_profiles_tool_of_the_same_name() -> None:
    registry = anthropic_profile().registry([CustomShell()])
    assert registry.names() == EXPECTED_TOOLS["anthropic"]
    assert isinstance(registry.get("shell"), CustomShell)
    env = MemoryEnvironment()
    out = await call(registry, env, "shell", cmd="ls")
    assert out.text == "custom ran ls"
    assert run_commands(env) == []


# profile facts


def test_flags_timeouts_tokens_and_instruction_files() -> None:
    anthropic, openai, gemini = anthropic_profile(), openai_profile(), gemini_profile()
    compat = profile_for("openai-compat")
    assert anthropic.default_command_timeout == 120.0
    assert openai.default_command_timeout == gemini.default_command_timeout == 10.0
    assert compat.default_command_timeout == 10.0
    assert anthropic.max_output_tokens >= 16_000
    assert all(p.max_output_tokens > 4096 for p in (anthropic, openai, gemini, compat))
    assert anthropic.instruction_files == ("CLAUDE.md",)
    assert openai.instruction_files == (".codex/instructions.md",)
    assert gemini.instruction_files == ("GEMINI.md",)
    assert compat.instruction_files == ()
    for profile in (anthropic, openai, gemini):
        assert profile.subagent_tools == SUBAGENT_TOOLS
        assert profile.supports_parallel_tool_calls
        assert not set(SUBAGENT_TOOLS) & set(profile.tool_names())
    assert compat.subagent_tools == ()
    assert not compat.supports_parallel_tool_calls


@pytest.mark.parametrize("profile_id", [p for p in PROFILE_IDS if p != "small"])
def test_base_prompts_are_stable_sized_and_cover_the_topics(profile_id: str) -> None:
    prompt = profile_for(profile_id).base_prompt
    assert prompt == profile_for(profile_id).base_prompt
    assert 30 <= len(prompt.splitlines()) <= 120
    assert "taor" in prompt
    lowered = prompt.lower()
    for topic in ("read", "test", "secret", "destructive", "tool"):
        assert topic in lowered, topic
    for name in EXPECTED_TOOLS[profile_id]:
        assert name in prompt, name


def test_a_profile_refuses_a_default_timeout_beyond_the_maximum() -> None:
    with pytest.raises(ValueError, match="default_command_timeout"):
        anthropic_profile().with_changes(default_command_timeout=601.0)


def test_the_small_prompt_is_a_few_sentences_with_nothing_a_small_model_could_copy() -> None:
    small = profile_for("small")
    prompt = small.base_prompt
    assert len(prompt) < 800 and prompt == profile_for("small").base_prompt
    for example in ("src/", "main.py", "greet", "example", ".py"):
        assert example not in prompt, example
    assert "edit_file" in prompt and "without a tool call" in prompt
    assert (small.list_files, small.loop_window, small.supports_parallel_tool_calls) == (
        40,
        4,
        False,
    )
    assert small.check_answers and not profile_for("openai-compat").check_answers


def test_the_compat_prompt_names_no_path_or_call_a_model_could_copy() -> None:
    prompt = profile_for("openai-compat").base_prompt
    for example in ("src/", "main.py", "app.py", "greet", "example", "for instance"):
        assert example not in prompt, example
