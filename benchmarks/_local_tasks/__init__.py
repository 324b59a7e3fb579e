"""The small tasks of ``local_tasks.py``, and their split into a tuning set and a held-out set.

The split was drawn once, at random within each kind of task (``random.Random(20261127)``,
each kind shuffled and halved, odd halves alternating between the sets), and is written out
below so that it never moves: the harness is tuned on ``TUNING`` only, and both sets are
reported every time. A task added later goes to the held-out set unless a new draw is made
and said so.
"""

from __future__ import annotations

from . import added_code, added_files, original
from .base import KINDS, Task, lay_out

TASKS: tuple[Task, ...] = original.TASKS + added_code.TASKS + added_files.TASKS

HELD_OUT = frozenset({
    "add_docstrings", "add_function_and_test", "add_requirement", "count_functions",
    "count_lines", "count_tests", "create_script", "delete_nested_tmp", "extend_gitignore",
    "find_class", "find_constant", "fix_factorial", "fix_failing_test", "fix_slugify",
    "fix_sort_key", "move_three", "remove_function", "rename_function", "rename_module",
    "report_output", "small_cli", "sum_column", "today_script", "write_tests",
})  # fmt: skip

SETS = {
    "tuning": tuple(task for task in TASKS if task.name not in HELD_OUT),
    "held-out": tuple(task for task in TASKS if task.name in HELD_OUT),
}

__all__ = ["HELD_OUT", "KINDS", "SETS", "TASKS", "Task", "lay_out"]
