"""read_file and read_many_files on LocalEnvironment (real files) and MemoryEnvironment."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from taor.env import LocalEnvironment
from taor.llm.types import ImagePart
from taor.tools.base import ToolContext, ToolOutput
from taor.tools.builtin import ReadFileTool, ReadManyFilesTool
from tests.tools.builtin.workspace import Workspace

PNG = b"\x89PNG\r\n\x1a\n" + b"\x00\x00\x00\rIHDR" + bytes(20)


async def read(ws: Workspace, **arguments: Any) -> ToolOutput:
    return await ws.run(ReadFileTool(), **arguments)


async def test_lines_are_numbered_and_paged(ws: Workspace) -> None:
    ws.put("a.txt", "".join(f"line {n}\n" for n in range(1, 11)))
    whole = await read(ws, path="a.txt")
    assert not whole.is_error
    assert whole.text.splitlines()[0] == "     1\tline 1"
    assert whole.text.splitlines()[-1] == "    10\tline 10"
    page = await read(ws, path="a.txt", offset=3, limit=2)
    assert page.text.splitlines() == [
        "     3\tline 3",
        "     4\tline 4",
        "[Showing lines 3-4. More follow: read on with offset=5.]",
    ]
    assert page.metadata == {"path": "a.txt", "first_line": 3, "last_line": 4}


async def test_default_limit_is_2000_lines(ws: Workspace) -> None:
    ws.put("big.txt", "x\n" * 2500)
    output = await read(ws, path="big.txt")
    assert "  2000\tx" in output.text
    assert "  2001\t" not in output.text
    assert "offset=2001" in output.text


async def test_long_lines_are_cut_with_a_note(ws: Workspace) -> None:
    ws.put("wide.txt", "y" * 5000 + "\nshort\n")
    lines = (await read(ws, path="wide.txt")).text.splitlines()
    assert lines[0] == "     1\t" + "y" * 2000 + "... [line cut: 3000 more characters]"
    assert lines[1] == "     2\tshort"


async def test_crlf_and_cr_endings_are_not_shown(ws: Workspace) -> None:
    ws.put("dos.txt", b"one\r\ntwo\r\n")
    ws.put("mac.txt", b"one\rtwo")
    assert (await read(ws, path="dos.txt")).text == "     1\tone\n     2\ttwo"
    assert (await read(ws, path="mac.txt")).text == "     1\tone\n     2\ttwo"


async def test_output_over_the_limit_is_truncated_and_whole_in_metadata(ws: Workspace) -> None:
    ws.put("long.txt", "z" * 100 + "\n" * 1 + ("w" * 1000 + "\n") * 1000)
    output = await read(ws, path="long.txt")
    assert len(output.text) < 51_000
    assert "WARNING: Tool output was truncated" in output.text
    assert output.metadata["full_output"].count("\n") == 1000
    assert output.metadata["omitted_chars"] > 0


async def test_binary_files_are_refused(ws: Workspace) -> None:
    ws.put("blob.bin", b"abc\x00def")
    output = await read(ws, path="blob.bin")
    assert output.is_error
    assert output.text.startswith("'blob.bin' is a binary file (7 bytes), not text")


@pytest.mark.parametrize(
    ("data", "media_type"),
    [
        (PNG, "image/png"),
        (b"\xff\xd8\xff\xe0" + bytes(16), "image/jpeg"),
        (b"GIF89a" + bytes(16), "image/gif"),
        (b"RIFF\x10\x00\x00\x00WEBPVP8 " + bytes(16), "image/webp"),
    ],
)
async def test_images_become_image_parts(ws: Workspace, data: bytes, media_type: str) -> None:
    ws.put("picture.dat", data)
    output = await read(ws, path="picture.dat")
    assert not output.is_error
    images = [p for p in output.content if isinstance(p, ImagePart)]
    assert images == [ImagePart(data=data, media_type=media_type)]
    assert output.text == f"Image picture.dat ({media_type}, {len(data)} bytes)."


async def test_a_missing_file_names_the_closest_paths(ws: Workspace) -> None:
    ws.put("src/config.py", "x = 1\n")
    ws.put(".git/config", "[core]\n")
    output = await read(ws, path="src/confg.py")
    assert output.is_error
    assert output.text == "File not found: 'src/confg.py'. Did you mean: src/config.py?"
    elsewhere = await read(ws, path="config.py")
    assert elsewhere.text == "File not found: 'config.py'. Did you mean: src/config.py?"
    nothing = await read(ws, path="zzz/qqq.rs")
    assert nothing.text == "File not found: 'zzz/qqq.rs'."


async def test_directories_empty_files_and_offsets_past_the_end(ws: Workspace) -> None:
    ws.mkdir("dir")
    ws.put("empty.txt", "")
    ws.put("two.txt", "a\nb\n")
    assert "list_dir" in (await read(ws, path="dir")).text
    assert (await read(ws, path="empty.txt")).text == "(empty.txt is empty.)"
    past = await read(ws, path="two.txt", offset=5)
    assert past.is_error
    assert "has 2 lines" in past.text


async def test_path_escapes_are_errors(ws: Workspace) -> None:
    for path in ("../outside.txt", ws.outside, "sub/../../outside.txt"):
        output = await read(ws, path=path)
        assert output.is_error, path
        assert "outside" in output.text
        assert "secret" not in output.text


async def test_a_symlink_out_is_an_error(tmp_path: Path) -> None:
    (tmp_path / "outside.txt").write_text("secret\n")
    (tmp_path / "ws").mkdir()
    (tmp_path / "ws" / "link.txt").symlink_to(tmp_path / "outside.txt")
    context = ToolContext(environment=LocalEnvironment(tmp_path / "ws"))
    output = await ReadFileTool().execute({"path": "link.txt"}, context)
    assert output.is_error
    assert "outside" in output.text and "secret" not in output.text


async def test_no_environment_is_an_error() -> None:
    output = await ReadFileTool().execute({"path": "a"}, ToolContext())
    assert output.is_error
    assert "environment" in output.text


async def read_many(ws: Workspace, *paths: str) -> ToolOutput:
    return await ws.run(ReadManyFilesTool(), paths=list(paths))


async def test_read_many_reads_paths_and_globs_with_headers(ws: Workspace) -> None:
    ws.put("pkg/a.py", "A = 1\n")
    ws.put("pkg/b.py", "B = 2\n")
    ws.put("notes.md", "hello\n")
    output = await read_many(ws, "notes.md", "pkg/*.py", "notes.md")
    assert not output.is_error
    assert output.text.count("==> notes.md <==") == 1
    assert "==> pkg/a.py <==\n     1\tA = 1" in output.text
    assert "==> pkg/b.py <==\n     1\tB = 2" in output.text


async def test_read_many_notes_failures_and_errors_when_all_fail(ws: Workspace) -> None:
    ws.put("ok.txt", "fine\n")
    ws.put("blob.bin", b"\x00\x01")
    ws.put("pic.png", PNG)
    ws.mkdir("dir")
    mixed = await read_many(ws, "ok.txt", "nope.txt", "blob.bin", "pic.png", "dir", "*.zzz")
    assert not mixed.is_error
    assert "==> ok.txt <==\n     1\tfine" in mixed.text
    assert "File not found: 'nope.txt'" in mixed.text
    assert mixed.text.count("binary or image file skipped") == 2
    assert "==> dir <==\n[a directory; use list_dir]" in mixed.text
    assert "No files match '*.zzz'" in mixed.text
    failed = await read_many(ws, "nope.txt", "../outside.txt")
    assert failed.is_error
    assert "outside" in failed.text
    assert "secret" not in failed.text


async def test_read_many_is_bounded(ws: Workspace) -> None:
    for n in range(30):
        ws.put(f"f{n:02}.txt", "q" * 99 + "\n" * 1 + ("r" * 99 + "\n") * 20)
    output = await read_many(ws, "*.txt")
    assert len(output.text) < 21_000
    assert "Not read (over the size budget" in output.text
    assert "f29.txt" in output.text
