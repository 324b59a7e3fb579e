"""apply_edit: the exact pass, each fuzzy pass, uniqueness, line endings, and the error messages."""

from __future__ import annotations

import difflib
import sys
from collections.abc import Callable
from types import FrameType

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from taor.tools.edit import EditError, apply_edit

SOURCE = """\
def greet(name):
    message = "hello " + name
    return message


def part(name):
    return name
"""


def test_exact_match_replaces_the_one_occurrence_and_reports_no_fuzzy_pass() -> None:
    result = apply_edit(SOURCE, '"hello "', '"hi "')

    assert result.text == SOURCE.replace('"hello "', '"hi "')
    assert result.replacements == 1
    assert result.fuzzy is None
    assert result.summary.startswith("Replaced 1 occurrence.\n")


def test_trailing_whitespace_pass_matches_what_only_differs_at_line_ends() -> None:
    text = "a = 1   \nb = 2\t\nc = 3\n"

    result = apply_edit(text, "a = 1\nb = 2\n", "a = 10\nb = 20\n")

    assert result.text == "a = 10\nb = 20\nc = 3\n"
    assert result.fuzzy == "trailing_whitespace"
    assert "ignoring trailing whitespace" in result.summary


def test_indentation_pass_reindents_new_string_by_the_found_delta() -> None:
    text = "class A:\n    def f(self):\n        return 1\n"
    old = "def f(self):\n    return 1"
    new = "def f(self):\n    if self:\n        return 2\n    return 1"

    result = apply_edit(text, old, new)

    assert result.fuzzy == "indentation"
    assert result.text == (
        "class A:\n    def f(self):\n        if self:\n            return 2\n        return 1\n"
    )
    assert "re-indented" in result.summary


def test_indentation_pass_keeps_blank_lines_blank_and_handles_tabs() -> None:
    text = "if x:\n\tif y:\n\t\tgo()\n"

    result = apply_edit(text, "if y:\n\tgo()", "if y:\n\n\tstop()")

    assert result.fuzzy == "indentation"
    assert result.text == "if x:\n\tif y:\n\n\t\tstop()\n"


def test_typography_pass_reads_curly_quotes_dashes_and_nbsp_as_ascii() -> None:
    text = "title = “Don’t panic” — a\u00a0guide\nother = 1\n"

    result = apply_edit(text, 'title = "Don\'t panic" - a guide', 'title = "Relax"')

    assert result.fuzzy == "typography"
    assert result.text == 'title = "Relax"\nother = 1\n'
    assert "typographic quotes" in result.summary


def test_typography_pass_works_the_other_way_round() -> None:
    result = apply_edit('say("it\'s")\n', "say(“it’s”)", 'say("yes")')

    assert (result.fuzzy, result.text) == ("typography", 'say("yes")\n')


def test_exact_pass_wins_over_fuzzy_candidates() -> None:
    text = "x = 1  \nx = 1\n"

    result = apply_edit(text, "x = 1\n", "x = 2\n")

    assert (result.fuzzy, result.text) == (None, "x = 1  \nx = 2\n")


def test_several_exact_matches_are_an_error_naming_count_and_lines() -> None:
    with pytest.raises(EditError, match="matches 2 places") as caught:
        apply_edit(SOURCE, "return", "yield")

    message = str(caught.value)
    assert "lines 3, 7" in message
    assert "surrounding lines" in message
    assert "replace_all" in message


def test_overlapping_matches_count_as_several() -> None:
    with pytest.raises(EditError, match=r"matches 2 places .*lines 1, 1"):
        apply_edit("aaa\n", "aa", "b")


def test_a_fuzzy_match_must_be_unique_too_and_says_which_pass() -> None:
    text = "x = 1 \ny = 2\nx = 1\t\n"

    with pytest.raises(
        EditError, match=r"matches 2 places.*ignoring trailing whitespace"
    ) as caught:
        apply_edit(text, "x = 1\n", "x = 3\n")
    assert "lines 1, 3" in str(caught.value)


def test_replace_all_replaces_every_occurrence_and_counts_them() -> None:
    result = apply_edit("a.b a.b\na.b\n", "a.b", "c", replace_all=True)

    assert (result.text, result.replacements) == ("c c\nc\n", 3)
    assert result.summary.startswith("Replaced 3 occurrences.")


def test_replace_all_of_an_exact_match_inserts_new_string_verbatim() -> None:
    text = "f(1)\n  g(1)\n    g(1)\n"

    result = apply_edit(text, "g(1)\n", "g(2)\nh()\n", replace_all=True)

    assert (result.fuzzy, result.replacements) == (None, 2)
    assert result.text == "f(1)\n  g(2)\nh()\n    g(2)\nh()\n"


def test_replace_all_with_a_fuzzy_pass_uses_each_places_indentation() -> None:
    text = "a:\n  b()\n  c()\nd:\n    b()\n    c()\n"

    result = apply_edit(text, "b()\nc()", "b()\ne()", replace_all=True)

    assert (result.fuzzy, result.replacements) == ("indentation", 2)
    assert result.text == "a:\n  b()\n  e()\nd:\n    b()\n    e()\n"


def test_no_match_shows_the_closest_region_with_line_numbers() -> None:
    text = "".join(f"line_{n} = {n}\n" for n in range(1, 60))
    text = text.replace("line_30 = 30\n", "def compute(a, b):\n    return a * b\n")

    with pytest.raises(EditError, match="not found") as caught:
        apply_edit(text, "def compute(a, b):\n    return a + b\n", "pass")

    message = str(caught.value)
    assert "lines 30-31" in message
    assert "30 | def compute(a, b):" in message
    assert "31 |     return a * b" in message
    assert "Differences noticed" not in message  # no whitespace or punctuation to blame
    assert "read_file" in message


def test_no_match_names_the_whitespace_and_quote_differences_it_noticed() -> None:
    text = "header\nif ok:\n\tprint(“done”)  \n\tstop()\nfooter\n"

    with pytest.raises(EditError) as caught:
        apply_edit(text, "if ok:\n        print('done')\n    stop()", "pass")

    message = str(caught.value)
    assert "lines 2-4" in message
    assert "“ ”" in message
    assert "the file indents with tabs, old_string with spaces" in message
    assert "trailing whitespace differs" in message


def test_no_match_with_nothing_similar_shows_a_small_file_whole() -> None:
    with pytest.raises(EditError, match="No part of the file resembles it") as caught:
        apply_edit(SOURCE, "zzzz qqqq", "x")
    lines = SOURCE.split("\n")
    assert f"{len(lines)} | {lines[-1]}" in str(caught.value)
    assert "1 | " + lines[0] in str(caught.value)


def test_no_match_in_a_long_file_points_at_the_file() -> None:
    long = "".join(f"value_{n} = {n}\n" for n in range(200))
    with pytest.raises(EditError, match="check that this is the right file") as caught:
        apply_edit(long, "zzzz qqqq", "x")
    assert "value_199" not in str(caught.value)


def test_no_match_spots_line_number_prefixes_copied_from_read_file() -> None:
    with pytest.raises(EditError, match="line numbers from read_file"):
        apply_edit(SOURCE, "2 |     message = 1\n3 |     return message", "x")


def _work(action: Callable[[], object]) -> tuple[int, int]:
    """The calls ``action`` makes (Python and C functions) and, of them, the SequenceMatchers it
    builds: how much it works, whatever the machine's speed."""
    calls = matchers = 0
    matcher_init = difflib.SequenceMatcher.__init__.__code__

    def profile(frame: FrameType, event: str, arg: object) -> None:
        nonlocal calls, matchers
        if event in ("call", "c_call"):
            calls += 1
            matchers += event == "call" and frame.f_code is matcher_init

    previous = sys.getprofile()
    sys.setprofile(profile)
    try:
        action()
    finally:
        sys.setprofile(previous)
    return calls, matchers


def _failed_edit(text: str, old: str) -> Callable[[], object]:
    def edit() -> None:
        with pytest.raises(EditError, match="lines 5001-5002"):
            apply_edit(text, old, "x")

    return edit


def test_closest_region_work_grows_linearly_and_its_fuzzy_comparisons_not_at_all() -> None:
    old = "value_5000 = compute(5000, factor=2)\nvalue_5001 = compute(5001, factor=9)\n"
    work = []
    for size in (10_000, 20_000):
        text = "".join(
            f"value_{n} = compute({n}, factor={n % 7})  # note {n}\n" for n in range(size)
        )
        work.append(_work(_failed_edit(text, old)))

    (small, small_matchers), (large, large_matchers) = work
    assert large <= 2.2 * small  # a cheap pass over the lines, not a comparison per window
    assert 0 < small_matchers == large_matchers <= 50  # difflib only on the best candidates


def test_crlf_file_matches_lf_old_string_and_stays_crlf() -> None:
    text = "one\r\ntwo\r\nthree\r\n"

    result = apply_edit(text, "one\ntwo\n", "uno\ndos\nmas\n")

    assert result.fuzzy is None
    assert result.text == "uno\r\ndos\r\nmas\r\nthree\r\n"


def test_crlf_file_keeps_crlf_in_a_fuzzy_pass_and_a_single_line_match() -> None:
    text = "  a = 1  \r\n  b = 2\r\n"

    fuzzy = apply_edit(text, "a = 1\nb = 2", "a = 1\nc = 3")
    single = apply_edit(text, "b = 2", "b = 2\n  c = 3")

    assert (fuzzy.fuzzy, fuzzy.text) == ("indentation", "  a = 1\r\n  c = 3\r\n")
    assert single.text == "  a = 1  \r\n  b = 2\r\n  c = 3\r\n"


def test_crlf_in_old_and_new_matches_an_lf_file_and_is_written_as_lf() -> None:
    result = apply_edit("one\ntwo\n", "one\r\ntwo", "uno\r\ndos")

    assert result.text == "uno\ndos\n"


def test_old_string_starting_with_a_newline_matches_a_crlf_line_break_once() -> None:
    result = apply_edit("a\r\nb\r\n", "\nb", "\nc")

    assert result.text == "a\r\nc\r\n"


def test_snippet_shows_the_edited_lines_with_context_and_line_numbers() -> None:
    text = "".join(f"row {n}\n" for n in range(1, 21))

    result = apply_edit(text, "row 10\n", "row ten\nrow ten and a half\n")

    assert result.snippet.splitlines() == [
        " 7 | row 7",
        " 8 | row 8",
        " 9 | row 9",
        "10 | row ten",
        "11 | row ten and a half",
        "12 | row 11",
        "13 | row 12",
        "14 | row 13",
    ]


def test_snippet_merges_close_regions_and_separates_distant_ones() -> None:
    text = "".join(f"row {n}\n" for n in range(1, 31))
    text = text.replace("row 2\n", "X\n").replace("row 4\n", "X\n").replace("row 25\n", "X\n")

    result = apply_edit(text, "X", "Y", replace_all=True)

    blocks = result.snippet.split("\n…\n")
    assert len(blocks) == 2
    assert blocks[0].splitlines()[0] == " 1 | row 1"
    assert blocks[0].splitlines()[-1] == " 7 | row 7"
    assert blocks[1].splitlines()[0] == "22 | row 22"
    assert "25 | Y" in blocks[1]


def test_snippet_of_a_long_edit_shows_its_head_and_tail() -> None:
    text = "start\nend\n"
    body = "".join(f"new {n}\n" for n in range(1, 101))

    result = apply_edit(text, "start\n", body)

    lines = result.snippet.splitlines()
    assert len(lines) == 41
    assert lines[0] == "  1 | new 1"
    assert lines[20] == "…"
    assert lines[-1] == "102 | "


def test_replace_all_in_a_big_file_works_linearly_and_its_snippet_is_bounded() -> None:
    small, large = (
        "".join(f"x{n} = call({n})\n" for n in range(size)) for size in (10_000, 20_000)
    )

    def replace_all(text: str) -> Callable[[], object]:
        return lambda: apply_edit(text, "call(", "invoke(", replace_all=True)

    assert _work(replace_all(large))[0] <= 2.2 * _work(replace_all(small))[0]  # linear
    result = apply_edit(small, "call(", "invoke(", replace_all=True)
    assert result.replacements == 10_000
    assert result.text == small.replace("call(", "invoke(")
    assert len(result.snippet.splitlines()) <= 41


def test_identical_old_and_new_is_an_error() -> None:
    with pytest.raises(EditError, match="identical"):
        apply_edit(SOURCE, "return", "return")


def test_empty_old_string_is_an_error_unless_the_text_is_empty() -> None:
    with pytest.raises(EditError, match="write_file"):
        apply_edit(SOURCE, "", "x")

    result = apply_edit("", "", "hello\n")
    assert (result.text, result.replacements) == ("hello\n", 1)


def test_an_edit_that_changes_nothing_after_normalization_is_an_error() -> None:
    text = "say(“hi”)\n"

    with pytest.raises(EditError, match=r"changes nothing.*line 1.*typographic"):
        apply_edit(text, 'say("hi")', "say(“hi”)")


def test_whitespace_only_old_string_gets_no_fuzzy_pass() -> None:
    with pytest.raises(EditError, match="not found"):
        apply_edit("a\nb\n", "   ", "x")


_ALPHABET = st.sampled_from(list("ab \t\n'\"“”—-(){}"))
_TEXT = st.text(_ALPHABET, min_size=1, max_size=60)


def _occurs_once(text: str, old: str) -> bool:
    first = text.find(old)
    return text.find(old, first + 1) == -1


@st.composite
def _text_and_unique_part(draw: st.DrawFn, text: st.SearchStrategy[str]) -> tuple[str, str]:
    """A text and a substring of it that occurs once: a random slice, widened until unique."""
    whole = draw(text)
    start = draw(st.integers(0, len(whole) - 1))
    end = draw(st.integers(start + 1, len(whole)))
    while not _occurs_once(whole, whole[start:end]):
        start, end = (start, end + 1) if end < len(whole) else (start - 1, end)
    return whole, whole[start:end]


@given(case=_text_and_unique_part(_TEXT), new=_TEXT | st.just(""))
def test_a_unique_substring_is_replaced_exactly_like_str_replace(
    case: tuple[str, str], new: str
) -> None:
    text, old = case
    assume(old != new)

    result = apply_edit(text, old, new)

    assert result.text == text.replace(old, new, 1)
    assert (result.replacements, result.fuzzy) == (1, None)


_LINES = st.builds(lambda a, b: f"{a}\n{b}", _TEXT, _TEXT)


@given(case=_text_and_unique_part(_LINES), new=_TEXT)
def test_lf_edits_of_a_crlf_text_give_the_crlf_of_the_lf_result(
    case: tuple[str, str], new: str
) -> None:
    text, old = case
    assume(old != new)

    result = apply_edit(text.replace("\n", "\r\n"), old, new)

    assert result.text == text.replace(old, new, 1).replace("\n", "\r\n")
    assert result.fuzzy is None
