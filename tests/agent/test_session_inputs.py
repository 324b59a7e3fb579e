"""Inputs a session takes whatever they hold: text that is not UTF-8 is replaced, with a
warning, and is never sent."""

from __future__ import annotations

from taor.agent.events import WarningEvent
from taor.testing import ScriptedModel, text

from .loop_support import collect, of, session


async def test_lone_surrogates_in_an_input_and_in_steering_are_replaced() -> None:
    model = ScriptedModel([text("ok")])
    async with session(model) as s:
        s.steer("and \udcfe too")
        events = await collect(s, "caf\udce9")
    (warning,) = of(events, WarningEvent)
    assert warning.code == "encoding" and "1 character(s)" in warning.message
    sent = model.requests[0].messages
    assert sent[-1].text.startswith("caf\ufffd") and "and \ufffd too" in sent[-1].text
    assert not any("\udce9" in m.text or "\udcfe" in m.text for m in sent)
