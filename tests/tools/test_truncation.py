import re
from itertools import accumulate

import pytest
from hypothesis import given
from hypothesis import strategies as st

from taor.tools.builtin import builtin_tools
from taor.tools.builtin.shell import SHELL_LIMITS
from taor.tools.registry import ToolRegistry
from taor.tools.truncation import (
    FALLBACK_LIMITS,
    Limits,
    Truncated,
    truncate,
)

# No "[" or "]" in generated text, so the marker is the only bracketed span of a result.
texts = st.text(alphabet=st.sampled_from("ab \n\r\u00e9"), max_size=200)
limits = st.builds(
    Limits,
    chars=st.integers(1, 80),
    lines=st.none() | st.integers(1, 12),
    mode=st.sampled_from(["head_tail", "tail"]),
)
WARNING = re.compile(
    r"\[WARNING: Tool output was truncated\. (First )?(\d+) characters?"
    r"(, including (\d+) whole lines?,)? were removed"
)


def count_lines(text: str) -> int:
    return text.count("\n") + int(text != "" and not text.endswith("\n"))


def split_result(text: str, result: Truncated) -> tuple[str, str, str]:
    """The kept head, the marker with its padding, and the kept tail of a truncated result."""
    start, end = result.text.index("["), result.text.index("]") + 1
    core, after = result.text[start:end], result.text[end:]
    if core.startswith("[WARNING"):
        tail = after.removeprefix("\n\n")
        head = text[: len(text) - result.omitted_chars - len(tail)]
        padding = "" if not head else "\n" if head.endswith("\n") else "\n\n"
        assert result.text == head + padding + core + "\n\n" + tail
        return head, padding + core + "\n\n", tail
    line_end = "\r\n" if after.startswith("\r\n") else "\n"
    return result.text[:start], core + line_end, after.removeprefix(line_end)


def lines_with_nothing_shown(text: str, head: str, tail: str) -> int:
    """Brute force: lines none of whose characters (newline included) is in head or tail."""
    line_of = [0, *accumulate(char == "\n" for char in text)][: len(text)]
    shown = set(line_of[: len(head)]) | set(line_of[len(text) - len(tail) :])
    return len(set(line_of) - shown)


@given(texts, limits)
def test_text_within_limits_is_returned_untouched(text: str, limit: Limits) -> None:
    fits = len(text) <= limit.chars and (limit.lines is None or count_lines(text) <= limit.lines)
    result = truncate(text, limit)
    assert result.truncated is not fits
    if fits:
        assert result == Truncated(text=text)
        assert result.text is text


@given(texts, limits)
def test_a_cut_keeps_head_and_tail_verbatim_within_the_limits(text: str, limit: Limits) -> None:
    result = truncate(text, limit)
    if not result.truncated:
        return
    head, marker, tail = split_result(text, result)
    assert text.startswith(head)
    assert text.endswith(tail)
    assert len(head) + result.omitted_chars + len(tail) == len(text)
    assert len(head) + len(tail) <= limit.chars
    assert len(result.text) <= limit.chars + len(marker)
    if limit.lines is not None:
        assert count_lines(head) + count_lines(tail) <= limit.lines
    if limit.mode == "tail":
        assert head == ""
    elif limit.lines is None:
        assert (len(head), len(tail)) == (limit.chars // 2, limit.chars - limit.chars // 2)


@given(texts, limits)
def test_the_line_pass_keeps_as_many_lines_as_allowed(text: str, limit: Limits) -> None:
    if limit.lines is None:
        return
    if len(text) > limit.chars:  # the character pass of the spec, before any line is cut
        head_chars = limit.chars // 2 if limit.mode == "head_tail" else 0
        tail_chars = limit.chars - head_chars
        lines_before = count_lines(text[:head_chars]) + count_lines(text[-tail_chars:])
    else:
        lines_before = count_lines(text)
    result = truncate(text, limit)
    head, _, tail = split_result(text, result) if result.truncated else (text, "", "")
    assert count_lines(head) + count_lines(tail) == min(lines_before, limit.lines)


@given(texts, limits)
def test_the_marker_states_what_was_cut(text: str, limit: Limits) -> None:
    result = truncate(text, limit)
    if not result.truncated:
        assert "[" not in result.text
        return
    head, marker, tail = split_result(text, result)
    assert result.omitted_lines == lines_with_nothing_shown(text, head, tail)
    assert result.text.count("[") == 1
    if len(text) > limit.chars:
        match = WARNING.search(marker)
        assert match is not None
        assert int(match[2]) == result.omitted_chars
        assert int(match[4] or 0) == result.omitted_lines
        assert (match[1] is not None) == (limit.mode == "tail")
    else:
        assert marker.startswith(f"[... {result.omitted_lines} lines omitted ...]")


def test_head_tail_character_marker_is_the_spec_marker() -> None:
    result = truncate("a" * 10 + "b" * 10, Limits(chars=10))
    assert result.text == (
        "aaaaa\n\n[WARNING: Tool output was truncated. 10 characters were removed from the "
        "middle. The full output is available in the event stream. If you need to see specific "
        "parts, re-run the tool with more targeted parameters.]\n\nbbbbb"
    )
    assert (result.omitted_chars, result.omitted_lines) == (10, 0)


def test_tail_character_marker_is_the_spec_marker() -> None:
    result = truncate("x" * 15 + "abcde", Limits(chars=5, mode="tail"))
    assert result.text == (
        "[WARNING: Tool output was truncated. First 15 characters were removed. The full output "
        "is available in the event stream.]\n\nabcde"
    )


def test_line_marker_is_the_spec_marker() -> None:
    text = "".join(f"{i}\n" for i in range(10))
    result = truncate(text, Limits(chars=1000, lines=4))
    assert result.text == "0\n1\n[... 6 lines omitted ...]\n8\n9\n"
    assert (result.omitted_chars, result.omitted_lines) == (12, 6)


def test_tail_mode_keeps_the_last_lines() -> None:
    text = "\n".join(str(i) for i in range(10))
    result = truncate(text, Limits(chars=1000, lines=3, mode="tail"))
    assert result.text == "[... 7 lines omitted ...]\n7\n8\n9"


def test_the_character_marker_survives_the_line_pass() -> None:
    text = "".join(f"line {i:03}\n" for i in range(1000))  # 9 chars a line
    result = truncate(text, Limits(chars=900, lines=10))
    head, _, tail = split_result(text, result)
    assert head == "".join(f"line {i:03}\n" for i in range(5))
    assert tail == "".join(f"line {i:03}\n" for i in range(995, 1000))
    assert "[WARNING: Tool output was truncated. 8910 characters, including 990 whole lines," in (
        result.text
    )
    assert (result.omitted_chars, result.omitted_lines) == (8910, 990)


def test_line_budget_left_unused_by_a_short_head_goes_to_the_tail() -> None:
    text = "x" * 100 + "".join(f"\n{i}" for i in range(20))
    result = truncate(text, Limits(chars=60, lines=6))
    head, _, tail = split_result(text, result)
    assert head == "x" * 30
    assert tail == "".join(f"{i}\n" for i in range(15, 19)) + "19"
    assert result.omitted_lines == 15


def test_line_budget_left_unused_by_a_short_tail_goes_to_the_head() -> None:
    text = "".join(f"{i}\n" for i in range(20)) + "x" * 100
    result = truncate(text, Limits(chars=60, lines=6))
    head, _, tail = split_result(text, result)
    assert head == "0\n1\n2\n3\n4\n"
    assert tail == "x" * 30
    assert result.omitted_lines == 15


def test_crlf_counts_like_lf_and_is_kept() -> None:
    lf = "".join(f"row {i}\n" for i in range(20))
    crlf = lf.replace("\n", "\r\n")
    limit = Limits(chars=10_000, lines=4)
    assert truncate(crlf, limit).omitted_lines == truncate(lf, limit).omitted_lines == 16
    assert truncate(crlf, limit).text == (
        "row 0\r\nrow 1\r\n[... 16 lines omitted ...]\r\nrow 18\r\nrow 19\r\n"
    )
    assert truncate(crlf, Limits(chars=10_000, lines=20)).text is crlf


def test_a_lone_carriage_return_does_not_end_a_line() -> None:
    progress = "\r".join(f"{i}%" for i in range(100)) + "\ndone\n"
    assert truncate(progress, Limits(chars=10_000, lines=2)).text is progress


def test_a_huge_single_line_is_cut_by_characters_with_no_lines_omitted() -> None:
    text = "z" * 10_000_000
    result = truncate(text, SHELL_LIMITS)
    assert (result.omitted_chars, result.omitted_lines) == (10_000_000 - 30_000, 0)
    assert result.text.startswith("z" * 15_000 + "\n\n[WARNING")
    assert result.text.endswith("]\n\n" + "z" * 15_000)


def test_declared_limits_follow_the_design() -> None:
    declared = {t.name: ToolRegistry([t]).limits(t.name) for t in builtin_tools()}
    assert declared == {
        "read_file": Limits(chars=50_000),
        "read_many_files": FALLBACK_LIMITS,
        "list_dir": FALLBACK_LIMITS,
        "write_file": Limits(chars=1_000, mode="tail"),
        "edit_file": Limits(chars=10_000, mode="tail"),
        "apply_patch": Limits(chars=10_000, mode="tail"),
        "shell": Limits(chars=30_000, lines=256),
        "grep": Limits(chars=20_000, lines=200, mode="tail"),
        "glob": Limits(chars=20_000, lines=500, mode="tail"),
        "take_screenshot": FALLBACK_LIMITS,
    }


@pytest.mark.parametrize("name", ["wait", "my_custom_tool"])
def test_tools_that_declare_no_limits_get_the_fallback(name: str) -> None:
    assert ToolRegistry().limits(name) == FALLBACK_LIMITS == Limits(chars=20_000, mode="head_tail")


@pytest.mark.parametrize(
    "kwargs",
    [{"chars": 0}, {"chars": 10, "lines": 0}, {"chars": 10, "mode": "head"}],
)
def test_invalid_limits_are_refused(kwargs: dict[str, object]) -> None:
    with pytest.raises(ValueError, match="Limits"):
        Limits(**kwargs)  # type: ignore[arg-type]
