"""Where sessions are kept and how one is found: file names sort by the session's start, also
among sessions started in the same second, and give back the session's id."""

from __future__ import annotations

import uuid
from pathlib import Path

from taor.host import sessions


def test_continue_takes_the_newest_of_sessions_started_in_the_same_second(
    tmp_path: Path,
) -> None:
    started = []
    for _ in range(40):  # in one second or two: many share a second
        path = sessions.new_path(tmp_path, uuid.uuid4().hex)
        path.write_text("")
        started.append(path)
        assert sessions.newest(tmp_path) == path

    assert sorted(tmp_path.glob("*.jsonl")) == started


def test_names_stamped_to_the_second_still_sort_among_the_new_ones(tmp_path: Path) -> None:
    new = sessions.new_path(tmp_path, uuid.uuid4().hex)
    second = new.name[:15]  # 20250101T120000
    earlier = tmp_path / f"20000101T000000-{'e' * 32}.jsonl"
    same_second = tmp_path / f"{second}-{'f' * 32}.jsonl"
    for path in (earlier, same_second, new):
        path.write_text("")

    assert sessions.newest(tmp_path) == new
    assert sorted(tmp_path.glob("*.jsonl")) == [earlier, same_second, new]
    assert [sessions.session_id(p) for p in (earlier, same_second)] == ["e" * 32, "f" * 32]
    assert sessions.session_id(new) in new.name
