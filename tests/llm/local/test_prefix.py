"""Where the saved prompt prefix lives and what its name depends on (the saving and restoring
themselves run against the real server in tests/e2e)."""

from __future__ import annotations

import os
from pathlib import Path

from taor.llm.local.prefix import prefix_directory, prefix_name, restore, save


def test_the_directory_is_the_variable_or_the_user_cache(tmp_path: Path) -> None:
    assert prefix_directory({"TAOR_LOCAL_PREFIX_DIR": str(tmp_path)}) == str(tmp_path)
    assert prefix_directory({"TAOR_LOCAL_PREFIX_DIR": "off"}) == ""
    assert prefix_directory({"TAOR_LOCAL_PREFIX_DIR": ""}) == ""
    assert prefix_directory({}).endswith("prompt-prefix")


def test_the_name_changes_with_the_model_file_the_context_and_the_template(
    tmp_path: Path,
) -> None:
    model, template = tmp_path / "m.gguf", tmp_path / "t.jinja"
    model.write_bytes(b"GGUF" + bytes(60))
    template.write_text("{{ messages }}")
    name = prefix_name(str(model), 8192, str(template))
    assert name == prefix_name(str(model), 8192, str(template))  # stable across processes
    assert name != prefix_name(str(model), 4096, str(template))
    template.write_text("{{ tools }}")
    assert name != prefix_name(str(model), 8192, str(template))
    model.write_bytes(b"GGUF" + bytes(61))
    assert name != prefix_name(str(model), 8192, "")


async def test_nothing_is_asked_of_a_server_when_the_prefix_is_off_or_missing(
    tmp_path: Path,
) -> None:
    nowhere = "http://127.0.0.1:9"  # nothing listens: a request would fail, not hang
    assert not await restore(nowhere, "", "prefix-x.bin")
    assert not await restore(nowhere, str(tmp_path), "prefix-x.bin")  # no such file
    assert not await save(nowhere, "", "prefix-x.bin")
    assert not await save(nowhere, str(tmp_path), "prefix-x.bin")  # the server is gone
    assert os.listdir(tmp_path) == []
