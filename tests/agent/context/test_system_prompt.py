"""The system prompt: layer order, the environment block (a real git repository through
LocalEnvironment, and MemoryEnvironment without git), byte stability and the session cache."""

from __future__ import annotations

import datetime
import os
import re
import subprocess
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

from taor.agent.context.prompt import (
    EnvironmentFacts,
    GitSnapshot,
    ProjectInstructions,
    PromptSettings,
    SystemPrompt,
    build_system_prompt,
    gather_facts,
    render_environment,
)
from taor.agent.context.prompt.instructions import InstructionFile
from taor.env.base import CommandResult
from taor.env.local import LocalEnvironment
from taor.env.memory import MemoryEnvironment

DAY = datetime.date(2025, 3, 14)


def _isolated(home: Path) -> dict[str, str]:
    return {
        "PATH": os.environ.get("PATH", ""),
        "HOME": str(home),
        "GIT_CONFIG_NOSYSTEM": "1",
        "LC_ALL": "C",
    }


def git(repo: Path, *args: str) -> str:
    command = ["git", "-c", "user.name=T", "-c", "user.email=t@example.test", *args]
    done = subprocess.run(
        command, cwd=repo, env=_isolated(repo.parent), capture_output=True, text=True, check=True
    )
    return done.stdout


def make_repo(tmp_path: Path, commits: int = 10) -> Path:
    repo = tmp_path / "repo"
    repo.mkdir()
    git(repo, "init", "-q", "-b", "feature")
    for n in range(commits):
        (repo / "log.txt").write_text(f"{n}\n" * (n + 1))
        git(repo, "add", "log.txt")
        git(repo, "commit", "-q", "-m", f"commit number {n}")
    return repo


def local(root: Path, *, allowed_roots: Sequence[Path] = ()) -> LocalEnvironment:
    """A LocalEnvironment whose commands see no host git configuration."""
    return LocalEnvironment(root, allowed_roots=allowed_roots, environ=_isolated(root.parent))


FACTS = EnvironmentFacts(
    working_directory="/w", platform="linux", os_version="Linux 6", date=DAY, model="m-1"
)


# layers


def test_layers_come_in_order_with_the_user_instructions_last() -> None:
    instructions = ProjectInstructions(
        files=(InstructionFile(path="/w/AGENTS.md", content="PROJECT RULES"),)
    )
    prompt = build_system_prompt(
        "BASE PROMPT",
        FACTS,
        tool_guidance="TOOL GUIDANCE",
        instructions=instructions,
        user_instructions="USER OWN",
    )
    order = ["BASE PROMPT", "<environment>", "TOOL GUIDANCE", "PROJECT RULES", "USER OWN"]
    positions = [prompt.index(marker) for marker in order]
    assert positions == sorted(positions)
    assert prompt.startswith("BASE PROMPT\n\n<environment>\n")
    assert prompt.endswith("<user_instructions>\nUSER OWN\n</user_instructions>")
    assert '<file path="/w/AGENTS.md">\nPROJECT RULES\n</file>' in prompt


def test_empty_layers_are_left_out() -> None:
    prompt = build_system_prompt("  BASE\n\n", FACTS, tool_guidance="", user_instructions=" \n")
    assert prompt == "BASE\n\n" + render_environment(FACTS)
    assert "\n\n\n" not in prompt
    assert "<project_instructions>" not in prompt and "<user_instructions>" not in prompt


def test_building_twice_gives_the_same_bytes() -> None:
    git_facts = replace(
        FACTS, git=GitSnapshot(root="/w", branch="main", modified=1, untracked=2, commits=("a1 x",))
    )
    instructions = ProjectInstructions(files=(InstructionFile(path="/w/AGENTS.md", content="é"),))
    first = build_system_prompt("B", git_facts, instructions=instructions, user_instructions="u")
    second = build_system_prompt("B", git_facts, instructions=instructions, user_instructions="u")
    assert first.encode() == second.encode()


def test_environment_block_lines() -> None:
    snapshot = GitSnapshot(root="/", branch="main", modified=0, untracked=0, commits=())
    block = render_environment(replace(FACTS, knowledge_cutoff="2025-01", git=snapshot))
    assert block.splitlines() == [
        "<environment>",
        "Working directory: /w",
        "Is git repository: yes",
        "Git branch: main",
        "Git root: /",
        "Git status: clean",
        "Platform: linux",
        "OS version: Linux 6",
        "Today's date: 2025-03-14",
        "Model: m-1",
        "Knowledge cutoff: 2025-01",
        "</environment>",
    ]


# facts through a real repository


async def test_facts_of_a_real_git_repository(tmp_path: Path) -> None:
    repo = make_repo(tmp_path)
    (repo / "log.txt").write_text("changed\n")
    (repo / "staged.txt").write_text("new\n")
    git(repo, "add", "staged.txt")
    (repo / "loose1.txt").write_text("x")
    (repo / "loose2.txt").write_text("y")
    gathered = await gather_facts(local(repo), model="claude-x", today=DAY)
    assert gathered.is_git_repository
    assert gathered.git is not None
    assert gathered.git.root == str(repo.resolve())
    assert gathered.git.branch == "feature"
    assert (gathered.git.modified, gathered.git.untracked) == (2, 2)
    assert [c.split(" ", 1)[1] for c in gathered.git.commits] == [
        f"commit number {n}" for n in range(9, 1, -1)
    ]
    block = render_environment(gathered)
    assert "Git branch: feature\n" in block
    assert "Git status: 2 modified, 2 untracked\n" in block
    assert "Recent commits:\n  " in block and "commit number 9" in block
    assert "Git root" not in block  # the working directory is the root
    assert f"Working directory: {repo.resolve()}\n" in block


async def test_a_subdirectory_names_the_git_root_and_a_detached_head(tmp_path: Path) -> None:
    repo = make_repo(tmp_path, commits=2)
    sha = git(repo, "rev-parse", "--short", "HEAD").strip()
    git(repo, "checkout", "-q", "--detach")
    (repo / "sub").mkdir()
    gathered = await gather_facts(local(repo / "sub"), model="m", today=DAY)
    assert gathered.git is not None
    assert gathered.git.branch == f"(detached at {sha})"
    assert gathered.git.untracked == 0  # an empty directory is not shown by git
    assert f"Git root: {repo.resolve()}\n" in render_environment(gathered)


async def test_a_repository_without_commits(tmp_path: Path) -> None:
    repo = make_repo(tmp_path, commits=0)
    gathered = await gather_facts(local(repo), model="m", today=DAY)
    assert gathered.git is not None
    assert (gathered.git.branch, gathered.git.commits) == ("feature", ())
    assert "Recent commits" not in render_environment(gathered)


async def test_a_plain_directory_is_not_a_repository(tmp_path: Path) -> None:
    (tmp_path / "plain").mkdir()
    gathered = await gather_facts(local(tmp_path / "plain"), model="m", today=DAY)
    assert gathered.git is None
    block = render_environment(gathered)
    assert "Is git repository: no\n" in block and "Git " not in block


async def test_memory_environment_without_git() -> None:
    env = MemoryEnvironment(root="/ws", platform="darwin", os_version="Darwin 24.1")
    gathered = await gather_facts(env, model="gpt-x", today=DAY)
    assert gathered == EnvironmentFacts(
        working_directory="/ws",
        platform="darwin",
        os_version="Darwin 24.1",
        date=DAY,
        model="gpt-x",
        git=None,
    )
    assert [call.arguments["command"] for call in env.calls if call.operation == "run"] == [
        "git rev-parse --show-toplevel"
    ]


async def test_a_failing_git_command_omits_only_its_detail() -> None:
    env = MemoryEnvironment(root="/ws")
    env.script("git rev-parse --show-toplevel", "/ws\n")
    env.script("git symbolic-ref --short -q HEAD", "main\n")
    env.script(re.compile(r"^git status"), "", exit_code=128, stderr="fatal\n")
    env.script(re.compile(r"^git log"), "abc1234 first\n" + "def5678 " + "long " * 40 + "\n")
    gathered = await gather_facts(env, model="m", today=DAY)
    long_line = ("def5678 " + "long " * 40)[:99] + "…"
    assert gathered.git == GitSnapshot(
        root="/ws",
        branch="main",
        modified=None,
        untracked=None,
        commits=("abc1234 first", long_line),
    )
    block = render_environment(gathered)
    assert "Git status" not in block and "  abc1234 first\n" in block


async def test_a_timed_out_git_means_no_repository() -> None:
    env = MemoryEnvironment(root="/ws")
    timed_out = CommandResult(
        command="git",
        exit_code=-15,
        stdout="/ws\n",
        stderr="",
        output="",
        duration=5.0,
        timed_out=True,
        timeout=5.0,
    )
    env.script(re.compile(r"^git "), timed_out)
    assert (await gather_facts(env, model="m", today=DAY)).git is None


# the session cache


def settings(
    *, instruction_files: tuple[str, ...] = (), user_instructions: str = ""
) -> PromptSettings:
    return PromptSettings(
        base_prompt="You are taor.",
        model="m-1",
        instruction_files=instruction_files,
        user_instructions=user_instructions,
    )


async def test_current_is_the_same_object_and_two_sessions_agree(tmp_path: Path) -> None:
    repo = make_repo(tmp_path, commits=3)
    (repo / "AGENTS.md").write_text("Run the tests.\n")
    first = await SystemPrompt.create(local(repo), settings(), today=DAY)
    second = await SystemPrompt.create(local(repo), settings(), today=DAY)
    assert first.current() is first.current()
    assert first.current() == second.current()
    assert "Run the tests." in first.current() and "Git branch: feature" in first.current()


async def test_refresh_without_changes_keeps_the_object(tmp_path: Path) -> None:
    repo = make_repo(tmp_path, commits=1)
    (repo / "AGENTS.md").write_text("Rule one.\n")
    prompt = await SystemPrompt.create(local(repo), settings(), today=DAY)
    before = prompt.current()
    assert await prompt.refresh_if_changed() is False
    assert prompt.current() is before
    os.utime(repo / "AGENTS.md", (1, 1))  # touched, same text
    assert await prompt.refresh_if_changed() is False
    assert prompt.current() is before


async def test_git_activity_and_the_date_do_not_change_the_prompt(tmp_path: Path) -> None:
    repo = make_repo(tmp_path, commits=1)
    prompt = await SystemPrompt.create(local(repo), settings(), today=DAY)
    before = prompt.current()
    (repo / "new.txt").write_text("n")
    git(repo, "add", "new.txt")
    git(repo, "commit", "-q", "-m", "later work")
    git(repo, "checkout", "-q", "-b", "other")
    assert await prompt.refresh_if_changed() is False
    assert prompt.current() is before and "later work" not in before
    assert await prompt.rebuild(today=DAY + datetime.timedelta(days=1)) is True
    assert "later work" in prompt.current() and "Git branch: other" in prompt.current()
    assert "Today's date: 2025-03-15" in prompt.current()


async def test_refresh_sees_a_changed_an_added_and_a_removed_file(tmp_path: Path) -> None:
    repo = make_repo(tmp_path, commits=1)
    (repo / "pkg").mkdir()
    (repo / "AGENTS.md").write_text("Rule one.\n")
    prompt = await SystemPrompt.create(
        local(repo / "pkg", allowed_roots=[repo]),
        settings(instruction_files=("CLAUDE.md",)),
        today=DAY,
    )
    assert "Rule one." in prompt.current()
    (repo / "AGENTS.md").write_text("Rule one, amended.\n")
    assert await prompt.refresh_if_changed() is True
    assert "Rule one, amended." in prompt.current()
    (repo / "pkg" / "CLAUDE.md").write_text("Deeper rule.\n")
    assert await prompt.refresh_if_changed() is True
    assert prompt.current().index("amended") < prompt.current().index("Deeper rule.")
    (repo / "AGENTS.md").unlink()
    assert await prompt.refresh_if_changed() is True
    assert "Rule one" not in prompt.current()
    after = prompt.current()
    assert await prompt.refresh_if_changed() is False
    assert prompt.current() is after


async def test_refresh_on_memory_environment_and_rebuild_without_changes() -> None:
    env = MemoryEnvironment(root="/ws", files={"AGENTS.md": "Use tabs.\n"})
    prompt = await SystemPrompt.create(env, settings(user_instructions="Be terse."), today=DAY)
    before = prompt.current()
    assert before.endswith("<user_instructions>\nBe terse.\n</user_instructions>")
    assert await prompt.rebuild(today=DAY) is False
    assert prompt.current() is before
    env.put("AGENTS.md", "Use spaces, four of them.\n")
    assert await prompt.refresh_if_changed() is True
    assert "Use spaces" in prompt.current() and "Use tabs" not in prompt.current()
    assert prompt.instructions.files[0].path == "/ws/AGENTS.md"
