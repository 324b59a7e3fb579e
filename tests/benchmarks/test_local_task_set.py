"""Each task of the local-model suite can be judged: its check fails on the files it starts
from, and passes after its reference solution. The split is fixed and covers every task."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))

from _local_tasks import HELD_OUT, KINDS, SETS, TASKS, Task, lay_out

start = lay_out  # as the benchmark lays a task out


@pytest.mark.parametrize("task", TASKS, ids=lambda task: task.name)
def test_the_check_fails_before_and_passes_after_a_solution(task: Task, tmp_path: Path) -> None:
    assert task.kind in KINDS
    assert not task.check(start(task, tmp_path / "before"), "")
    directory = start(task, tmp_path / "after")
    answer = task.solve(directory)
    assert task.check(directory, answer)


def test_the_sets_split_every_task_once_and_every_kind_is_in_both() -> None:
    names = [task.name for task in TASKS]
    assert len(names) == len(set(names)) >= 45
    assert set(names) >= HELD_OUT
    tuning, held_out = SETS["tuning"], SETS["held-out"]
    assert len(tuning) + len(held_out) == len(TASKS)
    assert abs(len(tuning) - len(held_out)) <= 1
    assert {t.kind for t in tuning} == {t.kind for t in held_out} == set(KINDS)
