"""The README's examples run as written (against the fake server instead of Anthropic)."""

import re
from pathlib import Path

import pytest

from taor.testing import FakeProviderServer, text, tool_calls

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


def test_session_example_runs(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    example = next(b for b in python_blocks() if "Session(" in b)
    (tmp_path / "test_x.py").write_text("def test_x():\n    assert 1 == 2\n")
    script = [
        tool_calls(("read_file", {"file_path": "test_x.py"}), text="Looking."),
        tool_calls(
            (
                "edit_file",
                {"file_path": "test_x.py", "old_string": "1 == 2", "new_string": "1 == 1"},
            )
        ),
        tool_calls(("shell", {"command": "echo ran"})),
        text("Fixed."),
        text("I changed 1 == 2 to 1 == 1."),
    ]
    with FakeProviderServer(script) as server:
        monkeypatch.chdir(tmp_path)
        monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-test")
        monkeypatch.setenv("ANTHROPIC_BASE_URL", server.base_url("anthropic"))
        exec(compile(example, "README.md", "exec"), {})
    out = capsys.readouterr().out
    assert "> read_file: test_x.py" in out and "> shell: echo ran" in out
    assert "Fixed." in out
    assert out.rstrip().splitlines()[-1].startswith(" completed 1 ")
    assert (tmp_path / "test_x.py").read_text() == "def test_x():\n    assert 1 == 1\n"
