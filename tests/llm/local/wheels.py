"""Chunk wheels like those on PyPI that hold a model, built in a test's folder."""

from __future__ import annotations

import zipfile
from pathlib import Path

from taor.llm.local.known import Chunks


def chunk_wheels(
    folder: Path, chunks: Chunks, pieces: list[bytes], piece_name: str = "part{n:02d}.bin"
) -> Path:
    """One wheel per piece: ``{module}{n}/data/{piece_name}`` with the piece (``piece_name``
    formatted with ``n``, from 1, and ``index``, from 0), plus the metadata pip reads.
    Returns ``folder`` (for ``--find-links``)."""
    folder.mkdir(parents=True, exist_ok=True)
    for n, piece in enumerate(pieces, 1):
        module = chunks.module(n)
        dist_info = f"{module}-{chunks.version}.dist-info"
        with zipfile.ZipFile(folder / f"{module}-{chunks.version}-py3-none-any.whl", "w") as wheel:
            wheel.writestr(f"{module}/__init__.py", "")
            wheel.writestr(f"{module}/data/{piece_name.format(n=n, index=n - 1)}", piece)
            wheel.writestr(
                f"{dist_info}/METADATA",
                f"Metadata-Version: 2.1\nName: {chunks.prefix}{n}\nVersion: {chunks.version}\n",
            )
            wheel.writestr(
                f"{dist_info}/WHEEL",
                "Wheel-Version: 1.0\nGenerator: taor-tests\nRoot-Is-Purelib: true\n"
                "Tag: py3-none-any\n",
            )
            wheel.writestr(f"{dist_info}/RECORD", "")
    return folder
