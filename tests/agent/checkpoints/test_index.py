"""The records folded per turn: how a turn changed each file, and what a rewind puts back."""

from __future__ import annotations

from taor.agent.checkpoints.index import Index
from taor.agent.checkpoints.records import After, Before, FileChange, Note

OLD, NEW = "1" * 64, "2" * 64


def test_the_state_of_each_file_against_the_turns_start() -> None:
    index = Index(
        [
            Before(turn=1, path="changed", existed=True, object=OLD),
            After(turn=1, path="changed", exists=True, object=NEW),
            Before(turn=1, path="created", existed=False),
            Before(turn=1, path="deleted", existed=True, object=OLD),
            After(turn=1, path="deleted", exists=False),
            Before(turn=1, path="made-and-gone", existed=False),
            After(turn=1, path="made-and-gone", exists=False),
            Before(turn=1, path="put-back", existed=True, object=OLD),
            After(turn=1, path="put-back", exists=True, object=NEW),
            After(turn=1, path="put-back", exists=True, object=OLD),
            Before(turn=1, path="unsaved", existed=True, reason="not saved"),
            Note(turn=1, text="a note"),
            Note(turn=1, text="a note"),
        ]
    )
    assert index.changes(1) == (
        FileChange(path="changed", state="changed"),
        FileChange(path="created", state="created"),
        FileChange(path="deleted", state="deleted"),
        FileChange(path="unsaved", state="changed", restorable=False, reason="not saved"),
    )
    assert index.notes(1) == ("a note",) and index.changes(2) == ()


def test_a_rewind_targets_each_files_state_before_the_first_turn_undone() -> None:
    first = Before(turn=2, path="a", existed=True, object=OLD)
    index = Index(
        [
            Before(turn=1, path="a", existed=False),
            first,
            Before(turn=2, path="a", existed=True, object=NEW),  # not the first of turn 2
            Before(turn=3, path="a", existed=True, object=NEW),
            Before(turn=3, path="b", existed=False),
        ]
    )
    assert index.targets(2) == {"a": first, "b": Before(turn=3, path="b", existed=False)}
    assert index.below(2) == [Before(turn=1, path="a", existed=False)]
