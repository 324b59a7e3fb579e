"""The checks ``connect("local...")`` makes before anything starts: each a one-line error that
says what to do."""

from pathlib import Path

import pytest

from taor.errors import ConfigurationError
from taor.llm.local import checks
from taor.llm.local.known import DEFAULT, KNOWN, resolve


def fake_gguf(path: Path, size: int = 1024) -> Path:
    path.write_bytes(b"GGUF" + bytes(size - 4))
    return path


def test_a_known_model_not_installed_says_how_to_install_it(tmp_path: Path) -> None:
    model = resolve("", {"TAOR_MODELS_DIR": str(tmp_path)})
    assert model.model_id == DEFAULT
    assert model.path == tmp_path / KNOWN[DEFAULT].filename
    with pytest.raises(ConfigurationError, match=f"run `taor models install {DEFAULT}`"):
        checks.require_model_file(model)


def test_a_missing_file_and_a_file_that_is_not_gguf(tmp_path: Path) -> None:
    with pytest.raises(ConfigurationError, match=r"no model file at .*missing\.gguf"):
        checks.require_model_file(resolve(str(tmp_path / "missing.gguf")))
    text = tmp_path / "notes.gguf"
    text.write_text("hello, world")
    with pytest.raises(
        ConfigurationError, match=r"is not a GGUF model file \(it starts with b'hell'"
    ):
        checks.require_model_file(resolve(str(text)))
    checks.require_model_file(resolve(str(fake_gguf(tmp_path / "ok.gguf"))))


def test_an_unknown_name_lists_the_known_ones() -> None:
    with pytest.raises(ConfigurationError, match=f"unknown local model 'nope'; known: {DEFAULT}"):
        resolve("nope")


def test_a_path_picks_its_family_template(tmp_path: Path) -> None:
    assert resolve(str(tmp_path / "Qwen2.5-Coder-7B-Q8_0.gguf")).template == "qwen2.5.jinja"
    assert resolve(str(tmp_path / "llama-3.2-1b.gguf")).template == ""


def test_memory_compares_what_the_model_needs_with_memavailable(tmp_path: Path) -> None:
    model = resolve(str(fake_gguf(tmp_path / "m.gguf", 64 * 1024 * 1024)))
    needed = checks.needed_bytes(model, 8192)
    meminfo = tmp_path / "meminfo"
    meminfo.write_text(f"MemTotal: 99999999 kB\nMemAvailable: {needed // 1024 - 1} kB\n")
    with pytest.raises(ConfigurationError, match=r"not enough memory for .*use a smaller context"):
        checks.require_memory(model, 8192, meminfo)
    meminfo.write_text(f"MemAvailable: {needed // 1024 + 1} kB\n")
    checks.require_memory(model, 8192, meminfo)
    checks.require_memory(model, 8192, tmp_path / "no-such-file")  # unknown: no objection
