"""A permission question's lines: the keys on one line of 80 columns (wrapped between keys when
narrower), an edit's diff folded to the room there is, and keys that show (and answer) only once
the question has been on the screen a moment."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

from taor.agent.events import PermissionRequest
from taor.cli.interactive.permission import SETTLE, PermissionPrompt
from taor.cli.interactive.question import choices, question_lines

DIFF = "--- a/app.py\n+++ b/app.py\n@@ -1,40 +1,40 @@\n" + "".join(
    f"-old {n}\n+new {n}\n" for n in range(40)
)


def edit(diff: str = DIFF) -> PermissionRequest:
    return PermissionRequest(
        request_id="p1",
        call_id="c1",
        name="edit_file",
        arguments={"path": "app.py"},
        summary="edit_file: app.py",
        reason="edit_file is not read-only; the permission mode default asks before it runs.",
        rules=("edit_file(./app.py)",),
        diff=diff,
    )


def test_the_keys_fit_one_line_of_80_columns_and_wrap_between_keys_when_narrower() -> None:
    (line,) = choices(80)
    assert line == "  y yes · a always · s always, saved to project · n no · r no, with a reason"
    narrow = choices(40)
    assert narrow == [
        "  y yes · a always ·",
        "  s always, saved to project · n no ·",
        "  r no, with a reason",
    ]
    assert all(len(line) < 40 for line in narrow)


def test_a_long_diff_is_folded_to_the_room_left_with_the_question_whole() -> None:
    keys = [("class:keys", line) for line in choices(80)]
    lines = question_lines(edit(), 80, 17, keys)
    texts = [text for _, text in lines]
    assert len(lines) == 17
    assert texts[0] == "? allow edit_file: app.py?"
    assert texts[1:4] == ["    --- a/app.py", "    +++ b/app.py", "    @@ -1,40 +1,40 @@"]
    assert texts[-4] == "    … +71 lines of the diff (ctrl-o shows it all)"  # 83, 12 shown
    assert texts[-3].startswith("  edit_file is not read-only")
    assert texts[-2:] == ["  always allows: edit_file(./app.py)", keys[0][1]]
    styles = {text.strip(): style for style, text in lines}
    assert (styles["-old 0"], styles["+new 0"]) == ("class:diff-del", "class:diff-add")
    assert styles["@@ -1,40 +1,40 @@"] == "class:diff-hunk"


def test_a_short_diff_is_whole_and_a_question_without_one_has_none() -> None:
    short = "--- a/app.py\n+++ b/app.py\n@@ -1 +1 @@\n-a = 1\n+a = 2\n"
    texts = [text for _, text in question_lines(edit(short), 80, 17, [])]
    assert texts[1:6] == [
        "    --- a/app.py",
        "    +++ b/app.py",
        "    @@ -1 +1 @@",
        "    -a = 1",
        "    +a = 2",
    ]
    assert not any("…" in text for text in texts)
    texts = [text for _, text in question_lines(edit(""), 80, 17, [])]
    assert texts[0] == "? allow edit_file: app.py?" and texts[1].startswith("  edit_file is not")


def test_keys_show_and_answer_only_once_the_question_has_been_drawn_a_moment() -> None:
    now = [100.0]
    repl = SimpleNamespace(redraw=lambda: None)
    asking = PermissionPrompt(repl, Path("config.toml"), clock=lambda: now[0])  # type: ignore[arg-type]
    asking.add(edit())
    assert asking.asking and not asking.ready  # not drawn yet: no key answers it
    now[0] += 5
    drawn = "".join(text for _, text in asking.fragments(80, 17))
    assert "y yes" not in drawn and not asking.ready  # drawn now: the time starts here
    now[0] += SETTLE / 2
    assert "y yes" not in "".join(text for _, text in asking.fragments(80, 17))
    assert not asking.ready
    now[0] += SETTLE / 2
    assert "y yes" in "".join(text for _, text in asking.fragments(80, 17))
    assert asking.ready  # the keys are on the screen: they answer it
