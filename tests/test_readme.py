"""The README's examples run as written (against the fake server instead of Anthropic)."""

import re
from pathlib import Path

import pytest

from taor.testing import FakeProviderServer, tool_calls

README = (Path(__file__).parents[1] / "README.md").read_text()


def python_blocks() -> list[str]:
    return re.findall(r"```python\n(.*?)```", README, re.S)


def test_library_example_runs(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    example = next(b for b in python_blocks() if "connect(" in b)
    with FakeProviderServer([tool_calls(("shell", {"cmd": "ls"}), text="Let me look.")]) as server:
        monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-test")
        monkeypatch.setenv("ANTHROPIC_BASE_URL", server.base_url("anthropic"))
        exec(compile(example, "README.md", "exec"), {})
    out = capsys.readouterr().out
    assert out.startswith("Let me look. [ToolCallPart(")
    assert "name='shell'" in out


def test_testing_example_runs() -> None:
    example = next(b for b in python_blocks() if "ScriptedModel(" in b)
    namespace: dict[str, object] = {}
    exec(compile(example, "README.md", "exec"), namespace)
    assert namespace["model"].remaining == 2  # type: ignore[attr-defined]
