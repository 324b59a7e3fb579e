"""One bad input never breaks ``taor -p``: bytes that are not UTF-8 (from argv, stdin, a
stream-json line or a transcript written before) become U+FFFD with one warning, and the
session goes on; ``--continue`` works after them."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from taor.testing import FakeProviderServer, HttpError, context_length, text

from .support import TAOR, data_home, environ, home, local, taor
from .test_stream_input import Driven


def sent_text(server: FakeProviderServer, number: int = 0) -> str:
    return str(server.requests[number].json["messages"][-1]["content"])


def test_a_prompt_on_stdin_that_is_not_utf8(tmp_path: Path, server: FakeProviderServer) -> None:
    server.push(text("Read it."), text("Still here."))
    done = subprocess.run(
        [TAOR, "-p", *local(server)], cwd=tmp_path, input=b"hello \xff\xfe world\n",
        capture_output=True, timeout=120, env=environ(tmp_path),
    )  # fmt: skip
    assert (done.returncode, done.stdout) == (0, b"Read it.\n")
    (line,) = done.stderr.decode().splitlines()
    assert "not all UTF-8" in line and "U+FFFD" in line
    assert sent_text(server) == "hello \ufffd\ufffd world\n"
    again = taor("-p", "more", "--continue", *local(server), cwd=tmp_path)
    assert (again.returncode, again.stdout, again.stderr) == (0, "Still here.\n", "")


def test_a_prompt_in_argv_that_is_not_utf8(tmp_path: Path, server: FakeProviderServer) -> None:
    server.push(text("Fine."))
    done = taor("-p", "hi \udcff there", *local(server), cwd=tmp_path)  # argv byte 0xff
    assert (done.returncode, done.stdout) == (0, "Fine.\n")
    assert "not all UTF-8" in done.stderr and "Traceback" not in done.stderr
    assert sent_text(server) == "hi \ufffd there"


def test_a_stream_json_line_that_is_not_utf8(tmp_path: Path, server: FakeProviderServer) -> None:
    server.push(text("Fine."))
    run = Driven(*local(server), cwd=tmp_path)
    run.send(b'{"type": "user", "text": "caf\xe9"}')
    warning = run.until(kind="warning")
    assert warning["code"] == "encoding" and "U+FFFD" in warning["message"]
    assert run.until(type="result")["result"] == "Fine."
    assert run.end() == 0
    assert sent_text(server) == "caf\ufffd"


def test_a_transcript_holding_lone_surrogates_is_repaired_for_continue(
    tmp_path: Path, server: FakeProviderServer
) -> None:
    server.push(text("First."), text("Second."))
    assert taor("-p", "MARK", *local(server), cwd=tmp_path).returncode == 0
    (path,) = data_home(tmp_path).rglob("*.jsonl")
    path.write_text(path.read_text().replace("MARK", "MA\\udcffRK"))  # as an old taor wrote it
    again = taor("-p", "more", "--continue", *local(server), cwd=tmp_path)
    assert (again.returncode, again.stdout) == (0, "Second.\n"), again.stderr
    messages = server.requests[-1].json["messages"]
    assert any(m["content"] == "MA\ufffdRK" for m in messages), json.dumps(messages)


def test_the_prompt_may_follow_the_flags(tmp_path: Path, server: FakeProviderServer) -> None:
    """As the limit line says: ``taor -p --continue "what next"``."""
    server.push(text("One."), text("Two."))
    assert taor("-p", "first", *local(server), cwd=tmp_path).stdout == "One.\n"
    again = taor("-p", "--continue", "what next", *local(server), cwd=tmp_path)
    assert (again.returncode, again.stdout) == (0, "Two.\n")
    assert sent_text(server, 1) == "what next"


def test_a_provider_error_is_one_short_line_and_whole_in_the_log(
    tmp_path: Path, server: FakeProviderServer
) -> None:
    body = "bad request: " + "x" * 20_000
    server.push(HttpError(status=404, message=body))
    done = taor("-p", "hi", *local(server), cwd=tmp_path)
    assert done.returncode == 1
    (line,) = done.stderr.splitlines()
    assert line.startswith("taor: ") and "bad request" in line and len(line) < 400
    (log,) = home(tmp_path, "state").rglob("taor.log")
    assert body in log.read_text()


def test_a_prompt_bigger_than_the_window_is_refused_before_it_is_sent(
    tmp_path: Path, server: FakeProviderServer
) -> None:
    server.push(text("Small one."))
    huge = "word " * 400_000  # 2 MB
    done = taor("-p", *local(server), cwd=tmp_path, stdin=huge)
    assert (done.returncode, done.stdout) == (2, "") and not server.requests
    (line,) = done.stderr.splitlines()
    assert "too large" in line and "context window is" in line and "2,000,000 characters" in line
    again = taor("-p", "small", "--continue", *local(server), cwd=tmp_path)
    assert (again.returncode, again.stdout) == (0, "Small one.\n")
    assert "word word" not in json.dumps(server.requests[0].json)


def test_an_input_the_provider_refused_is_not_sent_again(
    tmp_path: Path, server: FakeProviderServer
) -> None:
    server.push(context_length(), text("Fine now."))
    done = taor("-p", "REFUSED INPUT", *local(server), cwd=tmp_path)
    assert done.returncode == 1
    assert "taor -p --continue" in done.stderr and len(done.stderr.splitlines()) == 2
    again = taor("-p", "a new one", "--continue", *local(server), cwd=tmp_path)
    assert (again.returncode, again.stdout) == (0, "Fine now.\n")
    sent = json.dumps(server.requests[1].json["messages"])
    assert "a new one" in sent and "REFUSED INPUT" not in sent


def test_a_dotenv_that_is_not_utf8_is_read_with_replacement_characters(
    tmp_path: Path, server: FakeProviderServer
) -> None:
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    (tmp_path / ".env").write_bytes(b"TAOR_APPEND_SYSTEM_PROMPT=caf\xe9 au lait\n")
    server.push(text("Ok."))
    done = taor("-p", "hi", *local(server), cwd=tmp_path)
    assert done.returncode == 0 and "Traceback" not in done.stderr
    assert "caf\ufffd au lait" in json.dumps(server.requests[0].json, ensure_ascii=False)


def test_a_config_file_that_is_not_utf8_is_one_line_and_exit_2(tmp_path: Path) -> None:
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    (tmp_path / ".taor").mkdir()
    (tmp_path / ".taor" / "config.toml").write_bytes(b'model = "caf\xe9"\n')
    done = taor("-p", "hi", cwd=tmp_path)
    assert done.returncode == 2 and "Traceback" not in done.stderr
    (line,) = done.stderr.splitlines()
    assert "config.toml: not UTF-8 text" in line


def test_a_system_prompt_file_that_is_not_utf8_is_read_with_replacement_characters(
    tmp_path: Path, server: FakeProviderServer
) -> None:
    (tmp_path / "prompt.md").write_bytes(b"You answer in fran\xe7ais.\n")
    server.push(text("Ok."))
    done = taor("-p", "hi", *local(server), "--system-prompt-file", "prompt.md", cwd=tmp_path)
    assert done.returncode == 0 and "Traceback" not in done.stderr, done.stderr
    assert "fran\ufffdais" in json.dumps(server.requests[0].json, ensure_ascii=False)
