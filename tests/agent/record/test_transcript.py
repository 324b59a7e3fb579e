"""The transcript validator, repair, the derived messages and ``check``: every tool call
has exactly one result, in call order, or the transcript is repaired or refused."""

from __future__ import annotations

import dataclasses

import pytest
from hypothesis import given
from hypothesis import strategies as st

from taor.agent.record.transcript import Transcript, problems, repair, synthetic_result
from taor.agent.record.turns import (
    AssistantTurn,
    NoticeTurn,
    SteeringTurn,
    ToolResultsTurn,
    Turn,
    UserTurn,
)
from taor.errors import TranscriptError
from taor.llm.types import (
    Message,
    TextPart,
    ThinkingPart,
    ToolCallPart,
    ToolResultPart,
    tool_result,
)


def user(text: str = "hi") -> UserTurn:
    return UserTurn(content=(TextPart(text=text),), timestamp=0.0)


def says(text: str = "ok", *calls: str) -> AssistantTurn:
    parts = ((TextPart(text=text),) if text else ()) + tuple(
        ToolCallPart(id=c, name="read_file", arguments={"path": c}) for c in calls
    )
    return AssistantTurn(message=Message(role="assistant", parts=parts), timestamp=0.0)


def results(*ids: str) -> ToolResultsTurn:
    return ToolResultsTurn(
        results=tuple(tool_result(i, f"result {i}", name="read_file") for i in ids), timestamp=0.0
    )


def steer(text: str = "also this") -> SteeringTurn:
    return SteeringTurn(text=text, timestamp=0.0)


def notice(text: str = "interrupted") -> NoticeTurn:
    return NoticeTurn(text=text, timestamp=0.0)


EMPTY = AssistantTurn(message=Message(role="assistant", parts=()), timestamp=0.0)
THINKING_ONLY = AssistantTurn(
    message=Message(role="assistant", parts=(ThinkingPart(text="hm"),)), timestamp=0.0
)

VALID: list[tuple[str, list[Turn]]] = [
    ("nothing", []),
    ("a question", [user()]),
    ("question and answer", [user(), says()]),
    ("one round", [user(), says("", "c1"), results("c1"), says("done")]),
    ("two calls in order", [user(), says("", "c1", "c2"), results("c1", "c2"), says()]),
    ("steering after results", [user(), says("", "c1"), results("c1"), steer(), says()]),
    ("notices are ignored", [notice(), user(), says("", "c1"), notice(), results("c1"), says()]),
    ("user after user", [user(), user("more"), says()]),
    ("calls without text", [user(), says("", "c1"), results("c1")]),
]

BROKEN: list[tuple[str, list[Turn], list[str]]] = [
    ("results missing at the end", [user(), says("", "c1")], ["have no results"]),
    (
        "results missing before the next input",
        [user(), says("", "c1"), user("next"), says()],
        ["turn 3: the tool calls before it have no results"],
    ),
    (
        "results out of order",
        [user(), says("", "c1", "c2"), results("c2", "c1")],
        ["turn 3: results ['c2', 'c1'] do not answer the calls ['c1', 'c2'] in order"],
    ),
    ("a result missing", [user(), says("", "c1", "c2"), results("c1")], ["do not answer"]),
    ("an extra result", [user(), says("", "c1"), results("c1", "c9")], ["do not answer"]),
    ("a result answering nothing", [user(), says(), results("c1")], ["do not answer"]),
    ("an empty assistant turn", [user(), EMPTY], ["turn 2: empty assistant turn"]),
    ("thinking only is empty", [user(), THINKING_ONLY], ["empty assistant turn"]),
    ("a blank text is empty", [user(), says("  ")], ["empty assistant turn"]),
    ("two assistant turns in a row", [user(), says(), says()], ["turn 3: assistant turn in a row"]),
    ("starts with the assistant", [says()], ["turn 1: assistant turn at the start"]),
    (
        "one id for two calls",
        [user(), says("", "c1", "c1"), results("c1", "c1")],
        ["turn 2: tool-call id 'c1' is not unique"],
    ),
    (
        "an id used again in a later turn",
        [user(), says("", "c1"), results("c1"), says("", "c1"), results("c1")],
        ["turn 4: tool-call id 'c1' is not unique"],
    ),
    ("an empty id", [user(), says("", ""), results("")], ["tool-call id '' is not unique"]),
    (
        "steering between calls and results",
        [user(), says("", "c1"), steer(), results("c1")],
        ["turn 3: the tool calls before it have no results", "turn 4: results"],
    ),
]


@pytest.mark.parametrize(("name", "turns"), VALID, ids=[v[0] for v in VALID])
def test_valid_transcripts_have_no_problems(name: str, turns: list[Turn]) -> None:
    assert problems(turns) == []
    assert Transcript(turns).problems() == []
    assert repair(turns) == [t for t in turns]


@pytest.mark.parametrize(("name", "turns", "expected"), BROKEN, ids=[b[0] for b in BROKEN])
def test_broken_transcripts_are_described(
    name: str, turns: list[Turn], expected: list[str]
) -> None:
    found = problems(turns)
    assert len(found) == len(expected), found
    for sentence, fragment in zip(found, expected, strict=True):
        assert fragment in sentence


def test_repair_adds_results_for_calls_without_one_in_call_order() -> None:
    fixed = repair([user(), says("", "c1", "c2"), results("c2"), user("next")], "interrupted")
    assert problems(fixed) == []
    answered = fixed[2]
    assert isinstance(answered, ToolResultsTurn)
    assert [r.call_id for r in answered.results] == ["c1", "c2"]
    assert answered.results[0] == synthetic_result("c1", "read_file", "interrupted")
    assert answered.results[0].is_error
    assert answered.results[1] == results("c2").results[0]  # the real one is kept
    assert fixed[3] == user("next")


def test_repair_renames_a_repeated_call_id_and_keeps_each_result() -> None:
    """A transcript written before ids were made unique: each call keeps its own output."""
    first = tool_result("c1", "output of the first", name="read_file")
    second = tool_result("c1", "output of the second", name="read_file")
    turns: list[Turn] = [
        user(),
        says("", "c1", "c1"),
        ToolResultsTurn(results=(first, second), timestamp=0.0),
        says("", "c1"),
        results("c1"),
    ]
    fixed = repair(turns)
    assert problems(fixed) == []
    assert [c.id for c in fixed[1].message.tool_calls] == ["c1", "c1_2"]  # type: ignore[union-attr]
    assert [(r.call_id, r.content) for r in fixed[2].results] == [  # type: ignore[union-attr]
        ("c1", first.content),
        ("c1_2", second.content),
    ]
    assert [c.id for c in fixed[3].message.tool_calls] == ["c1_3"]  # type: ignore[union-attr]
    assert [r.call_id for r in fixed[4].results] == ["c1_3"]  # type: ignore[union-attr]


def test_repair_drops_extra_results_and_empty_turns() -> None:
    fixed = repair([user(), EMPTY, says("", "c1"), results("c1", "c9"), says(), results("c7")])
    assert problems(fixed) == []
    assert [t.kind for t in fixed] == ["user", "assistant", "tool_results", "assistant"]
    assert [r.call_id for r in fixed[2].results] == ["c1"]  # type: ignore[union-attr]


def test_synthetic_results_say_what_happened() -> None:
    interrupted = synthetic_result("c1", "shell", "interrupted")
    stopped = synthetic_result("c1", "shell", "stopped")
    cancelled = synthetic_result("c1", "shell", "cancelled")
    assert interrupted.is_error and stopped.is_error and cancelled.is_error
    assert "may have run partly" in interrupted.content[0].text  # type: ignore[union-attr]
    assert "by the user" in interrupted.content[0].text  # type: ignore[union-attr]
    assert "process running this session ended" in stopped.content[0].text  # type: ignore[union-attr]
    assert "may have run partly" in stopped.content[0].text  # type: ignore[union-attr]
    assert "not run" in cancelled.content[0].text  # type: ignore[union-attr]


TURNS = st.sampled_from(
    [
        user(),
        says(),
        says("", "c1"),
        says("x", "c1", "c2"),
        results("c1"),
        results("c1", "c2"),
        results("c2", "c1"),
        steer(),
        notice(),
        EMPTY,
    ]
)


@given(st.lists(TURNS, max_size=12))
def test_repair_fixes_every_result_problem(turns: list[Turn]) -> None:
    fixed = repair(turns)
    left = problems(fixed)
    # repair cannot invent user turns: only role-order problems may remain
    assert all("in a row" in p or "at the start" in p for p in left), left
    assert repair(fixed) == fixed
    # the other turns are kept, but for a repeated call id, which is renamed
    assert [_no_ids(t) for t in fixed if not isinstance(t, ToolResultsTurn)] == [
        _no_ids(t) for t in turns if not isinstance(t, ToolResultsTurn) and t is not EMPTY
    ]


def _no_ids(turn: Turn) -> Turn:
    if not isinstance(turn, AssistantTurn):
        return turn
    parts = tuple(
        dataclasses.replace(p, id="") if isinstance(p, ToolCallPart) else p
        for p in turn.message.parts
    )
    return dataclasses.replace(turn, message=dataclasses.replace(turn.message, parts=parts))


@given(st.lists(TURNS, max_size=12))
def test_the_incremental_validator_agrees_with_problems(turns: list[Turn]) -> None:
    transcript = Transcript(turns)
    pending = problems(turns)[-1:] == ["the last assistant turn's tool calls have no results"]
    assert transcript.problems() + (
        ["the last assistant turn's tool calls have no results"] if pending else []
    ) == problems(turns)


def test_user_side_turns_merge_into_one_message_results_first() -> None:
    transcript = Transcript(
        [user("go"), says("", "c1"), results("c1"), steer("look at b too"), notice(), steer("x")]
    )
    messages = transcript.messages()
    assert [m.role for m in messages] == ["user", "assistant", "user"]
    last = messages[-1].parts
    assert isinstance(last[0], ToolResultPart) and last[0].call_id == "c1"
    assert [p.text for p in last[1:]] == ["look at b too", "x"]  # type: ignore[union-attr]


def test_steering_before_results_still_puts_results_first() -> None:
    transcript = Transcript([user("go"), says("", "c1")])
    transcript.append(steer("hurry"))  # out of order on purpose: the merge still sorts it
    transcript.append(results("c1"))
    parts = transcript.messages()[-1].parts
    assert isinstance(parts[0], ToolResultPart)
    assert transcript.problems()  # but the validator reports it


def test_notices_are_never_sent() -> None:
    transcript = Transcript([notice("start"), user("go"), notice("mid"), says()])
    assert [m.role for m in transcript.messages()] == ["user", "assistant"]
    assert "mid" not in repr(transcript.messages())


def test_messages_are_kept_in_step_with_appends() -> None:
    turns: list[Turn] = [user("a"), says("", "c1"), results("c1"), steer("s"), says("b")]
    transcript = Transcript()
    for n, turn in enumerate(turns, start=1):
        transcript.append(turn)
        assert transcript.messages() == Transcript(turns[:n]).messages()


@pytest.mark.parametrize(
    ("turns", "why"),
    [
        ([user(), says("", "c1")], "have no results"),
        ([user(), says()], "would not end with a user-side message"),
        ([user(), says(), says()], "in a row"),
        ([], "would not end with a user-side message"),
    ],
)
def test_check_refuses_what_must_not_be_sent(turns: list[Turn], why: str) -> None:
    with pytest.raises(TranscriptError, match=why):
        Transcript(turns).check()


def test_check_passes_a_sendable_transcript_and_reports_pending_calls() -> None:
    transcript = Transcript([user(), says("", "c1", "c2")])
    assert transcript.pending_calls() == [("c1", "read_file"), ("c2", "read_file")]
    transcript.append(results("c1", "c2"))
    assert transcript.pending_calls() == []
    transcript.check()
    transcript.append(steer())
    transcript.check()
