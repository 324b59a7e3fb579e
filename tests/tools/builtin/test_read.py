"""read_file and read_many_files on LocalEnvironment with real files."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from taor.env import LocalEnvironment
from taor.llm.types import ImagePart
from taor.tools.base import Tool, ToolContext, ToolOutput
from taor.tools.builtin import ReadFileTool, ReadManyFilesTool

PNG = b"\x89PNG\r\n\x1a\n" + b"\x00\x00\x00\rIHDR" + bytes(20)


@pytest.fixture
def root(tmp_path: Path) -> Path:
    (tmp_path / "ws").mkdir()
    (tmp_path / "outside.txt").write_text("secret\n")
    return tmp_path / "ws"


async def run(tool: Tool, root: Path, **arguments: Any) -> ToolOutput:
    return await tool.execute(arguments, ToolContext(environment=LocalEnvironment(root)))


async def read(root: Path, **arguments: Any) -> ToolOutput:
    return await run(ReadFileTool(), root, **arguments)


async def test_lines_are_numbered_and_paged(root: Path) -> None:
    (root / "a.txt").write_text("".join(f"line {n}\n" for n in range(1, 11)))
    whole = await read(root, path="a.txt")
    assert not whole.is_error
    assert whole.text.splitlines()[0] == "     1\tline 1"
    assert whole.text.splitlines()[-1] == "    10\tline 10"
    page = await read(root, path="a.txt", offset=3, limit=2)
    assert page.text.splitlines()[:2] == ["     3\tline 3", "     4\tline 4"]
    assert "offset=5" in page.text


async def test_default_limit_is_2000_lines(root: Path) -> None:
    (root / "big.txt").write_text("x\n" * 2500)
    output = await read(root, path="big.txt")
    assert "  2000\tx" in output.text
    assert "  2001\t" not in output.text
    assert "offset=2001" in output.text


async def test_long_lines_are_cut_with_a_note(root: Path) -> None:
    (root / "wide.txt").write_text("y" * 5000 + "\nshort\n")
    lines = (await read(root, path="wide.txt")).text.splitlines()
    assert lines[0] == "     1\t" + "y" * 2000 + "... [line cut: 3000 more characters]"
    assert lines[1] == "     2\tshort"


async def test_crlf_endings_are_not_shown(root: Path) -> None:
    (root / "dos.txt").write_bytes(b"one\r\ntwo\r\n")
    assert (await read(root, path="dos.txt")).text == "     1\tone\n     2\ttwo"


async def test_output_over_the_limit_is_truncated_and_whole_in_metadata(root: Path) -> None:
    (root / "long.txt").write_text("z" * 100 + "\n" * 1 + ("w" * 1000 + "\n") * 1000)
    output = await read(root, path="long.txt")
    assert len(output.text) < 51_000
    assert "WARNING: Tool output was truncated" in output.text
    assert output.metadata["full_output"].count("\n") == 1000
    assert output.metadata["omitted_chars"] > 0


async def test_binary_files_are_refused(root: Path) -> None:
    (root / "blob.bin").write_bytes(b"abc\x00def")
    output = await read(root, path="blob.bin")
    assert output.is_error
    assert "binary file" in output.text


@pytest.mark.parametrize(
    ("data", "media_type"),
    [
        (PNG, "image/png"),
        (b"\xff\xd8\xff\xe0" + bytes(16), "image/jpeg"),
        (b"GIF89a" + bytes(16), "image/gif"),
        (b"RIFF\x10\x00\x00\x00WEBPVP8 " + bytes(16), "image/webp"),
    ],
)
async def test_images_become_image_parts(root: Path, data: bytes, media_type: str) -> None:
    (root / "picture.dat").write_bytes(data)
    output = await read(root, path="picture.dat")
    assert not output.is_error
    images = [p for p in output.content if isinstance(p, ImagePart)]
    assert images == [ImagePart(data=data, media_type=media_type)]


async def test_a_missing_file_names_the_closest_paths(root: Path) -> None:
    (root / "src").mkdir()
    (root / "src" / "config.py").write_text("x = 1\n")
    output = await read(root, path="src/confg.py")
    assert output.is_error
    assert "File not found: 'src/confg.py'" in output.text
    assert "src/config.py" in output.text
    elsewhere = await read(root, path="config.py")
    assert "src/config.py" in elsewhere.text


async def test_directories_empty_files_and_offsets_past_the_end(root: Path) -> None:
    (root / "dir").mkdir()
    (root / "empty.txt").write_text("")
    (root / "two.txt").write_text("a\nb\n")
    assert "list_dir" in (await read(root, path="dir")).text
    assert "empty" in (await read(root, path="empty.txt")).text
    past = await read(root, path="two.txt", offset=5)
    assert past.is_error
    assert "has 2 lines" in past.text


async def test_path_escapes_are_errors(root: Path) -> None:
    (root / "link.txt").symlink_to(root.parent / "outside.txt")
    for path in ("../outside.txt", str(root.parent / "outside.txt"), "link.txt"):
        output = await read(root, path=path)
        assert output.is_error, path
        assert "outside" in output.text
        assert "secret" not in output.text


async def test_no_environment_is_an_error() -> None:
    output = await ReadFileTool().execute({"path": "a"}, ToolContext())
    assert output.is_error
    assert "environment" in output.text


async def read_many(root: Path, *paths: str) -> ToolOutput:
    return await run(ReadManyFilesTool(), root, paths=list(paths))


async def test_read_many_reads_paths_and_globs_with_headers(root: Path) -> None:
    (root / "pkg").mkdir()
    (root / "pkg" / "a.py").write_text("A = 1\n")
    (root / "pkg" / "b.py").write_text("B = 2\n")
    (root / "notes.md").write_text("hello\n")
    output = await read_many(root, "notes.md", "pkg/*.py", "notes.md")
    assert not output.is_error
    assert output.text.count("==> notes.md <==") == 1
    assert "==> pkg/a.py <==\n     1\tA = 1" in output.text
    assert "==> pkg/b.py <==\n     1\tB = 2" in output.text


async def test_read_many_notes_failures_and_errors_when_all_fail(root: Path) -> None:
    (root / "ok.txt").write_text("fine\n")
    (root / "blob.bin").write_bytes(b"\x00\x01")
    mixed = await read_many(root, "ok.txt", "nope.txt", "blob.bin", "*.zzz")
    assert not mixed.is_error
    assert "File not found: 'nope.txt'" in mixed.text
    assert "binary or image file skipped" in mixed.text
    assert "No files match '*.zzz'" in mixed.text
    failed = await read_many(root, "nope.txt", "../outside.txt")
    assert failed.is_error
    assert "outside" in failed.text
    assert "secret" not in failed.text


async def test_read_many_is_bounded(root: Path) -> None:
    for n in range(30):
        (root / f"f{n:02}.txt").write_text("q" * 99 + "\n" * 1 + ("r" * 99 + "\n") * 20)
    output = await read_many(root, "*.txt")
    assert len(output.text) < 21_000
    assert "Not read (over the size budget" in output.text
    assert "f29.txt" in output.text
