"""Project instructions: discovery from the git root down to the working directory, only the
profile's files plus AGENTS.md, the user-level file, and the 32 KiB budget."""

from __future__ import annotations

import datetime
import os
import subprocess
from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

from taor.agent.context.prompt import (
    INSTRUCTIONS_BUDGET,
    InstructionFile,
    ProjectInstructions,
    PromptSettings,
    SystemPrompt,
    read_instructions,
    render_instructions,
    sources_for,
    truncation_marker,
)
from taor.agent.context.prompt.budget import allocate
from taor.agent.context.prompt.instructions import directory_chain, instruction_names
from taor.env.local import LocalEnvironment
from taor.env.memory import MemoryEnvironment

MARKER = "[Project instructions truncated at 32 KiB]"


def test_the_budget_is_32_kib_of_characters() -> None:
    assert INSTRUCTIONS_BUDGET == 32_768
    assert truncation_marker() == MARKER
    assert truncation_marker(1000) == "[Project instructions truncated at 1000 characters]"


def test_directory_chain_runs_from_the_root_down() -> None:
    assert directory_chain("/r/a/b", "/r") == ("/r", "/r/a", "/r/a/b")
    assert directory_chain("/r", "/r") == ("/r",)
    assert directory_chain("/r/a/", None) == ("/r/a",)
    assert directory_chain("/elsewhere", "/r") == ("/elsewhere",)
    assert directory_chain("/r2/a", "/r") == ("/r2/a",)


def test_agents_md_always_first_and_once() -> None:
    assert instruction_names(()) == ("AGENTS.md",)
    assert instruction_names(("CLAUDE.md", "AGENTS.md")) == ("AGENTS.md", "CLAUDE.md")


REPO_FILES = {
    "/repo/AGENTS.md": "root agents",
    "/repo/CLAUDE.md": "root claude",
    "/repo/GEMINI.md": "root gemini",
    "/repo/.codex/instructions.md": "root codex",
    "/repo/pkg/AGENTS.md": "pkg agents",
    "/repo/pkg/sub/CLAUDE.md": "sub claude",
    "/repo/pkg/sub/GEMINI.md": "sub gemini",
    "/repo/pkg/sub/lib/AGENTS.md": "below the working directory",
    "/repo/pkg/sub/empty/x": "",
}


def memory_repo() -> MemoryEnvironment:
    env = MemoryEnvironment(root="/repo/pkg/sub", allowed_roots=["/repo"], files=REPO_FILES)
    env.put("/repo/pkg/sub/AGENTS.md", "  \n\n")  # whitespace only: left out
    return env


async def test_discovery_order_and_only_the_profiles_files() -> None:
    env = memory_repo()
    sources = sources_for("/repo/pkg/sub", "/repo", profile_files=("CLAUDE.md",))
    found = await read_instructions(env, sources)
    assert [(f.path, f.content) for f in found.files] == [
        ("/repo/AGENTS.md", "root agents"),
        ("/repo/CLAUDE.md", "root claude"),
        ("/repo/pkg/AGENTS.md", "pkg agents"),
        ("/repo/pkg/sub/CLAUDE.md", "sub claude"),
    ]
    assert found.skipped == ()


async def test_a_nested_profile_file_and_no_repository() -> None:
    env = memory_repo()
    codex = await read_instructions(
        env, sources_for("/repo/pkg/sub", "/repo", profile_files=(".codex/instructions.md",))
    )
    assert [f.content for f in codex.files] == ["root agents", "root codex", "pkg agents"]
    alone = await read_instructions(env, sources_for("/repo/pkg/sub", None, profile_files=()))
    assert alone.files == ()


async def test_the_session_discovers_from_the_git_root_it_is_told() -> None:
    env = memory_repo()
    env.script("git rev-parse --show-toplevel", "/repo\n")
    prompt = await SystemPrompt.create(
        env,
        PromptSettings(base_prompt="B", model="gemini-x", instruction_files=("GEMINI.md",)),
        today=datetime.date(2025, 1, 2),
    )
    text = prompt.current()
    order = ["root agents", "root gemini", "pkg agents", "sub gemini"]
    assert [text.index(s) for s in order] == sorted(text.index(s) for s in order)
    assert "claude" not in text and "below the working directory" not in text
    assert '<file path="/repo/pkg/sub/GEMINI.md">\nsub gemini\n</file>' in text


def _git_init(repo: Path) -> None:
    env = {"PATH": os.environ.get("PATH", ""), "HOME": str(repo.parent), "GIT_CONFIG_NOSYSTEM": "1"}
    subprocess.run(["git", "init", "-q", str(repo)], check=True, env=env)


async def test_local_repository_root_needs_to_be_an_allowed_root(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    (repo / "app").mkdir(parents=True)
    _git_init(repo)
    (repo / "AGENTS.md").write_text("root rules\n")
    (repo / "app" / "AGENTS.md").write_text("app rules\n")
    (repo / "app" / "CLAUDE.md").write_text("app claude\n")
    root, app = str(repo.resolve()), str((repo / "app").resolve())
    sources = sources_for(app, root, profile_files=("CLAUDE.md",))

    confined = await read_instructions(LocalEnvironment(repo / "app"), sources)
    assert [f.path for f in confined.files] == [f"{app}/AGENTS.md", f"{app}/CLAUDE.md"]
    assert confined.skipped == (f"{root}/AGENTS.md", f"{root}/CLAUDE.md")

    allowed = await read_instructions(LocalEnvironment(repo / "app", allowed_roots=[repo]), sources)
    assert [f.content for f in allowed.files] == ["root rules\n", "app rules\n", "app claude\n"]
    assert allowed.skipped == ()


async def test_the_user_level_file_comes_first_and_none_skips_it(tmp_path: Path) -> None:
    config = tmp_path / "config" / "taor"
    config.mkdir(parents=True)
    (config / "AGENTS.md").write_text("my own habits\n")
    env = MemoryEnvironment(root="/ws", files={"AGENTS.md": "project"})
    with_user = await read_instructions(
        env, sources_for("/ws", None, user_file=config / "AGENTS.md")
    )
    assert [f.path for f in with_user.files] == [str(config / "AGENTS.md"), "/ws/AGENTS.md"]
    missing = await read_instructions(env, sources_for("/ws", None, user_file=config / "NONE.md"))
    assert [f.path for f in missing.files] == ["/ws/AGENTS.md"]
    skipped = await read_instructions(env, sources_for("/ws", None, user_file=None))
    assert missing == skipped


async def test_a_user_file_change_is_seen_by_refresh(tmp_path: Path) -> None:
    user_file = tmp_path / "AGENTS.md"
    env = MemoryEnvironment(root="/ws")
    settings = PromptSettings(base_prompt="B", model="m", user_file=user_file)
    prompt = await SystemPrompt.create(env, settings, today=datetime.date(2025, 1, 2))
    assert "<project_instructions>" not in prompt.current()
    user_file.write_text("prefer small commits\n")
    assert await prompt.refresh_if_changed() is True
    assert f'<file path="{user_file}">\nprefer small commits\n</file>' in prompt.current()


# the budget


def files(*sizes: tuple[str, int]) -> ProjectInstructions:
    return ProjectInstructions(
        files=tuple(InstructionFile(path=f"/r/{name}", content=name[0] * n) for name, n in sizes)
    )


def test_under_or_at_the_budget_nothing_is_cut() -> None:
    text = render_instructions(files(("a.md", 16_384), ("b.md", 16_384)))
    assert "truncated" not in text
    assert text.count("a") >= 16_384 and text.count("b") >= 16_384


def test_the_deepest_file_survives_and_the_shallow_one_is_cut_at_a_character() -> None:
    instructions = ProjectInstructions(
        files=(
            InstructionFile(path="/home/u/AGENTS.md", content="u" * 5_000),
            InstructionFile(path="/r/AGENTS.md", content="é" * 20_000),
            InstructionFile(path="/r/pkg/AGENTS.md", content="deep\n" * 4_000),
        )
    )
    excerpts = allocate(instructions.files)
    assert [len(e.text) for e in excerpts] == [0, 32_768 - 20_000, 20_000]
    text = render_instructions(instructions)
    assert '/home/u/AGENTS.md">' not in text  # left out entirely
    assert text.index('<file path="/r/AGENTS.md">') < text.index('<file path="/r/pkg/AGENTS.md">')
    assert "é" * 12_768 + "\n" + MARKER + "\n" in text
    assert "é" * 12_769 not in text
    assert (
        "Not shown: /home/u/AGENTS.md (5000 characters); "
        "the last 7232 of 20000 characters of /r/AGENTS.md." in text
    )
    assert text.count(MARKER) == 1
    assert ("deep\n" * 4_000).rstrip("\n") + "\n</file>" in text


def test_a_cut_prefers_a_line_boundary_near_the_end() -> None:
    line = "x" * 99 + "\n"
    instructions = ProjectInstructions(
        files=(
            InstructionFile(path="/r/AGENTS.md", content=line * 100),
            InstructionFile(path="/r/a/AGENTS.md", content="d" * 32_000),
        )
    )
    root = allocate(instructions.files)[0]
    assert root.text == line * 7  # 768 characters of room: 7 whole lines, not 7.68


def test_one_huge_deepest_file_is_cut_and_the_rest_named() -> None:
    text = render_instructions(files(("root.md", 10), ("deep.md", 40_000)))
    assert "d" * 32_768 + "\n" + MARKER in text and "d" * 32_769 not in text
    assert "/r/root.md (10 characters)" in text and "rrrrrrrrrr" not in text


def test_files_left_out_at_an_exact_boundary_get_the_marker_up_front() -> None:
    text = render_instructions(files(("root.md", 10), ("deep.md", 32_768)))
    header_end = text.index("\n\n") + 2
    assert text[header_end:].startswith(MARKER + "\nNot shown: /r/root.md (10 characters).")
    assert "d" * 32_768 + "\n</file>" in text


@given(st.lists(st.integers(min_value=1, max_value=20_000), min_size=1, max_size=6))
def test_budget_properties(sizes: list[int]) -> None:
    instructions = files(*((f"{chr(97 + i)}.md", n) for i, n in enumerate(sizes)))
    excerpts = allocate(instructions.files)
    kept = [len(e.text) for e in excerpts]
    assert sum(kept) <= INSTRUCTIONS_BUDGET
    assert all(e.file.content.startswith(e.text) for e in excerpts)
    cut = [i for i, e in enumerate(excerpts) if e.omitted]
    if cut:  # everything deeper than the deepest cut file is whole
        assert all(not e.omitted for e in excerpts[max(cut) + 1 :])
        assert all(not excerpts[i].text for i in cut[:-1])
    assert (MARKER in render_instructions(instructions)) == (sum(sizes) > INSTRUCTIONS_BUDGET)
