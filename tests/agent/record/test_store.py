from __future__ import annotations

import json
import os
import stat
import threading
from pathlib import Path

import pytest

from taor.agent.record.store import (
    JsonlTranscriptStore,
    TranscriptHeader,
    TranscriptStore,
    load,
)
from taor.agent.record.turns import AssistantTurn, NoticeTurn, ToolResultsTurn, Turn, UserTurn
from taor.errors import TranscriptError
from taor.llm.response import Usage
from taor.llm.types import ImagePart, Message, TextPart, ToolCallPart, tool_result

HEADER = TranscriptHeader(
    session_id="s-1", created=100.0, provider="anthropic", model="m", cwd="/w", metadata={"ci": "1"}
)


def sample_turns() -> list[Turn]:
    call = ToolCallPart(id="c1", name="read_file", arguments={"path": "ä.py"})
    return [
        UserTurn(content=(TextPart(text="fix it"), ImagePart(data=b"\x89PNG")), timestamp=1.0),
        AssistantTurn(
            message=Message(role="assistant", parts=(TextPart(text="looking"), call)),
            usage=Usage(input_tokens=7, output_tokens=3),
            provider="anthropic",
            finish="tool_calls",
            timestamp=2.0,
        ),
        ToolResultsTurn(results=(tool_result("c1", "print('é')"),), timestamp=3.0),
        NoticeTurn(text="interrupted 🛑 by the host", timestamp=4.0),
    ]


def write(path: Path, turns: list[Turn]) -> None:
    with JsonlTranscriptStore(path) as store:
        store.create(HEADER)
        for turn in turns:
            store.append_sync(turn)


def test_the_store_is_a_transcript_store() -> None:
    store: TranscriptStore = JsonlTranscriptStore("unused.jsonl")  # no I/O until create/open
    assert not Path("unused.jsonl").exists()
    del store


async def test_append_then_load_round_trips(tmp_path: Path) -> None:
    path = tmp_path / "sessions" / "s-1.jsonl"
    store = JsonlTranscriptStore(path)
    store.create(HEADER)
    for turn in sample_turns():
        await store.append(turn)
        assert path.read_bytes().endswith(b"\n")  # on disk before append returns
    await store.close()

    loaded = load(path)
    assert loaded.header == HEADER
    assert list(loaded.turns) == sample_turns()
    assert loaded.skipped == ()
    assert stat.S_IMODE(path.stat().st_mode) == 0o600


def test_one_json_object_per_line_header_first(tmp_path: Path) -> None:
    path = tmp_path / "t.jsonl"
    write(path, sample_turns())
    lines = path.read_text(encoding="utf-8").splitlines()
    assert json.loads(lines[0]) == {
        "kind": "header",
        "version": 1,
        "session_id": "s-1",
        "created": 100.0,
        "provider": "anthropic",
        "model": "m",
        "cwd": "/w",
        "metadata": {"ci": "1"},
    }
    assert [json.loads(line)["kind"] for line in lines[1:]] == [
        "user",
        "assistant",
        "tool_results",
        "notice",
    ]
    assert "ä.py" in lines[2]  # readable, not \u-escaped


def test_a_lone_surrogate_is_escaped_not_lost(tmp_path: Path) -> None:
    path = tmp_path / "t.jsonl"
    odd = NoticeTurn(text="bad byte \udcff from a command", timestamp=1.0)
    write(path, [odd])
    assert load(path).turns == (odd,)


def test_create_refuses_an_existing_file_and_misuse_is_explained(tmp_path: Path) -> None:
    path = tmp_path / "t.jsonl"
    write(path, [])
    with pytest.raises(TranscriptError, match="already exists: open"):
        JsonlTranscriptStore(path).create(HEADER)
    with pytest.raises(TranscriptError, match=r"not open: call create\(\) or open\(\) first"):
        JsonlTranscriptStore(path).append_sync(sample_turns()[0])
    store = JsonlTranscriptStore(path)
    store.open()
    store.close_sync()
    with pytest.raises(TranscriptError, match="is closed"):
        store.append_sync(sample_turns()[0])
    with pytest.raises(TranscriptError, match="already used"):
        store.open()


def test_metadata_that_is_not_json_creates_no_file(tmp_path: Path) -> None:
    path = tmp_path / "t.jsonl"
    with pytest.raises(TranscriptError, match="metadata"):
        JsonlTranscriptStore(path).create(TranscriptHeader(session_id="s", metadata={"x": {1}}))
    assert not path.exists()


def test_a_torn_last_record_is_skipped_at_every_byte(tmp_path: Path) -> None:
    path = tmp_path / "t.jsonl"
    write(path, sample_turns())
    whole = path.read_bytes()
    start = whole.rindex(b"\n", 0, len(whole) - 1) + 1  # where the last record begins
    earlier = sample_turns()[:-1]
    for cut in range(start, len(whole)):
        torn = tmp_path / f"torn-{cut}.jsonl"
        torn.write_bytes(whole[:cut])
        loaded = load(torn)
        if cut == start:  # nothing of the last record was written
            assert (list(loaded.turns), loaded.skipped) == (earlier, ())
        elif cut == len(whole) - 1:  # all of it but its newline: nothing is lost
            assert (list(loaded.turns), loaded.skipped) == (sample_turns(), ())
        else:
            assert list(loaded.turns) == earlier
            assert len(loaded.skipped) == 1
            assert f"{torn}:5: skipped a torn last record ({cut - start} bytes)" in loaded.skipped


def test_reopening_a_torn_file_continues_on_a_fresh_line(tmp_path: Path) -> None:
    path = tmp_path / "t.jsonl"
    write(path, sample_turns())
    whole = path.read_bytes()
    start = whole.rindex(b"\n", 0, len(whole) - 1) + 1
    extra = NoticeTurn(text="resumed", timestamp=9.0)
    for cut in range(start, len(whole)):
        torn = tmp_path / f"torn-{cut}.jsonl"
        torn.write_bytes(whole[:cut])
        with JsonlTranscriptStore(torn) as store:
            store.open()
            store.append_sync(extra)
        loaded = load(torn)
        kept = sample_turns() if cut == len(whole) - 1 else sample_turns()[:-1]
        assert (list(loaded.turns), loaded.skipped) == ([*kept, extra], ())


async def test_reopen_and_continue(tmp_path: Path) -> None:
    path = tmp_path / "t.jsonl"
    first, second = sample_turns()[:2], sample_turns()[2:]
    write(path, first)
    store = JsonlTranscriptStore(path)
    loaded = store.open()
    assert (loaded.header, list(loaded.turns)) == (HEADER, first)
    for turn in second:
        await store.append(turn)
    await store.close()
    assert list(load(path).turns) == sample_turns()


def test_reopening_a_whole_file_adds_no_blank_line(tmp_path: Path) -> None:
    """Every line stays a JSON record however often the session is resumed, so plain
    ``for line in f: json.loads(line)`` readers keep working."""
    path = tmp_path / "t.jsonl"
    write(path, sample_turns()[:1])
    for number in range(5):
        with JsonlTranscriptStore(path) as store:
            store.open()
            if number % 2:
                store.append_sync(NoticeTurn(text=f"resumed {number}", timestamp=9.0))
    with path.open(encoding="utf-8") as f:
        records = [json.loads(line) for line in f]
    assert [r["kind"] for r in records] == ["header", "user", "notice", "notice"]
    assert path.read_bytes().endswith(b"}\n")


def test_a_file_with_blank_lines_from_older_resumes_still_continues(tmp_path: Path) -> None:
    path = tmp_path / "t.jsonl"
    write(path, sample_turns()[:1])
    with path.open("a", encoding="utf-8") as f:
        f.write("\n\n")
    extra = NoticeTurn(text="resumed", timestamp=9.0)
    with JsonlTranscriptStore(path) as store:
        assert list(store.open().turns) == sample_turns()[:1]
        store.append_sync(extra)
    assert list(load(path).turns) == [*sample_turns()[:1], extra]
    *_, last, after = path.read_bytes().split(b"\n")
    assert (json.loads(last)["text"], after) == ("resumed", b"")


def test_an_open_transcript_is_locked_against_a_second_writer(tmp_path: Path) -> None:
    path = tmp_path / "t.jsonl"
    write(path, [])
    with JsonlTranscriptStore(path) as store:
        store.open()
        with pytest.raises(TranscriptError, match="in use by another session"):
            JsonlTranscriptStore(path).open()
    with JsonlTranscriptStore(path) as again:
        again.open()


def test_a_damaged_middle_record_is_refused_with_its_line(tmp_path: Path) -> None:
    path = tmp_path / "t.jsonl"
    write(path, sample_turns())
    lines = path.read_bytes().splitlines(keepends=True)
    lines[2] = lines[2][:40] + b"\n"  # the assistant turn, cut short (a torn write, then more)
    path.write_bytes(b"".join(lines))
    with pytest.raises(TranscriptError, match=r"t\.jsonl:3: damaged record .*head -n 2"):
        load(path)
    with pytest.raises(TranscriptError, match=r":3: damaged record"):
        JsonlTranscriptStore(path).open()
    assert path.read_bytes() == b"".join(lines)  # refused without touching it


def test_a_record_that_is_json_but_not_a_turn_is_refused_even_last(tmp_path: Path) -> None:
    path = tmp_path / "t.jsonl"
    write(path, sample_turns()[:1])
    with path.open("a", encoding="utf-8") as f:
        f.write('{"kind":"teleport"}\n')
    with pytest.raises(TranscriptError, match=r":3: damaged record .*unknown kind 'teleport'"):
        load(path)


def test_blank_lines_are_tolerated(tmp_path: Path) -> None:
    path = tmp_path / "t.jsonl"
    write(path, sample_turns()[:1])
    with path.open("a", encoding="utf-8") as f:
        f.write("\n  \n")
    assert list(load(path).turns) == sample_turns()[:1]


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (b"", "no header record"),
        (b'{"kind":"he', "no header record"),
        (b'{"kind":"notice","text":"x"}\n', "not a taor transcript"),
        (b'{"kind":"header","version":2,"session_id":"s"}\n', "version 2 was written by a newer"),
        (b'{"kind":"header","version":1}\n', r":1: bad header: .*missing session_id"),
    ],
)
def test_files_that_are_not_transcripts_are_refused(
    tmp_path: Path, content: bytes, message: str
) -> None:
    path = tmp_path / "t.jsonl"
    path.write_bytes(content)
    with pytest.raises(TranscriptError, match=message):
        load(path)


def test_a_missing_file_is_a_transcript_error(tmp_path: Path) -> None:
    with pytest.raises(TranscriptError, match="no such transcript"):
        load(tmp_path / "nope.jsonl")
    with pytest.raises(TranscriptError, match="no such transcript"):
        JsonlTranscriptStore(tmp_path / "nope.jsonl").open()


def test_concurrent_appends_never_mix_within_a_line(tmp_path: Path) -> None:
    path = tmp_path / "t.jsonl"
    store = JsonlTranscriptStore(path, fsync=False)
    store.create(HEADER)
    writers, each = 8, 25
    big = {w: NoticeTurn(text=f"{w}" * 200_000, timestamp=float(w)) for w in range(writers)}

    def append_many(w: int) -> None:
        for _ in range(each):
            store.append_sync(big[w])

    threads = [threading.Thread(target=append_many, args=(w,)) for w in range(writers)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    store.close_sync()
    loaded = load(path)
    assert loaded.skipped == ()
    assert sorted(t.timestamp for t in loaded.turns) == sorted(
        float(w) for w in range(writers) for _ in range(each)
    )
    assert all(t == big[int(t.timestamp)] for t in loaded.turns)


def test_fsync_mode_writes_the_same_file(tmp_path: Path) -> None:
    plain, synced = tmp_path / "a.jsonl", tmp_path / "b.jsonl"
    write(plain, sample_turns())
    with JsonlTranscriptStore(synced, fsync=True) as store:
        store.create(HEADER)
        for turn in sample_turns():
            store.append_sync(turn)
    assert synced.read_bytes() == plain.read_bytes()
    assert os.path.getsize(synced) > 0
