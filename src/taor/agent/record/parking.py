"""Permission waits in the record: how a session waiting for a person is parked, and how a
reopened transcript picks the wait up again.

A session that asks a person whether a tool call may run (a ``permission_request``) and records
its transcript writes the question before anyone sees it: a notice whose ``permission`` holds
the request as emitted and the results of the round's calls that ended before it
(``PermissionNote``). The answer is written the same way before the call runs. Nothing else
changes in the record: the round's results are written once, in call order, when the round ends,
in this process or in the one that resumes the session. So every tool call has exactly one
result, and a reader of the file sees a valid transcript whose last round is in flight (as
during any tool round); notices are never sent to a model.

A session closed while it waits, or a process killed then, leaves the round parked: an assistant
turn whose calls have no results, followed by notices only, among them the question and no
answer to it. ``parked_round`` finds it; a reopened session asks again (the same request id)
and goes on with the round, where the answer given there applies: the calls that ended before
are not run again (their recorded results are used), the call runs once if allowed. A round
whose question was answered but whose results never came (the process died while the allowed
call ran, or after it) may have run: ``answered_round_results`` gives it the recorded results
and ``stopped`` ones for the rest, and nothing is run again.
"""

from __future__ import annotations

from collections.abc import Sequence

from taor._records import frozen
from taor.agent.events import PermissionRequest
from taor.agent.record.transcript import synthetic_result
from taor.agent.record.turns import (
    AssistantTurn,
    NoticeTurn,
    PermissionNote,
    ToolResultsTurn,
    Turn,
)
from taor.llm.types import ToolCallPart, ToolResultPart


@frozen
class ParkedRound:
    """A round waiting for a permission answer: its ``calls``, the ``request`` to ask again,
    the results of the calls that ended before it (``done``, by call id), whether the reply
    was cut at the output limit (``cut``) and where its assistant turn is (``index``)."""

    index: int
    calls: tuple[ToolCallPart, ...]
    request: PermissionRequest
    done: dict[str, ToolResultPart]
    cut: bool


def parked_round(turns: Sequence[Turn]) -> ParkedRound | None:
    """The round at the end of ``turns`` that waits for an answer, or None."""
    found = _round_with_question(turns)
    if found is None or found[2]:
        return None
    index, question, _ = found
    turn = turns[index]
    assert isinstance(turn, AssistantTurn) and question.request is not None
    return ParkedRound(
        index=index,
        calls=tuple(turn.message.tool_calls),
        request=question.request,
        done={result.call_id: result for result in question.done},
        cut=turn.finish == "length",
    )


def answered_round_results(turns: Sequence[Turn]) -> ToolResultsTurn | None:
    """The results of a round at the end of ``turns`` whose question was answered and whose
    results never came: the recorded ones, ``stopped`` for the calls that may have run."""
    found = _round_with_question(turns)
    if found is None or not found[2]:
        return None
    index, question, _ = found
    turn = turns[index]
    assert isinstance(turn, AssistantTurn)
    done = {result.call_id: result for result in question.done}
    return ToolResultsTurn(
        results=tuple(
            done.get(call.id) or synthetic_result(call.id, call.name, "stopped")
            for call in turn.message.tool_calls
        )
    )


def _round_with_question(turns: Sequence[Turn]) -> tuple[int, PermissionNote, bool] | None:
    """The last round when it has no results and a question was recorded in it: where its
    assistant turn is, the last question, and whether that question was answered."""
    answered: set[str] = set()
    question: PermissionNote | None = None
    for index in range(len(turns) - 1, -1, -1):
        turn = turns[index]
        if isinstance(turn, NoticeTurn):
            note = turn.permission
            if note is not None and note.answer is not None:
                answered.add(note.request_id)
            elif note is not None and note.request is not None and question is None:
                question = note
            continue
        if isinstance(turn, AssistantTurn) and turn.message.tool_calls and question is not None:
            return index, question, question.request_id in answered
        return None
    return None
