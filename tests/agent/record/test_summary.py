"""A recorded session's assistant turns carry their cost and the session's running totals
(on across a resume); ``summarize`` reads a transcript's header, first input and last assistant
turn without reading the rest; a torn tail is passed over, a foreign file is refused."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from taor.agent.record.store import JsonlTranscriptStore, TranscriptHeader, load
from taor.agent.record.summary import recorded_totals, summarize
from taor.agent.record.turns import AssistantTurn, UserTurn
from taor.agent.session import Session
from taor.env.memory import MemoryEnvironment
from taor.errors import TranscriptError
from taor.llm.catalog import Catalog
from taor.llm.response import Usage
from taor.llm.types import Message, TextPart
from taor.testing import ScriptedModel, text, tool_calls

from ..session_drive import config

USAGE = Usage(input_tokens=1000, output_tokens=100)
COST = (1000 * 2.0 + 100 * 10.0) / 1_000_000  # at the prices of catalog() below


def catalog(tmp_path: Path) -> Catalog:
    entry = {
        "id": "priced",
        "provider": "anthropic",
        "context_window": 100_000,
        "max_output": 8000,
        "prices": {"input": 2.0, "output": 10.0},
    }
    file = tmp_path / "catalog.json"
    file.write_text(json.dumps({"models": [entry]}))
    return Catalog.from_file(file)


def model(*replies: object) -> ScriptedModel:
    return ScriptedModel(list(replies), provider="anthropic", model_id="priced")  # type: ignore[arg-type]


def options(tmp_path: Path) -> dict[str, object]:
    env = MemoryEnvironment(files={"a.txt": "alpha\n"})
    return {"environment": env, "config": config(), "catalog": catalog(tmp_path)}


def replies(path: Path) -> list[AssistantTurn]:
    return [t for t in load(path).turns if isinstance(t, AssistantTurn)]


async def test_each_response_records_its_cost_and_the_running_totals_across_a_resume(
    tmp_path: Path,
) -> None:
    path = tmp_path / "s.jsonl"
    first = model(
        tool_calls(("read_file", {"path": "a.txt"}), usage=USAGE), text("alpha", usage=USAGE)
    )
    async with Session.recorded(path, first, **options(tmp_path)) as session:  # type: ignore[arg-type]
        await session.run("what is in a.txt?")
    assert [(t.cost, t.session_calls) for t in replies(path)] == [(COST, 1), (COST, 2)]
    assert replies(path)[-1].session_cost == pytest.approx(2 * COST)
    assert load(path).header.cwd == session._rt.environment.working_directory()
    again = Session.resume(path, model(text("still alpha", usage=USAGE)), **options(tmp_path))  # type: ignore[arg-type]
    async with again:
        await again.run("and now?")
    last = replies(path)[-1]
    assert last.session_calls == 3 and last.session_cost == pytest.approx(3 * COST)


async def test_summarize_gives_the_list_its_row(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    two = model(text("one", usage=USAGE), text("two", usage=USAGE))
    async with Session.recorded(path, two, session_id="abc123", **options(tmp_path)) as session:  # type: ignore[arg-type]
        await session.run("the first\ninput")
        await session.run("the second")
    summary = summarize(path)
    assert (summary.session_id, summary.first_prompt) == ("abc123", "the first\ninput")
    assert (summary.provider, summary.model, summary.model_calls) == ("anthropic", "priced", 2)
    assert summary.cost == pytest.approx(2 * COST)
    assert summary.cwd and summary.created == load(path).header.created


def write(path: Path, *lines: str) -> None:
    path.write_text("".join(line + "\n" for line in lines))


def header(session_id: str = "s1") -> str:
    return json.dumps({"kind": "header", "version": 1, "session_id": session_id, "model": "m"})


def assistant(text_: str, **fields: object) -> str:
    message = {"role": "assistant", "parts": [{"kind": "text", "text": text_}]}
    return json.dumps({"kind": "assistant", "message": message, **fields}, separators=(",", ":"))


def user(text_: str) -> str:
    content = [{"kind": "text", "text": text_}]
    return json.dumps({"kind": "user", "content": content}, separators=(",", ":"))


def test_only_the_head_and_the_tail_are_read(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    big = user("x" * 300_000)  # several blocks between the first input and the last reply
    write(path, header(), user("hi"), assistant("a", session_calls=1), big, "{damaged",
          user("more"), assistant("b", model="late", session_calls=7, session_cost=0.5))  # fmt: skip
    summary = summarize(path)  # the damaged middle line, which load() refuses, is never read
    assert (summary.first_prompt, summary.model_calls, summary.cost) == ("hi", 7, 0.5)
    assert summary.model == "late"
    with pytest.raises(TranscriptError, match="damaged record"):
        load(path)


def test_a_torn_tail_is_passed_over(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    write(path, header(), user("hi"), assistant("a", session_calls=4, session_cost=0.25))
    with path.open("a") as file:
        file.write(assistant("torn", session_calls=5)[:30])
    summary = summarize(path)
    assert (summary.model_calls, summary.cost) == (4, 0.25)


def test_an_older_transcript_without_totals_is_counted_whole(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    write(path, header(), user("hi"), assistant("a", cost=0.25), user("more"),
          assistant("b", cost=0.5))  # fmt: skip
    assert (summarize(path).model_calls, summarize(path).cost) == (2, 0.75)
    unpriced = [
        UserTurn(content=(TextPart(text="hi"),)),
        AssistantTurn(message=Message(role="assistant", parts=(TextPart(text="a"),))),
    ]
    assert recorded_totals(unpriced) == (1, None)


def test_a_session_without_replies_and_files_that_are_not_transcripts(tmp_path: Path) -> None:
    path = tmp_path / "new.jsonl"
    with JsonlTranscriptStore(path) as store:
        store.create(TranscriptHeader(session_id="fresh", model="m"))
    assert (summarize(path).model_calls, summarize(path).cost, summarize(path).model) == (0, 0, "m")
    for name, content in [("empty.jsonl", ""), ("foreign.jsonl", '{"a": 1}\n'), ("bin.jsonl", "\x00\xff")]:  # fmt: skip
        (tmp_path / name).write_text(content)
        with pytest.raises(TranscriptError, match="not a taor transcript"):
            summarize(tmp_path / name)
    with pytest.raises(TranscriptError, match="cannot read"):
        summarize(tmp_path)  # a directory
