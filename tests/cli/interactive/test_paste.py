"""Large pastes stand in the prompt as placeholders and come back whole when sent."""

from __future__ import annotations

from pathlib import Path

from taor.cli.interactive.paste import Pastes, image_mention


def test_a_small_paste_goes_in_as_it_is_with_newlines_normalized() -> None:
    assert Pastes().insert("a\r\nb\rc") == "a\nb\nc"


def test_a_large_paste_is_a_placeholder_until_sent() -> None:
    pastes = Pastes()
    lines = "\n".join(f"line {n}" for n in range(20))
    first = pastes.insert(lines)
    second = pastes.insert("x" * 3000)
    assert (first, second) == ("[pasted text #1: 20 lines]", "[pasted text #2: 3000 characters]")
    typed = f"explain {first} and {second}, not [pasted text #9: 1 lines]"
    assert (
        pastes.expand(typed) == f"explain {lines} and {'x' * 3000}, not [pasted text #9: 1 lines]"
    )


def test_a_pasted_image_path_becomes_a_mention(tmp_path: Path) -> None:
    (tmp_path / "my shot.png").write_bytes(b"\x89PNG\r\n\x1a\n")
    (tmp_path / "notes.txt").write_text("x")
    assert image_mention(f"{tmp_path}/my\\ shot.png", tmp_path) == "@my\\ shot.png "
    assert image_mention(f"'{tmp_path}/my shot.png'\n", tmp_path) == "@my\\ shot.png "
    assert image_mention(f"file://{tmp_path}/my%20shot.png", tmp_path) == "@my\\ shot.png "
    assert image_mention("notes.txt", tmp_path) is None  # not an image
    assert image_mention("gone.png", tmp_path) is None  # no such file
    assert image_mention("a.png\nb.png", tmp_path) is None
