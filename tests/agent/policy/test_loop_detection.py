from __future__ import annotations

import itertools
from collections.abc import Iterable

from hypothesis import given
from hypothesis import strategies as st

from taor.agent.config import LoopDetectionConfig
from taor.agent.policy.loop_detection import LoopDetector, LoopVerdict, signature
from taor.llm.types import ToolCallPart

_ids = itertools.count()


def call(name: str, **arguments: object) -> ToolCallPart:
    return ToolCallPart(id=f"c{next(_ids)}", name=name, arguments=arguments)


def feed(detector: LoopDetector, calls: Iterable[ToolCallPart]) -> list[LoopVerdict | None]:
    return [detector.record(c) for c in calls]


def fired(verdicts: list[LoopVerdict | None]) -> list[tuple[int, LoopVerdict]]:
    return [(i, v) for i, v in enumerate(verdicts) if v is not None]


A, B, C = call("read_file", path="a.py"), call("grep", pattern="x"), call("shell", command="ls")


def test_signature_is_canonical_json() -> None:
    one = ToolCallPart(id="1", name="t", arguments={"b": 1, "a": "é"})
    two = ToolCallPart(id="2", name="t", arguments={"a": "é", "b": 1})
    assert signature(one) == signature(two) == 't {"a":"é","b":1}'


def test_signature_uses_raw_arguments_when_unparsed() -> None:
    parsed = ToolCallPart(id="1", name="t", raw_arguments='{ "b": 1, "a": 2 }')
    broken = ToolCallPart(id="2", name="t", raw_arguments='{"a": ')
    assert signature(parsed) == 't {"a":2,"b":1}'
    assert signature(broken) == 't "{\\"a\\":"'
    assert signature(ToolCallPart(id="3", name="t")) == "t {}"


def test_one_cycle_warns_on_the_tenth_identical_call() -> None:
    results = fired(feed(LoopDetector(LoopDetectionConfig()), [A] * 10))
    assert len(results) == 1
    index, verdict = results[0]
    assert index == 9
    assert verdict.kind == "warn"
    assert verdict.cycle_length == 1
    assert verdict.repeats == 10
    assert "read_file" in verdict.message
    assert "different approach" in verdict.message


def test_two_cycle_warns_after_five_copies() -> None:
    results = fired(feed(LoopDetector(LoopDetectionConfig()), [A, B] * 5))
    assert [(i, v.kind, v.pattern) for i, v in results] == [
        (9, "warn", (signature(A), signature(B)))
    ]


def test_three_cycle_is_found_with_a_window_of_ten() -> None:
    results = fired(feed(LoopDetector(LoopDetectionConfig()), [A, B, C] * 3))
    assert len(results) == 1
    index, verdict = results[0]
    assert index == 8
    assert verdict.kind == "warn"
    assert verdict.cycle_length == 3
    assert verdict.repeats == 3


def test_nine_identical_calls_are_not_mistaken_for_a_three_cycle() -> None:
    assert fired(feed(LoopDetector(LoopDetectionConfig()), [A] * 9)) == []


def test_repetitive_work_with_varying_arguments_never_fires() -> None:
    detector = LoopDetector(LoopDetectionConfig())
    moves = [call("shell", command=f"git mv f{i}.py src/f{i}.py") for i in range(50)]
    assert fired(feed(detector, moves)) == []
    alternating = [
        c for i in range(30) for c in (call("read_file", path=f"{i}.py"), call("edit_file", n=i))
    ]
    assert fired(feed(detector, alternating)) == []


def test_warning_then_the_same_loop_resumed_stops() -> None:
    detector = LoopDetector(LoopDetectionConfig())
    feed(detector, [A] * 10)
    assert detector.record(A) is None  # one stray match is not a loop yet
    verdict = detector.record(A)
    assert verdict is not None
    assert verdict.kind == "stop"
    assert verdict.pattern == (signature(A),)
    assert "after being warned" in verdict.message


def test_resumed_cycle_in_another_rotation_stops() -> None:
    detector = LoopDetector(LoopDetectionConfig())
    feed(detector, [A, B, C] * 3)
    results = fired(feed(detector, [B, C, A, B, C, A]))
    assert [(i, v.kind) for i, v in results] == [(5, "stop")]


def test_single_repeat_after_other_work_does_not_stop() -> None:
    detector = LoopDetector(LoopDetectionConfig())
    feed(detector, [A] * 10)
    others = [call("edit_file", n=i) for i in range(5)]
    assert fired(feed(detector, [*others, A, *others])) == []


def test_warned_pattern_filling_the_window_later_stops() -> None:
    detector = LoopDetector(LoopDetectionConfig())
    feed(detector, [A] * 10)
    feed(detector, [call("edit_file", n=i) for i in range(12)])  # the watch has ended
    results = fired(feed(detector, [A] * 10))
    assert [(i, v.kind) for i, v in results] == [(9, "stop")]


def test_cooldown_holds_back_a_different_pattern() -> None:
    detector = LoopDetector(LoopDetectionConfig(window=4, cooldown=6))
    feed(detector, [A] * 4)
    results = fired(feed(detector, [B] * 6))  # the window fills with B at the fourth call
    assert [(i, v.kind, v.pattern) for i, v in results] == [(5, "warn", (signature(B),))]


def test_a_different_pattern_after_the_cooldown_warns_again() -> None:
    detector = LoopDetector(LoopDetectionConfig())
    first = fired(feed(detector, [A] * 10))
    second = fired(feed(detector, [B, C] * 5))
    assert [v.kind for _, v in first + second] == ["warn", "warn"]


def test_reset_keeps_the_window_from_spanning_inputs() -> None:
    detector = LoopDetector(LoopDetectionConfig())
    feed(detector, [A] * 9)
    detector.reset()
    assert fired(feed(detector, [A] * 9)) == []
    assert detector.record(A) is not None


def test_reset_forgets_warnings() -> None:
    detector = LoopDetector(LoopDetectionConfig())
    feed(detector, [A] * 10)
    detector.reset()
    results = fired(feed(detector, [A] * 10))
    assert [(i, v.kind) for i, v in results] == [(9, "warn")]


def test_disabled_config_never_fires() -> None:
    detector = LoopDetector(LoopDetectionConfig(enabled=False))
    assert fired(feed(detector, [A] * 30 + [A, B] * 10)) == []


_NAMES = ("read_file", "grep", "glob", "shell", "edit_file")


@st.composite
def square_free_calls(draw: st.DrawFn) -> list[ToolCallPart]:
    """Calls with no block of 1-3 signatures repeated back to back, and so no loop."""
    signatures: list[str] = []
    calls: list[ToolCallPart] = []
    for _ in range(draw(st.integers(0, 60))):
        candidates = [
            (name, arg)
            for name in _NAMES
            for arg in range(2)
            if not _makes_square([*signatures, f"{name}{arg}"])
        ]
        name, arg = draw(st.sampled_from(candidates))
        signatures.append(f"{name}{arg}")
        calls.append(call(name, arg=arg))
    return calls


def _makes_square(sigs: list[str]) -> bool:
    return any(len(sigs) >= 2 * k and sigs[-k:] == sigs[-2 * k : -k] for k in (1, 2, 3))


@given(square_free_calls(), st.integers(2, 12))
def test_no_repeating_pattern_never_fires(calls: list[ToolCallPart], window: int) -> None:
    detector = LoopDetector(LoopDetectionConfig(window=window))
    assert fired(feed(detector, calls)) == []


@given(
    st.lists(st.sampled_from(_NAMES), min_size=1, max_size=3, unique=True),
    st.lists(st.sampled_from(_NAMES), max_size=5),
)
def test_any_short_cycle_is_found(block: list[str], prefix: list[str]) -> None:
    detector = LoopDetector(LoopDetectionConfig())
    calls = [call(n, prefix=True) for n in prefix] + [call(n) for n in block] * 10
    results = fired(feed(detector, calls))
    assert results
    assert results[0][1].kind == "warn"
    assert results[0][1].cycle_length == len(block)


def test_repeats_warns_on_the_third_copy_anywhere_in_the_window() -> None:
    detector = LoopDetector(LoopDetectionConfig(repeats=3))
    results = fired(feed(detector, [A, B, A, C, A]))
    assert [(i, v.kind, v.pattern, v.repeats) for i, v in results] == [
        (4, "warn", (signature(A),), 3)
    ]
    assert "3 times" in results[0][1].message


def test_repeats_stops_only_when_the_warned_call_repeats_again() -> None:
    detector = LoopDetector(LoopDetectionConfig(repeats=3))
    feed(detector, [A, A, A])  # warned: the model tries something else
    assert fired(feed(detector, [B, C, A, B])) == []  # one stray copy is not a loop
    results = fired(feed(detector, [A, A]))
    assert [(v.kind, v.pattern) for _, v in results] == [("stop", (signature(A),))]


def test_repeats_off_keeps_the_cycle_rule() -> None:
    assert fired(feed(LoopDetector(LoopDetectionConfig()), [A, B, A, C, A])) == []
