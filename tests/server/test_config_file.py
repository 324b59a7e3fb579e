"""The ``[serve]`` keys come from the settings dataclasses' fields by name and type, so a field
added to ``ServiceConfig`` is a key with nothing else to change: each type a field may have is
read, checked and explained here on a dataclass of its own; the README's example and the keys
``taor serve --help`` names are real keys."""

from __future__ import annotations

import re
import subprocess
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

import pytest

from taor.errors import ConfigurationError
from taor.server.config_file import keys, load
from taor.server.config_types import convert, from_text, keys_of

from .process import TAOR


@dataclass(frozen=True, kw_only=True)
class Later:
    """Fields of the kinds a service may gain."""

    max_queue: int = 100
    host_allowlist: tuple[Path, ...] = ()
    templates_dir: Path | None = None
    mode: Literal["fast", "careful"] = "fast"
    ratio: float = 0.5
    labels: tuple[str, ...] = ()
    table: dict[str, int] = field(default_factory=dict)


LATER = keys_of([Later], {})


@pytest.mark.parametrize(
    ("name", "raw", "value"),
    [
        ("max_queue", 0, 0),
        ("host_allowlist", ["~/src", "work"], (Path.home() / "src", Path("/base/work"))),
        ("templates_dir", "templates", Path("/base/templates")),
        ("mode", "careful", "careful"),
        ("ratio", 2, 2.0),
        ("labels", ["a", "b"], ("a", "b")),
    ],
)
def test_each_kind_of_field_is_read(name: str, raw: object, value: object) -> None:
    assert convert(LATER[name], raw, name, Path("/base")) == value


@pytest.mark.parametrize(
    ("name", "raw", "says"),
    [
        ("max_queue", -1, "a whole number, 0 or more"),
        ("max_queue", True, "a whole number, 0 or more"),
        ("host_allowlist", "/srv", 'a list of paths, like ["/srv/a", ...]'),
        ("templates_dir", "", "a path (a string; ~ is your home)"),
        ("mode", "reckless", "one of fast, careful"),
        ("ratio", "1", "a number above 0"),
        ("ratio", 0, "a number above 0"),
        ("labels", ["a", 3], 'a list of strings, like ["a", ...]'),
        ("table", {"a": 1}, "set by taor itself (it cannot be set in a config file)"),
    ],
)
def test_a_wrong_value_says_what_the_key_takes(name: str, raw: object, says: str) -> None:
    with pytest.raises(ConfigurationError) as caught:
        convert(LATER[name], raw, f"serve.{name} = {raw!r}", Path("/base"))
    assert str(caught.value) == f"serve.{name} = {raw!r} is not allowed; it must be {says}"


def test_variables_are_read_as_the_key_s_type() -> None:
    assert from_text(LATER["host_allowlist"], "/a, /b,") == ["/a", "/b"]
    assert from_text(LATER["max_queue"], "12") == 12
    assert from_text(LATER["max_queue"], "many") == "many"  # shown as given in the error


def test_the_readme_example_is_a_valid_serve_table(tmp_path: Path) -> None:
    readme = (Path(__file__).parents[2] / "README.md").read_text()
    [example] = re.findall(r"```toml\n(\[serve\]\n.*?)```", readme, re.DOTALL)
    (tmp_path / "config.toml").write_text(example)
    serve = load(flags={}, environ={}, cwd=tmp_path, file=tmp_path / "config.toml")
    assert serve.address.port == 9000 and serve.config.workers == 4
    assert serve.config.cors_origins == ("https://tools.example.org",)
    assert serve.sources["port"] == str(tmp_path / "config.toml")


def test_the_help_names_real_keys_and_every_flag() -> None:
    shown = subprocess.run([TAOR, "serve", "--help"], capture_output=True, text=True, timeout=60)
    assert shown.returncode == 0
    named = re.search(r"Keys: (.*?) and the service", shown.stdout, re.DOTALL)
    assert named is not None
    assert {key.strip() for key in named.group(1).split(",")} <= set(keys())
    for flag in ("--host", "--port", "--data-dir", "--workers", "--model", "--base-url"):
        assert flag in shown.stdout and flag[2:].replace("-", "_") in {*keys(), "model"}
