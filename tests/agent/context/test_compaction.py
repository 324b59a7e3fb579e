"""Context compaction: elision, the summary of the middle (chunked to fit), the message cap, the
Compactor's choices and guarantees, and the Transcript carrying a compacted view."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence

from hypothesis import given, settings
from hypothesis import strategies as st

from taor.agent.context.compaction import (
    PINNED_HEADER,
    SUMMARY_HEADER,
    Compactor,
    elide_old_outputs,
    elision_stub,
    files_changed,
    trim_to_cap,
    view_problems,
)
from taor.agent.context.compaction.summarize import SUMMARY_SYSTEM
from taor.agent.context.compaction.view import chars_of
from taor.agent.record.transcript import Transcript
from taor.agent.record.turns import AssistantTurn, SteeringTurn, ToolResultsTurn, Turn, UserTurn
from taor.errors import ContextLengthError, ServerError
from taor.llm.types import Message, Request, TextPart, ToolCallPart, ToolResultPart, tool_result
from taor.testing import FunctionModel, ScriptedModel
from taor.testing.script import text

TASK = "Add a --verbose flag to the CLI and test it."


def user(content: str = TASK) -> UserTurn:
    return UserTurn(content=(TextPart(text=content),), timestamp=0.0)


def call(cid: str, name: str = "read_file", **arguments: object) -> ToolCallPart:
    return ToolCallPart(id=cid, name=name, arguments=arguments or {"path": f"{cid}.py"})


def says(words: str, *calls: ToolCallPart) -> AssistantTurn:
    parts = ((TextPart(text=words),) if words else ()) + calls
    return AssistantTurn(message=Message(role="assistant", parts=parts), timestamp=0.0)


def answers(*pairs: tuple[str, str], error: bool = False) -> ToolResultsTurn:
    results = tuple(tool_result(c, out, name="read_file", is_error=error) for c, out in pairs)
    return ToolResultsTurn(results=results, timestamp=0.0)


def rounds(count: int, size: int = 4000, start: int = 0) -> list[Turn]:
    """``count`` rounds of one read_file call each, outputs of ``size`` characters."""
    turns: list[Turn] = []
    for n in range(start, start + count):
        turns += [says(f"Reading file {n}.", call(f"c{n}")), answers((f"c{n}", "x" * size))]
    return turns


def view_of(turns: Sequence[Turn]) -> tuple[Message, ...]:
    return Transcript(turns).messages()


def tokens(messages: Sequence[Message]) -> int:
    return chars_of(messages) // 4


def request_tokens(request: Request) -> int:
    chars = len(request.system) + sum(len(m.text) for m in request.messages)
    return chars // 4 + (request.max_tokens or 0)


def summarizer(summary: str = "We read the files; the flag goes in cli.py.") -> FunctionModel:
    return FunctionModel(lambda request: text(summary))


# elision


def test_old_outputs_become_stubs_and_recent_rounds_stay() -> None:
    messages = view_of([user(), *rounds(5, size=5000), says("Done.")])
    elided = elide_old_outputs(messages, keep_rounds=3)
    assert len(elided) == len(messages)
    stubbed = [m for m, o in zip(elided, messages, strict=True) if m is not o]
    assert len(stubbed) == 2
    result = stubbed[0].parts[0]
    assert isinstance(result, ToolResultPart)
    assert result.call_id == "c0" and result.name == "read_file"
    assert result.content == (
        TextPart(
            text="[output of read_file elided to save context: 5000 characters; "
            "run it again if needed]"
        ),
    )
    assert elided[-4:] == list(messages[-4:])  # the last rounds untouched
    assert elide_old_outputs(elided, keep_rounds=3) == elided  # a stub is not elided again
    assert view_problems(elided) == []


def test_elision_keeps_short_outputs_and_error_flags() -> None:
    turns: list[Turn] = [user(), says("", call("a")), answers(("a", "ok")), says("", call("b"))]
    turns += [answers(("b", "boom " * 200), error=True), *rounds(3), says("Done.")]
    elided = elide_old_outputs(view_of(turns), keep_rounds=3)
    short, failed = elided[2].parts[0], elided[4].parts[0]
    assert isinstance(short, ToolResultPart) and isinstance(failed, ToolResultPart)
    assert short.content == (TextPart(text="ok"),)
    assert failed.is_error
    assert failed.content == (TextPart(text=elision_stub("read_file", 1000)),)


# the Compactor


async def test_eliding_is_enough_when_it_reaches_the_target() -> None:
    messages = view_of([user(), *rounds(8), says("Done."), user("Now the docs.")])
    model = ScriptedModel([])
    before = tokens(messages)
    result = await Compactor().compact(
        messages, model=model, tokens_before=before, window=int(before / 0.9)
    )
    assert result.method == "elide" and result.compacted
    assert model.requests == []
    assert result.tokens_after < result.tokens_before
    assert result.tokens_after <= 0.5 * int(before / 0.9)
    assert view_problems(result.messages) == []


def history_with_edits() -> list[Turn]:
    patch = "*** Begin Patch\n*** Update File: src/b.py\n@@\n-a\n+b\n*** End Patch"
    turns: list[Turn] = [user(), *rounds(6, size=6000)]
    turns += [
        says("Writing.", call("w1", "write_file", path="src/a.py", content="print()")),
        answers(("w1", "wrote src/a.py")),
        says("", call("e1", "edit_file", file_path="src/cli.py", old="a", new="b")),
        answers(("e1", "edited")),
        says("", call("p1", "apply_patch", input=patch)),
        answers(("p1", "patched")),
        says("", call("w2", "write_file", path="/etc/passwd", content="no")),
        answers(("w2", "permission denied"), error=True),
        *rounds(6, size=6000, start=10),
        says("Tests pass."),
        user("Also update the README."),
    ]
    return turns


async def test_a_summary_keeps_the_first_message_pinned_items_and_recent_turns() -> None:
    turns = history_with_edits()
    messages = view_of(turns)
    model = summarizer()
    compactor = Compactor(instructions="Use httpie, never curl.", plan="1. flag 2. tests")
    before = tokens(messages)
    window = 100_000
    result = await compactor.compact(
        messages, model=model, tokens_before=before, window=window, turns=turns, summary=True
    )
    assert result.method == "summary", result
    assert result.tokens_after < result.tokens_before / 2
    assert view_problems(result.messages) == []
    head = result.messages[0]
    assert head.role == "user" and head.parts[0] == TextPart(text=TASK)
    pinned, summary = (p.text for p in head.parts[1:] if isinstance(p, TextPart))
    assert pinned.startswith(PINNED_HEADER)
    assert "Use httpie, never curl." in pinned and "1. flag 2. tests" in pinned
    assert "- src/a.py\n- src/cli.py\n- src/b.py" in pinned and "passwd" not in pinned
    assert summary.startswith(SUMMARY_HEADER) and "not a request" in summary
    assert summary.endswith("We read the files; the flag goes in cli.py.")
    # the recent turns are the tail of the original, verbatim (from an assistant message on)
    tail = result.messages[1:]
    assert tail[0].role == "assistant"
    assert tail == messages[len(messages) - len(tail) :]
    assert result.messages[-1].text == "Also update the README."
    # the summarizer was asked once, without tools, with the middle as a transcript
    (request,) = model.requests
    assert request.system == SUMMARY_SYSTEM and request.tools == ()
    assert request_tokens(request) <= window
    prompt = request.messages[0].text
    assert "ASSISTANT CALLED write_file" in prompt and "RESULT OF read_file: xxx" in prompt
    assert TASK not in prompt  # the first message is kept, not summarized


async def test_the_middle_is_summarized_in_chunks_that_each_fit_the_window() -> None:
    turns: list[Turn] = [user()]
    for n in range(40):  # big arguments: eliding outputs cannot help
        write = call(f"w{n}", "write_file", path=f"f{n}.py", content="y" * 8000)
        turns += [says("Writing.", write), answers((f"w{n}", "ok"))]
    messages = view_of([*turns, says("Done."), user("Next?")])
    seen: list[int] = []

    def reply(request: Request) -> object:
        seen.append(len(seen) + 1)
        return text(f"summary after part {len(seen)}")

    model = FunctionModel(reply)
    window = 20_000
    before = tokens(messages)
    assert before > 3 * window  # the middle alone is far bigger than the window
    result = await Compactor().compact(messages, model=model, tokens_before=before, window=window)
    assert result.method == "summary"
    assert len(model.requests) >= 4
    assert all(request_tokens(r) <= window for r in model.requests)
    prompts = [r.messages[0].text for r in model.requests]
    assert "(part 1 of" in prompts[0] and "The summary so far" not in prompts[0]
    assert all("summary after part" in p for p in prompts[1:])  # each carries the previous
    assert str(result.messages[0].parts[-1].text).endswith(  # type: ignore[union-attr]
        f"summary after part {len(model.requests)}"
    )
    assert view_problems(result.messages) == []


async def test_a_context_length_error_from_the_summarizer_shrinks_the_chunks() -> None:
    messages = view_of([user(), *rounds(12, size=6000), says("Done."), user("Next?")])
    model = ScriptedModel([ContextLengthError("too long"), *[text("short")] * 20])
    result = await Compactor().compact(
        messages, model=model, tokens_before=tokens(messages), window=30_000, summary=True
    )
    assert result.method == "summary"
    first, second = model.requests[0], model.requests[1]
    assert len(second.messages[0].text) < len(first.messages[0].text)


async def test_it_refuses_when_the_summary_would_not_shrink_the_history() -> None:
    messages = view_of([user(), *rounds(4, size=50), says("Done."), user("Next?")])
    model = summarizer("y" * 20_000)
    result = await Compactor().compact(messages, model=model, tokens_before=90_000, window=100_000)
    assert not result.compacted and result.method is None
    assert "would not make the history smaller" in result.abandoned
    assert result.messages == messages and result.tokens_after == 90_000


async def test_it_refuses_when_there_is_no_middle() -> None:
    messages = view_of([user(), says("", call("c1")), answers(("c1", "small"))])
    result = await Compactor().compact(
        messages, model=ScriptedModel([]), tokens_before=900, window=1000
    )
    assert "no middle to summarize" in result.abandoned
    assert result.messages == messages


async def test_a_failed_summary_falls_back_to_elision_with_a_warning() -> None:
    messages = view_of([user(), *rounds(10), says("Done."), user("Next?")])
    model = ScriptedModel([ServerError("down", retryable=False)])
    before = tokens(messages)
    result = await Compactor().compact(
        messages, model=model, tokens_before=before, window=before, summary=True
    )
    assert result.method == "elide" and result.tokens_after < before
    assert any("summary request failed" in w for w in result.warnings)


async def test_a_window_too_small_to_summarize_in_is_refused() -> None:
    messages = view_of([user(), *rounds(4, size=50), says("Done."), user("Next?")])
    result = await Compactor().compact(
        messages, model=ScriptedModel([]), tokens_before=900, window=1000
    )
    assert "too small to summarize in" in result.abandoned


async def test_a_second_compaction_folds_in_the_earlier_summary() -> None:
    turns = [user(), *rounds(10), says("Done."), user("Next?"), *rounds(10, start=20)]
    turns += [says("Done again."), user("And now?")]
    messages = view_of(turns)
    first = await Compactor().compact(
        messages[:23], model=summarizer("FIRST"), tokens_before=9000, window=10_000, summary=True
    )
    assert first.method == "summary"
    view = (*first.messages, *messages[23:])
    model = summarizer("SECOND")
    second = await Compactor().compact(
        view, model=model, tokens_before=9000, window=10_000, summary=True
    )
    assert second.method == "summary"
    assert "EARLIER SUMMARY: FIRST" in model.requests[0].messages[0].text
    head_texts = [p.text for p in second.messages[0].parts if isinstance(p, TextPart)]
    assert sum(t.startswith(SUMMARY_HEADER) for t in head_texts) == 1
    assert head_texts[-1].endswith("SECOND")


async def test_a_focus_asks_for_a_summary_and_is_passed_on() -> None:
    messages = view_of([user(), *rounds(6, size=100), says("Done."), user("Next?")])
    model = summarizer("s")
    result = await Compactor().compact(
        messages, model=model, tokens_before=1000, window=100_000, focus="the failing test"
    )
    assert result.method == "summary"
    assert "Pay particular attention to: the failing test" in model.requests[0].messages[0].text


async def test_summary_requests_take_the_sessions_options_without_tools_or_reasoning() -> None:
    messages = view_of([user(), *rounds(6, size=100), says("Done."), user("Next?")])
    session_request = Request(
        messages=messages,
        model="big-model",
        system="You are a coding agent.",
        max_tokens=32_000,
        reasoning_effort="high",
        provider_options={"openai-compat": {"seed": 7}},
    )
    model = summarizer("s")
    await Compactor(summary_tokens=1234).compact(
        messages,
        model=model,
        tokens_before=1000,
        window=100_000,
        options=session_request,
        summary=True,
    )
    (request,) = model.requests
    assert request.model == "big-model" and request.provider_options == {
        "openai-compat": {"seed": 7}
    }
    assert request.system == SUMMARY_SYSTEM and request.tools == ()
    assert request.max_tokens == 1234 and request.reasoning_effort is None


def test_needed_at_the_threshold() -> None:
    compactor = Compactor()
    assert not compactor.needed(849, 1000)
    assert compactor.needed(850, 1000)
    assert not Compactor(threshold=0.5).needed(10, 0)


# the message cap


def test_the_cap_trims_the_oldest_after_the_first_message() -> None:
    messages = view_of([user(), *rounds(20, size=10), says("Done.")])
    trimmed, warning = trim_to_cap(messages, 10)
    assert len(trimmed) <= 10 and "cap of 10 messages" in warning
    assert trimmed[0].parts[0] == TextPart(text=TASK)
    assert "earlier messages were dropped" in trimmed[0].text
    assert view_problems(trimmed) == []
    assert trim_to_cap(trimmed, 10) == (trimmed, "")


async def test_the_compactor_trims_as_a_last_resort() -> None:
    messages = view_of([user(), *rounds(30, size=10), says("Done."), user("Next?")])
    result = await Compactor(max_messages=12).compact(
        messages, model=summarizer("y" * 10_000), tokens_before=900, window=1000
    )
    assert result.method == "trim" and len(result.messages) <= 12
    assert any("cap of 12" in w for w in result.warnings)


def test_files_changed_in_order_without_failures() -> None:
    assert files_changed(history_with_edits()) == ("src/a.py", "src/cli.py", "src/b.py")


# the Transcript carries the view


async def test_the_transcript_sends_the_view_and_extends_it() -> None:
    turns = [user(), *rounds(10), says("Done."), user("Next?")]
    transcript = Transcript(turns)
    result = await Compactor().compact(
        transcript.messages(), model=summarizer(), tokens_before=9000, window=10_000
    )
    transcript.replace_view(result.messages)
    transcript.append(says("", call("n1")))
    transcript.append(answers(("n1", "new output")))
    transcript.append(SteeringTurn(text="hurry", timestamp=0.0))
    sent = transcript.messages()
    assert sent[: len(result.messages)] == result.messages
    assert [p.kind for p in sent[-1].parts] == ["tool_result", "text"]
    transcript.check()
    assert transcript.turns[: len(turns)] == turns and len(transcript.turns) == len(turns) + 3
    assert view_problems(sent) == []


def test_a_view_installed_before_later_turns_derives_them() -> None:
    answer = says("ok")
    turns: list[Turn] = [user(), says("", call("a")), answers(("a", "x")), answer, user("more")]
    transcript = Transcript(turns)
    head = Message.user("summary")
    transcript.replace_view([head], upto=3)
    assert transcript.messages() == (head, answer.message, Message.user("more"))


# property: any valid history compacts to a valid, smaller view (or is left as it is)


@st.composite
def histories(draw: st.DrawFn) -> list[Turn]:
    turns: list[Turn] = [user()]
    ids = iter(range(10_000))
    for _ in range(draw(st.integers(0, 25))):
        count = draw(st.integers(0, 3))
        calls = [call(f"k{next(ids)}") for _ in range(count)]
        if not calls:
            turns.append(says("answer"))
            turns.append(user(draw(st.sampled_from(["next", "more please"]))))
            continue
        turns.append(says(draw(st.sampled_from(["", "let me look"])), *calls))
        size = draw(st.sampled_from([5, 500, 3000]))
        turns.append(answers(*((c.id, "z" * size) for c in calls)))
        if draw(st.booleans()):
            turns.append(SteeringTurn(text="steer", timestamp=0.0))
    return turns


@settings(max_examples=60, deadline=None)
@given(
    history=histories(),
    cap=st.sampled_from([4, 9, 1000]),
    keep=st.integers(0, 3),
    summary=st.booleans(),
)
def test_compacted_views_are_valid(history: list[Turn], cap: int, keep: int, summary: bool) -> None:
    messages = view_of(history)
    before = tokens(messages)
    compactor = Compactor(max_messages=cap, keep_rounds=keep, summary_tokens=50)
    result = asyncio.run(
        compactor.compact(
            messages,
            model=summarizer("s"),
            tokens_before=before,
            window=max(before, 2000),
            summary=summary,
        )
    )
    assert view_problems(result.messages) == []
    if result.method == "trim":  # the cap counts messages (its note may outweigh them)
        assert len(result.messages) <= cap < len(messages)
    elif result.compacted:
        assert chars_of(result.messages) < chars_of(messages)
        assert result.messages[-1] == messages[-1]  # not seen by the model yet: never elided
        assert result.messages[0].parts[0] == messages[0].parts[0]
    else:
        assert result.messages == messages
