"""Quote marks old_string left out: let in when matching, put back into new_string."""

from __future__ import annotations

import json

import pytest

from taor.tools.edit import EditError, apply_edit

SETTINGS = '{\n  "debug": true,\n  "port": 8000,\n  "name": "shop"\n}\n'


@pytest.mark.parametrize(
    ("old", "new", "expected"),
    [
        ("port: 8000", "port: 9000", {"debug": True, "port": 9000, "name": "shop"}),
        ("name: shop", "name: market", {"debug": True, "port": 8000, "name": "market"}),
        ("name: shop", "name: shops", {"debug": True, "port": 8000, "name": "shops"}),
        ("debug: true", "debug: false", {"debug": False, "port": 8000, "name": "shop"}),
    ],
)
def test_marks_left_out_of_a_json_edit_are_put_back(old: str, new: str, expected: object) -> None:
    result = apply_edit(SETTINGS, old, new)
    assert result.fuzzy == "quotes" and "quote marks" in result.summary
    assert json.loads(result.text) == expected


def test_single_quotes_in_python_are_put_back_too() -> None:
    source = "NAME = 'shop'\nPORT = 8000\n"
    assert apply_edit(source, "NAME = shop", "NAME = market").text == (
        "NAME = 'market'\nPORT = 8000\n"
    )


@pytest.mark.parametrize(
    "old",
    [
        "port: 7000",  # no such text, quotes or not
        '"port": 7000',  # it has quote marks of its own: no guessing
        "ort: 8000",  # part of a word
    ],
)
def test_what_does_not_match_with_marks_let_in_is_still_a_miss(old: str) -> None:
    with pytest.raises(EditError, match="not found"):
        apply_edit(SETTINGS, old, old.replace("0", "1"))


def test_two_places_that_match_with_marks_let_in_are_no_match() -> None:
    text = '{"a": {"port": 1}, "b": {"port": 1}}\n'
    with pytest.raises(EditError, match="not found"):
        apply_edit(text, "port: 1", "port: 2")
