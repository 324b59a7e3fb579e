"""apply_patch (v4a): grammar, matching passes, line endings, atomicity, and a property test."""

from __future__ import annotations

import difflib

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from taor.tools.patch import (
    FileChange,
    PatchApplyError,
    PatchError,
    PatchParseError,
    PatchResult,
    apply_patch,
    parse_patch,
)


def patch(*lines: str) -> str:
    return "\n".join(["*** Begin Patch", *lines, "*** End Patch"]) + "\n"


def run(files: dict[str, str], text: str) -> PatchResult:
    return apply_patch(text, files.get)


def content(result: PatchResult, path: str) -> str | None:
    [change] = [c for c in result.changes if c.path == path]
    return change.content


# --- grammar -------------------------------------------------------------------------------


def test_add_file_creates_every_plus_line_with_a_newline() -> None:
    result = run({}, patch("*** Add File: pkg/new.py", "+import os", "+", "+print(1)"))
    assert result.changes == (
        FileChange(path="pkg/new.py", action="add", content="import os\n\nprint(1)\n"),
    )
    assert result.summary == "Success. Updated the following files:\nA pkg/new.py"


def test_add_file_keeps_bare_blank_lines_between_plus_lines() -> None:
    result = run({}, patch("*** Add File: a.txt", "+one", "", "+three"))
    assert content(result, "a.txt") == "one\n\nthree\n"


def test_delete_file() -> None:
    result = run({"old.py": "x\n"}, patch("*** Delete File: old.py"))
    assert result.changes == (FileChange(path="old.py", action="delete", content=None),)
    assert "D old.py" in result.summary


def test_update_with_several_hunks() -> None:
    files = {"m.py": "a\nb\nc\nd\ne\nf\ng\nh\ni\n"}
    text = patch("*** Update File: m.py", "@@", " a", "-b", "+B", " c", "@@", " g", "-h", "+H")
    result = run(files, text)
    assert content(result, "m.py") == "a\nB\nc\nd\ne\nf\ng\nH\ni\n"
    assert result.summary == "Success. Updated the following files:\nM m.py"


def test_several_files_in_one_patch() -> None:
    files = {"a.txt": "1\n2\n", "b.txt": "x\n", "c.txt": "gone\n"}
    text = patch(
        "*** Update File: a.txt",
        "@@",
        "-1",
        "+one",
        "*** Add File: d.txt",
        "+new",
        "*** Delete File: c.txt",
        "*** Update File: b.txt",
        "@@",
        "-x",
        "+y",
    )
    result = run(files, text)
    assert [(c.path, c.action) for c in result.changes] == [
        ("a.txt", "update"),
        ("d.txt", "add"),
        ("c.txt", "delete"),
        ("b.txt", "update"),
    ]
    assert content(result, "a.txt") == "one\n2\n"
    assert content(result, "b.txt") == "y\n"
    assert result.summary.splitlines()[1:] == ["A d.txt", "M a.txt", "M b.txt", "D c.txt"]


def test_move_renames_and_edits() -> None:
    files = {"src/old.py": "def f():\n    return 1\n"}
    text = patch(
        "*** Update File: src/old.py",
        "*** Move to: src/new.py",
        "@@ def f():",
        "-    return 1",
        "+    return 2",
    )
    result = run(files, text)
    assert result.changes == (
        FileChange(path="src/old.py", action="delete", content=None),
        FileChange(
            path="src/new.py",
            action="add",
            content="def f():\n    return 2\n",
            moved_from="src/old.py",
        ),
    )
    assert result.summary.splitlines()[1:] == ["M src/new.py"]  # codex names only the new path


def test_move_without_hunks_is_a_pure_rename() -> None:
    result = run({"a.txt": "same\n"}, patch("*** Update File: a.txt", "*** Move to: b.txt"))
    assert content(result, "b.txt") == "same\n"
    assert content(result, "a.txt") is None


def test_end_of_file_anchors_the_hunk_to_the_end() -> None:
    files = {"f.txt": "x\nend\nx\nend\n"}
    text = patch("*** Update File: f.txt", "@@", " x", "-end", "+END", "*** End of File")
    assert content(run(files, text), "f.txt") == "x\nend\nx\nEND\n"
    without_marker = patch("*** Update File: f.txt", "@@", " x", "-end", "+END")
    assert content(run(files, without_marker), "f.txt") == "x\nEND\nx\nend\n"


def test_context_hint_narrows_the_search() -> None:
    files = {"c.py": "def a():\n    return 0\n\ndef b():\n    return 0\n"}
    text = patch("*** Update File: c.py", "@@ def b():", "-    return 0", "+    return 1")
    assert content(run(files, text), "c.py") == "def a():\n    return 0\n\ndef b():\n    return 1\n"


def test_nested_hints_are_sought_one_after_the_other() -> None:
    source = (
        "class A:\n    def run(self):\n        pass\nclass B:\n    def run(self):\n        pass\n"
    )
    text = patch(
        "*** Update File: c.py",
        "@@ class B:",
        "@@     def run(self):",
        "-        pass",
        "+        return 2",
    )
    result = run({"c.py": source}, text)
    assert content(result, "c.py") == source[: source.rindex("pass")] + "return 2\n"


def test_pure_addition_goes_after_the_hint_or_at_the_end() -> None:
    files = {"c.py": "import os\n\ndef main():\n    pass\n"}
    after_hint = patch("*** Update File: c.py", "@@ import os", "+import sys")
    assert (
        content(run(files, after_hint), "c.py")
        == "import os\nimport sys\n\ndef main():\n    pass\n"
    )
    no_hint = patch("*** Update File: c.py", "@@", "+main()")
    assert content(run(files, no_hint), "c.py") == files["c.py"] + "main()\n"


def test_first_hunk_may_omit_the_at_at_line() -> None:
    result = run({"f.txt": "import foo\n"}, patch("*** Update File: f.txt", " import foo", "+bar"))
    assert content(result, "f.txt") == "import foo\nbar\n"


def test_unified_diff_ranges_in_a_hunk_header_are_ignored() -> None:
    files = {"f.py": "def f():\n    x = 1\n"}
    text = patch("*** Update File: f.py", "@@ -1,2 +1,2 @@ def f():", "-    x = 1", "+    x = 2")
    assert content(run(files, text), "f.py") == "def f():\n    x = 2\n"


def test_lenient_envelope_heredoc_padding_and_crlf_patch_text() -> None:
    body = ["  *** Begin Patch ", "*** Update File: f.txt", "@@", "-a", "+b", " *** End Patch"]
    files = {"f.txt": "a\n"}
    assert content(run(files, "\n".join(body)), "f.txt") == "b\n"
    assert content(run(files, "<<'EOF'\n" + "\n".join(body) + "\nEOF\n"), "f.txt") == "b\n"
    assert content(run(files, "\r\n".join(body) + "\r\n"), "f.txt") == "b\n"


def test_blank_lines_between_sections_and_hunks_are_skipped() -> None:
    text = patch("*** Update File: f.txt", "@@", "-a", "+b", "", "", "*** Delete File: g.txt", "")
    result = run({"f.txt": "a\n", "g.txt": "g\n"}, text)
    assert content(result, "f.txt") == "b\n"
    assert content(result, "g.txt") is None


def test_parse_patch_exposes_sections_and_hunks() -> None:
    [section] = parse_patch(patch("*** Update File: f.py", "@@ def f():", " a", "-b", "+c"))
    assert section.kind == "update"
    [hunk] = section.hunks
    assert hunk.hints == ("def f():",)
    assert hunk.old_lines == ("a", "b")
    assert hunk.new_lines == ("a", "c")
    assert hunk.line == 3


@pytest.mark.parametrize(
    ("text", "line", "fragment"),
    [
        (
            "*** Update File: f\n*** End Patch",
            1,
            "first line of the patch must be '*** Begin Patch'",
        ),
        (
            "*** Begin Patch\n*** Add File: f\n+x",
            3,
            "last line of the patch must be '*** End Patch'",
        ),
        (patch("*** Frobnicate File: f"), 2, "is not a valid section header"),
        (patch("*** Update File: f"), 2, "has no hunks"),
        (patch("*** Update File: f", "@@", "-a", "@@"), 5, "the hunk has no lines"),
        (patch("*** Update File: f", "@@", "oops"), 4, "unexpected line 'oops'"),
        (
            patch("*** Update File: f", "@@", "-a", "*** End of File", "*** End of File"),
            6,
            "must follow",
        ),
        (patch("*** Add File:"), 2, "needs a path"),
    ],
)
def test_parse_errors_name_the_line(text: str, line: int, fragment: str) -> None:
    with pytest.raises(PatchParseError) as caught:
        parse_patch(text)
    assert caught.value.line == line
    assert f"at line {line}" in str(caught.value)
    assert fragment in str(caught.value)


def test_a_patch_without_operations_is_refused() -> None:
    with pytest.raises(PatchParseError, match="no file operations"):
        parse_patch(patch())


# --- matching passes -----------------------------------------------------------------------


def update(source: str, *hunk_lines: str) -> PatchResult:
    return run({"f.py": source}, patch("*** Update File: f.py", "@@", *hunk_lines))


def test_exact_pass_wins_over_an_earlier_fuzzy_match() -> None:
    result = update("x = 1   \ny\nx = 1\ny\n", " x = 1", "-y", "+z")
    assert content(result, "f.py") == "x = 1   \ny\nx = 1\nz\n"
    assert result.notes == ()


def test_trailing_whitespace_pass_keeps_the_files_context_text() -> None:
    result = update("x = 1   \ny\t\n", " x = 1", "-y", "+z")
    assert content(result, "f.py") == "x = 1   \nz\n"
    assert result.notes == ("f.py: hunk 1 matched ignoring trailing whitespace",)
    assert "Note: f.py: hunk 1 matched ignoring trailing whitespace" in result.summary


def test_trimmed_pass_ignores_indentation() -> None:
    result = update("def f():\n        x = 1\n        y = 2\n", " x = 1", "-y = 2", "+    y = 3")
    assert content(result, "f.py") == "def f():\n        x = 1\n    y = 3\n"
    assert result.notes == ("f.py: hunk 1 matched ignoring leading and trailing whitespace",)


def test_punctuation_pass_maps_typographic_characters_to_ascii() -> None:
    source = "msg = \u201cdon\u2019t \u2013 stop\u2026\u201d\nvalue\u00a0= 1\n"
    result = update(source, ' msg = "don\'t - stop..."', "-value = 1", "+value = 2")
    assert content(result, "f.py") == "msg = \u201cdon\u2019t \u2013 stop\u2026\u201d\nvalue = 2\n"
    assert result.notes == ("f.py: hunk 1 matched after normalizing typographic punctuation",)


def test_hunks_apply_in_order_each_after_the_previous_one() -> None:
    source = "a\nX\nb\nc\na\nX\nb\n"
    text = patch("*** Update File: f.py", "@@", " a", "-X", "+first", "@@", " a", "-X", "+second")
    assert content(run({"f.py": source}, text), "f.py") == "a\nfirst\nb\nc\na\nsecond\nb\n"
    backwards = patch(
        "*** Update File: f.py", "@@", "-c", "+C", "@@", " a", "-X", "+first", " b", " c"
    )
    with pytest.raises(PatchApplyError, match="hunk 2 of 2"):
        run({"f.py": source}, backwards)


def test_trailing_blank_old_line_may_stand_for_the_final_newline() -> None:
    result = update("a\nb\n", " a", "-b", "+c", "", "*** End of File")
    assert content(result, "f.py") == "a\nc\n"


# --- line endings --------------------------------------------------------------------------


def test_crlf_file_keeps_crlf() -> None:
    result = update("one\r\ntwo\r\nthree\r\n", " one", "-two", "+2", "+2b")
    assert content(result, "f.py") == "one\r\n2\r\n2b\r\nthree\r\n"


def test_an_updated_file_always_ends_with_a_line_ending() -> None:
    assert content(update("a\nb", " a", "-b", "+c"), "f.py") == "a\nc\n"
    assert content(update("a\nb\n", " a", "-b", "+c"), "f.py") == "a\nc\n"
    assert content(update("a\r\nb", "-b", "+c", "+d"), "f.py") == "a\r\nc\r\nd\r\n"
    # the unterminated last line is not in the hunk: it still gets the preferred ending
    assert content(update("one\r\ntwo", "-one", "+ONE"), "f.py") == "ONE\r\ntwo\r\n"
    assert content(update("solo", "-solo", "+SOLO"), "f.py") == "SOLO\n"


def test_untouched_lines_keep_their_own_line_endings() -> None:
    crlf_mostly = "one\r\ntwo\nthree\r\nfour\r\nfive\n"
    result = update(crlf_mostly, " one", " two", "-three", "+THREE", " four")
    assert content(result, "f.py") == "one\r\ntwo\nTHREE\r\nfour\r\nfive\n"
    lf_mostly = "one\r\ntwo\nthree\n"
    result = update(lf_mostly, " one", "-two", "+TWO")
    assert content(result, "f.py") == "one\r\nTWO\nthree\n"
    assert result.notes == ()  # a CRLF line matches exactly in a mostly-LF file


def test_added_lines_take_the_files_most_common_line_ending() -> None:
    crlf_mostly = "a\r\nb\r\nc\nd\r\n"
    assert content(update(crlf_mostly, " c", "+new"), "f.py") == "a\r\nb\r\nc\nnew\r\nd\r\n"
    lf_mostly = "a\r\nb\nc\nd\n"
    assert content(update(lf_mostly, " a", "+new"), "f.py") == "a\r\nnew\nb\nc\nd\n"


def test_on_a_tie_added_lines_take_the_first_line_ending_of_the_file() -> None:
    assert content(update("a\r\nb\n", "-b", "+B"), "f.py") == "a\r\nB\r\n"
    assert content(update("a\nb\r\n", "-a", "+A"), "f.py") == "A\nb\r\n"


def test_context_lines_keep_their_own_ending_inside_a_hunk() -> None:
    assert content(update("same\r\nsame\n", "-same", " same"), "f.py") == "same\n"
    assert content(update("x\ny\r\nz\r\n", " x", " y", "-z", "+Z"), "f.py") == "x\ny\r\nZ\r\n"


def test_lone_carriage_returns_end_lines_too_and_are_kept() -> None:
    mixed = "one\r\ntwo\rthree\nfour\rfive\r\nsix\r\n"  # CRLF the most common
    result = update(mixed, " two", "-three", "+THREE", " four")
    assert content(result, "f.py") == "one\r\ntwo\rTHREE\r\nfour\rfive\r\nsix\r\n"
    assert result.notes == ()
    old_mac = "a\rb\rc\r"
    assert content(update(old_mac, " a", "-b", "+B", "+B2"), "f.py") == "a\rB\rB2\rc\r"


def test_a_hunk_matches_across_every_kind_of_line_ending() -> None:
    mixed = "def f():\r\n    x = 1\r    y = 2\n    return x\r\n"
    result = update(mixed, " def f():", "-    x = 1", "-    y = 2", "+    x = y = 2", " return x")
    assert content(result, "f.py") == "def f():\r\n    x = y = 2\r\n    return x\r\n"


@given(
    st.lists(
        st.tuples(st.text("abc ", min_size=1, max_size=4), st.sampled_from(["\n", "\r\n", "\r"])),
        min_size=2,
        max_size=8,
    ),
    st.data(),
)
def test_replacing_any_line_of_a_mixed_file_keeps_every_other_line_as_it_was(
    lines: list[tuple[str, str]], data: st.DataObject
) -> None:
    at = data.draw(st.integers(0, len(lines) - 1))
    text = "".join(t + e for t, e in lines)
    context = [f" {t}" for t, _ in lines[:at]]
    result = update(text, *context, f"-{lines[at][0]}", "+NEW")
    out = content(result, "f.py")
    assert out is not None
    assert out.startswith("".join(t + e for t, e in lines[:at]) + "NEW")
    assert out.endswith("".join(t + e for t, e in lines[at + 1 :]))


def test_byte_order_mark_is_kept_and_ignored_for_matching() -> None:
    assert content(update("\ufeffa\nb\n", "-a", "+A"), "f.py") == "\ufeffA\nb\n"


def test_removing_every_line_leaves_an_empty_file() -> None:
    assert content(update("a\nb\n", "-a", "-b"), "f.py") == ""


# --- failures: clear errors, nothing applied -----------------------------------------------


def test_a_failing_hunk_in_a_later_file_applies_nothing() -> None:
    files = {"a.txt": "1\n2\n", "b.txt": "x\ny\nz\n"}
    before = dict(files)
    text = patch(
        "*** Add File: new.txt",
        "+new",
        "*** Update File: a.txt",
        "@@",
        "-1",
        "+one",
        "*** Update File: b.txt",
        "@@",
        "-x",
        "+X",
        "@@",
        " y",
        "-q",
        "+Q",
    )
    with pytest.raises(PatchApplyError) as caught:
        run(files, text)
    message = str(caught.value)
    assert message.startswith(
        "b.txt, hunk 2 of 2 (patch line 12): these lines were not found after line 1:"
    )
    assert "  |y\n  |q\n" in message
    assert "no file was changed" in message
    assert files == before


def test_mismatch_shows_the_closest_region() -> None:
    source = "def f():\n    a = 1\n    b = 2\n    c = 3\n"
    with pytest.raises(PatchApplyError) as caught:
        update(source, "     a = 1", "-    b = 20", "+    b = 3", "     c = 3")
    message = str(caught.value)
    assert "The closest region of the file (its current text):" in message
    assert "      2|    a = 1\n      3|    b = 2\n      4|    c = 3" in message


def test_missing_hint_is_named() -> None:
    with pytest.raises(PatchApplyError, match=r"the context line '@@ def nope\(\):' was not found"):
        run({"f.py": "x\n"}, patch("*** Update File: f.py", "@@ def nope():", "-x", "+y"))


@pytest.mark.parametrize(
    ("files", "text", "fragment"),
    [
        (
            {},
            patch("*** Delete File: a.txt"),
            "Delete File a.txt (patch line 2): the file does not exist",
        ),
        (
            {},
            patch("*** Update File: a.txt", "@@", "-x", "+y"),
            "Update File a.txt (patch line 2): the file does not exist",
        ),
    ],
)
def test_file_existence_errors(files: dict[str, str], text: str, fragment: str) -> None:
    with pytest.raises(PatchApplyError) as caught:
        run(files, text)
    assert fragment in str(caught.value)
    assert isinstance(caught.value, PatchError)
    assert isinstance(caught.value, ValueError)


def test_add_file_replaces_an_existing_file() -> None:
    result = run({"a.txt": "old\n"}, patch("*** Add File: a.txt", "+new"))
    assert result.changes == (FileChange(path="a.txt", action="add", content="new\n"),)
    assert result.summary == "Success. Updated the following files:\nA a.txt"


def test_move_to_replaces_an_existing_destination() -> None:
    files = {"a.txt": "x\n", "b.txt": "y\n"}
    text = patch("*** Update File: a.txt", "*** Move to: b.txt", "@@", "-x", "+z")
    result = run(files, text)
    assert result.changes == (
        FileChange(path="a.txt", action="delete", content=None),
        FileChange(path="b.txt", action="update", content="z\n", moved_from="a.txt"),
    )
    assert result.summary == "Success. Updated the following files:\nM b.txt"


def test_later_sections_see_earlier_ones() -> None:
    text = patch(
        "*** Delete File: a.txt",
        "*** Add File: a.txt",
        "+fresh",
        "*** Update File: a.txt",
        "@@",
        "-fresh",
        "+fresher",
        "*** Add File: tmp.txt",
        "+t",
        "*** Delete File: tmp.txt",
    )
    result = run({"a.txt": "old\n"}, text)
    assert result.changes == (FileChange(path="a.txt", action="add", content="fresher\n"),)


def test_reads_each_path_once() -> None:
    reads: list[str] = []

    def read(path: str) -> str | None:
        reads.append(path)
        return {"a.txt": "1\n"}.get(path)

    text = patch(
        "*** Update File: a.txt", "@@", "-1", "+2", "*** Update File: a.txt", "@@", "-2", "+3"
    )
    assert content(apply_patch(text, read), "a.txt") == "3\n"
    assert reads == ["a.txt"]


# --- property: a patch made from a random edit applies back to the edited text --------------

LINE = st.text(st.characters(exclude_characters="\r\n\ufeff", codec="utf-8"), max_size=8)


def v4a_patch(path: str, old: list[str], new: list[str], *, mark_end: bool) -> str:
    """A v4a Update File section built from difflib's hunks with 3 lines of context."""
    lines = [f"*** Update File: {path}"]
    for group in difflib.SequenceMatcher(None, old, new, autojunk=False).get_grouped_opcodes(3):
        lines.append("@@")
        for tag, i1, i2, j1, j2 in group:
            if tag == "equal":
                lines += [" " + line for line in old[i1:i2]]
            else:
                lines += ["-" + line for line in old[i1:i2]] + ["+" + line for line in new[j1:j2]]
        if mark_end and group[-1][2] == len(old):
            lines.append("*** End of File")
    return patch(*lines)


def as_text(lines: list[str], *, final_newline: bool, eol: str) -> str:
    return eol.join(lines) + (eol if final_newline else "") if lines else ""


@st.composite
def edits(draw: st.DrawFn) -> tuple[list[str], list[str]]:
    old = draw(st.lists(LINE, unique=True, max_size=30))
    new = list(old)
    for _ in range(draw(st.integers(1, 3))):
        at = draw(st.integers(0, len(new)))
        count = draw(st.integers(1, 3))
        added = draw(st.lists(LINE, min_size=1, max_size=3))
        kind = draw(st.sampled_from(["replace", "insert", "delete"]))
        if kind == "insert":
            new[at:at] = added
        elif kind == "delete":
            del new[at : at + count]
        else:
            new[at : at + count] = added
    return old, new


@settings(max_examples=300, deadline=None)
@given(edits(), st.booleans(), st.booleans(), st.booleans())
def test_patch_from_a_random_edit_reproduces_the_edit(
    edit: tuple[list[str], list[str]], final_newline: bool, crlf: bool, mark_end: bool
) -> None:
    old, new = edit
    assume(old != new)
    eol = "\r\n" if crlf else "\n"
    assume(not crlf or len(old) > 1 or (old and final_newline))  # the file shows its line ending
    assume(final_newline or not old or old[-1])  # else the text reads as one line fewer
    original = as_text(old, final_newline=final_newline, eol=eol)
    expected = as_text(new, final_newline=True, eol=eol)  # an updated file ends with one
    result = run({"f.txt": original}, v4a_patch("f.txt", old, new, mark_end=mark_end))
    assert content(result, "f.txt") == expected
    assert result.notes == ()
