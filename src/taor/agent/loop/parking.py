"""Permission waits the loop records, so that a session waiting for a person can be parked and
resumed in another process (the records and how a reopened transcript is read:
``taor.agent.record.parking``).

``record_question`` writes the question before the host sees it, ``record_answer`` the answer
before the call runs; only a session with a transcript store records them (nothing else could
resume it). ``park`` is what a close does to a round whose question is open: it leaves the round
waiting, unanswered, instead of answering the call ``interrupted``. A resumed session asks the
same request again (``Runtime.parked``; the parts of the runtime these read: ``Waits``); ``settle_early`` gives it an answer the host sent before
the question was out again.
"""

from __future__ import annotations

import asyncio

from taor.agent.events import Event, Interrupted, PermissionRequest
from taor.agent.parts import Waits
from taor.agent.policy.decisions import Decision
from taor.agent.record.turns import NoticeTurn, PermissionNote

_ANSWERED = {"allow": "allowed", "allow_always": "allowed always", "deny": "denied"}


async def record_question(rt: Waits, request: PermissionRequest) -> None:
    """The question, with the results of the round's calls that ended before it."""
    if rt.store is None:
        return
    done = tuple(rt.cycle.results.values())
    note = PermissionNote(request_id=request.request_id, request=request, done=done)
    await rt.append(NoticeTurn(text=f"waiting for permission: {request.summary}", permission=note))
    rt.cycle.asked = request


async def record_answer(rt: Waits, request: PermissionRequest, decision: Decision) -> None:
    """The answer to the question ``record_question`` wrote (from the host, or the default)."""
    if rt.parked is not None and rt.parked.request_id == request.request_id:
        forget_parked(rt)  # answered: the resumed session waits no more
    if rt.cycle.asked is None or rt.cycle.asked.request_id != request.request_id:
        return
    rt.cycle.asked = None
    note = PermissionNote(request_id=request.request_id, answer=decision.kind)
    text = f"permission {_ANSWERED[decision.kind]}: {request.summary}"
    await rt.append(NoticeTurn(text=text, permission=note))


def answer_early(rt: Waits, request_id: str, decision: Decision) -> bool:
    """Keep the host's answer to the request a resumed session is to ask again, until it has;
    False when ``request_id`` is not that request."""
    if rt.parked is None or rt.parked.request_id != request_id:
        return False
    rt.parked_answer = decision
    return True


def settle_early(rt: Waits, request_id: str, future: asyncio.Future[Decision]) -> None:
    """Once the request a resumed session was parked on is asked again: the host's answer
    given before that (``Session.decide``), if any, settles it."""
    if rt.parked is None or rt.parked.request_id != request_id or rt.parked_answer is None:
        return
    future.set_result(rt.parked_answer)
    rt.parked_answer = None


def forget_parked(rt: Waits) -> None:
    """The parked request is answered, or the resumed round is over (the policy of this
    session may have settled the call without asking)."""
    rt.parked, rt.parked_answer = None, None


async def park(rt: Waits) -> list[Event] | None:
    """On close: the events of a round left waiting for its recorded question (the asking
    call is the only one running); None when the round must be answered as usual."""
    asked = rt.cycle.asked
    if asked is None or set(rt.cycle.running_calls) != {asked.call_id}:
        return None
    reason = rt.cycle.stop_notice
    text = f"{reason} while waiting for permission ({asked.request_id}): resume it to answer"
    await rt.append(NoticeTurn(text=text))
    return [Interrupted(reason=reason)]
