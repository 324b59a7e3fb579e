"""``connect("local...")``: the model it makes (nothing started, nothing imported) and the
server's settings; a server that cannot load its model fails with llama.cpp's own reason."""

import asyncio
import os
import subprocess
import sys
from pathlib import Path

import pytest

from taor.errors import ConfigurationError, ServerError
from taor.llm import Message, Request, complete, connect, parse_model_string
from taor.llm.local import LocalModel
from taor.llm.local.known import DEFAULT

from .test_checks import fake_gguf

pytest.importorskip("xllamacpp", reason="the local extra is not installed")


def test_local_alone_is_the_default_model() -> None:
    assert parse_model_string("local") == ("local", "")
    assert parse_model_string("local:/m/x.gguf") == ("local", "/m/x.gguf")


def test_connect_makes_a_local_model_and_starts_nothing(tmp_path: Path) -> None:
    path = fake_gguf(tmp_path / "qwen2.5-coder-1.5b-instruct-q4_k_m.gguf")
    env = {"TAOR_MODELS_DIR": str(tmp_path), "TAOR_LOCAL_THREADS": "3"}
    model = connect("local", env={**env, "TAOR_LOCAL_CONTEXT_SIZE": "4096"})
    assert isinstance(model, LocalModel)
    assert (model.provider, model.model_id) == ("local", DEFAULT)
    assert model.server.pid is None
    settings = model.server.settings
    assert (settings.model_path, settings.context_size, settings.threads) == (str(path), 4096, 3)
    assert "```json" in Path(settings.chat_template_file).read_text()  # the Qwen2.5 fix
    assert connect(f"local:{path}", env={}).model_id == str(path)
    info = model.info()
    assert (info.known, info.context_window, info.input_price, info.output_price) == (
        True,
        8192,
        0.0,
        0.0,
    )
    with pytest.raises(ConfigurationError, match="TAOR_LOCAL_THREADS must be a positive whole"):
        connect("local", env={**env, "TAOR_LOCAL_THREADS": "many"})


def test_connecting_imports_no_llama_cpp(tmp_path: Path) -> None:
    path = fake_gguf(tmp_path / "m.gguf")
    code = (
        "import sys; from taor.llm import connect; connect(sys.argv[1]); "
        "print('xllamacpp' in sys.modules)"
    )
    out = subprocess.run(
        [sys.executable, "-c", code, f"local:{path}"], capture_output=True, text=True, check=True
    )
    assert out.stdout.strip() == "False"


def test_a_server_that_cannot_load_the_model_says_why(tmp_path: Path) -> None:
    model = connect(f"local:{fake_gguf(tmp_path / 'broken.gguf')}", env={})

    async def ask() -> None:
        try:
            await complete(model, Request(messages=(Message.user("hi"),)))
        finally:
            await model.aclose()

    with pytest.raises(ServerError, match=r"exited before it was ready: .*bad GGUF version") as e:
        asyncio.run(ask())
    assert not e.value.retryable
    assert model.server.pid is None  # nothing left running
    log = Path(str(e.value).rsplit("(log: ", 1)[1].rstrip(")"))
    assert "failed to load model" in log.read_text()  # kept for the user to read
    log.unlink()


def test_a_missing_extra_names_the_pip_command(tmp_path: Path) -> None:
    """The command in an environment without xllamacpp: every other package, linked."""
    packages = next(Path(p) for p in sys.path if p.endswith("site-packages"))
    bare = tmp_path / "site"
    bare.mkdir()
    for entry in packages.iterdir():
        if not entry.name.startswith("xllamacpp"):
            (bare / entry.name).symlink_to(entry)
    src = Path(__file__).resolve().parents[3] / "src"
    env = {**os.environ, "PYTHONPATH": os.pathsep.join((str(src), str(bare)))}
    out = subprocess.run(
        [sys.executable, "-S", "-m", "taor.cli", "-p", "hi", "--model", "local"],
        capture_output=True,
        text=True,
        env=env,
        cwd=tmp_path,
    )
    assert out.returncode == 2, out.stderr
    assert out.stderr.strip().splitlines() == [
        "taor: the local provider needs llama.cpp, which is not installed: "
        "run `pip install 'taor[local]'`"
    ]


def test_subagents_share_the_parents_local_model(tmp_path: Path) -> None:
    from taor.agent.subagents.wiring import child_model

    fake_gguf(tmp_path / "qwen2.5-coder-1.5b-instruct-q4_k_m.gguf")
    parent = connect("local", env={"TAOR_MODELS_DIR": str(tmp_path)})
    for override in (None, "local", f"local:{DEFAULT}", DEFAULT):
        assert child_model(parent, override) is parent
    assert child_model(parent, "local:/elsewhere/other.gguf") == "local:/elsewhere/other.gguf"
