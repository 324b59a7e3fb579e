"""The narrator: sentence-sized narration from deltas of any size, phases and milestones in
the forms small models write them."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from taor.agent.events import AssistantTextDelta, AssistantTextEnd, AssistantTextStart
from taor.build.events import BuildEvent, Narration, Phase, SectionSummary
from taor.build.narration import Narrator, phase_name, summary_start

TEXT = (
    "**Scaffolding**\nWe start with the layout, because everything hangs on it. Then we add "
    "`app.py`.\n\nSummary: we have a skeleton.\n- `app.py` holds the entry point\n\n"
    "## Tests\nNow the tests! They pass"
)


def narrate(text: str, size: int) -> list[BuildEvent]:
    narrator = Narrator()
    out = narrator.feed(AssistantTextStart())
    for i in range(0, len(text), size):
        out += narrator.feed(AssistantTextDelta(delta=text[i : i + size]))
    return out + narrator.feed(AssistantTextEnd(text=text))


def shown(events: list[BuildEvent]) -> list[tuple[str, str]]:
    def what(e: BuildEvent) -> str:
        return e.name if isinstance(e, Phase) else getattr(e, "text", "")

    return [(e.kind, what(e)) for e in events]


EXPECTED = [
    ("phase", "Scaffolding"),
    ("narration", "We start with the layout, because everything hangs on it."),
    ("narration", "Then we add `app.py`."),
    ("section_summary", "we have a skeleton.\n- `app.py` holds the entry point"),
    ("phase", "Tests"),
    ("narration", "Now the tests!"),
    ("narration", "They pass"),
]


@pytest.mark.parametrize("size", [1, 3, 16, 1000])
def test_sentences_phases_and_milestones_whatever_the_delta_size(size: int) -> None:
    assert shown(narrate(TEXT, size)) == EXPECTED


@given(st.lists(st.integers(min_value=1, max_value=40), min_size=1, max_size=60))
def test_the_pieces_do_not_depend_on_how_the_text_was_cut(cuts: list[int]) -> None:
    narrator, out, at = Narrator(), [], 0
    for cut in cuts:
        out += narrator.feed(AssistantTextDelta(delta=TEXT[at : at + cut]))
        at += cut
    out += narrator.feed(AssistantTextDelta(delta=TEXT[at:])) + narrator.flush()
    assert shown(out) == EXPECTED


def test_pieces_are_sentences_not_tokens_nor_turns() -> None:
    events = narrate("One. Two! Three? Four.", 1)
    assert [e.text for e in events if isinstance(e, Narration)] == [
        "One.",
        "Two!",
        "Three?",
        "Four.",
    ]


def test_a_summary_names_the_phase_it_closes_and_paragraphs_are_marked() -> None:
    events = narrate("**Routes**\nFirst.\n\nSecond.\n**Summary:** routes done.\n", 5)
    summary = next(e for e in events if isinstance(e, SectionSummary))
    assert (summary.text, summary.phase) == ("routes done.", "Routes")
    pieces = [(e.text, e.new_paragraph) for e in events if isinstance(e, Narration)]
    assert pieces == [("First.", True), ("Second.", True)]


@pytest.mark.parametrize(
    ("line", "name"),
    [
        ("**Scaffolding**", "Scaffolding"),
        ("**Phase 2: Tests**:", "Phase 2: Tests"),
        ("### Authentication", "Authentication"),
        ("__Data model__", "Data model"),
        ("**Bold** and then words", None),
        ("A sentence that ends.", None),
        ("**Summary**", None),
        ("Step 2: Write the tests", "Step 2: Write the tests"),
        ("Step 2: we write the tests. Then more.", None),
    ],
)
def test_phase_forms(line: str, name: str | None) -> None:
    assert phase_name(line) == name


@pytest.mark.parametrize(
    ("line", "rest"),
    [
        ("Summary: it works", "it works"),
        ("**Summary:** it works", "it works"),
        ("## Section summary", ""),
        ("> **Milestone** - routes", "routes"),
        ("Summarizing now", None),
    ],
)
def test_summary_forms(line: str, rest: str | None) -> None:
    assert summary_start(line) == rest


def test_a_summary_at_the_end_of_the_text_is_closed_by_the_end() -> None:
    events = narrate("Done.\nSummary: all of it", 4)
    assert shown(events)[-1] == ("section_summary", "all of it")


def test_while_reporting_only_the_handoff_before_the_report_is_narration() -> None:
    narrator = Narrator()
    narrator.reporting(True)
    text = "We stopped at the limit. Tests remain.\n\n## What we built\nA tool.\n**Summary**: x\n"
    out = narrator.feed(AssistantTextDelta(delta=text))
    assert shown(out + narrator.flush()) == [
        ("narration", "We stopped at the limit."),
        ("narration", "Tests remain."),
    ]
    narrator.reporting(False)
    assert shown(narrator.feed(AssistantTextDelta(delta="**Next**\n"))) == [("phase", "Next")]
