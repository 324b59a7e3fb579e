"""The build's inputs, checked before any model call: one clear line for each problem."""

from __future__ import annotations

from pathlib import Path

import pytest

from taor.build.inputs import BuildInputs, check_budget, read_inputs
from taor.errors import ConfigurationError

from .scripts import BRIEF, PLAN, QNA


def files(tmp_path: Path, **texts: str | None) -> list[Path]:
    paths = []
    for name, default in (("brief", BRIEF), ("qna", QNA), ("plan", PLAN)):
        path = tmp_path / f"{name}.md"
        content = texts.get(name, default)
        if content is not None:
            path.write_text(content)
        paths.append(path)
    return paths


def test_the_three_files_are_read_whole(tmp_path: Path) -> None:
    inputs = read_inputs(*files(tmp_path))
    assert (inputs.brief, inputs.qna, inputs.plan) == (BRIEF, QNA, PLAN)
    assert inputs.steps() == 2


@pytest.mark.parametrize(
    ("texts", "message"),
    [
        ({"brief": None}, "--brief {dir}/brief.md: no such file"),
        ({"qna": "  \n"}, "--qna {dir}/qna.md: the file is empty"),
        ({"plan": "Just build it, nicely.\n"}, "the plan has no steps: list them one per line"),
    ],
)
def test_each_problem_is_one_line_naming_the_file(
    tmp_path: Path, texts: dict[str, str | None], message: str
) -> None:
    with pytest.raises(ConfigurationError) as raised:
        read_inputs(*files(tmp_path, **texts))
    assert str(raised.value).startswith(message.format(dir=tmp_path))
    assert "\n" not in str(raised.value)


@pytest.mark.parametrize(
    "plan", ["1. one\n", "- one\n", "* [ ] one\n", "## Step 1: scaffold\nwords\n", "2) two\n"]
)
def test_plan_step_forms(plan: str) -> None:
    assert BuildInputs(brief="b", qna="q", plan=plan).steps() == 1


def test_inputs_over_half_the_context_window_are_refused() -> None:
    inputs = BuildInputs(brief="word " * 4000, qna="q", plan="1. x")
    check_budget(inputs, 200_000, "anthropic:claude-sonnet-4-5")
    with pytest.raises(ConfigurationError, match=r"about 5,001 tokens, over the 4,096 .*local"):
        check_budget(inputs, 8192, "local")


def test_step_titles_are_the_steps_without_numbering() -> None:
    plan = "1. Scaffolding: make it\n- [ ] **Tests**: check it\n## Step 3: ship\nprose\n"
    assert BuildInputs(brief="b", qna="q", plan=plan).step_titles() == [
        "Scaffolding",
        "Tests",
        "Step 3",
    ]
