"""The interactive ``taor`` in a real terminal: tmux runs it on a socket of the test's own, keys
go in with ``send-keys`` and the screen comes back with ``capture-pane``, as a person would use
it. Waits poll the screen until what is expected is there (with a timeout), never sleep."""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from ..support import TAOR, data_home, environ

EXITED = "TAOR-EXITED"
PROMPT_READY = "Ctrl-D exits"  # printed as the session starts, maybe before the prompt is up
KEYS_SHOWN = "y yes · a always"  # a permission question's keys: they answer it once shown
COLOUR = re.compile(r"\x1b\[[0-9;]*(?:3[0-7]|9[0-7]|38;[0-9;]+)m")  # a foreground colour

needs_tmux = pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed")


class Terminal:
    """``taor *args`` in a ``width`` x ``height`` tmux pane, in ``cwd``."""

    def __init__(
        self,
        args: list[str],
        *,
        cwd: Path,
        socket: Path,
        width: int = 100,
        height: int = 30,
        env: dict[str, str] | None = None,
        stdout: Path | None = None,
    ) -> None:
        """``stdout``: a file for the command's standard output (the terminal keeps stderr)."""
        self.cwd, self.socket = cwd, socket
        redirect = f" > {shlex.quote(str(stdout))}" if stdout else ""
        command = f"{shlex.join([TAOR, *args])}{redirect}; echo {EXITED} $?; sleep 300"
        self._tmux(
            "new-session", "-d", "-x", str(width), "-y", str(height), "-c", str(cwd), command,
            env={**environ(cwd), **(env or {})},
        )  # fmt: skip

    def ready(self) -> None:
        """Until the prompt is up: its status line (with the context's share, which stays
        longest on a narrow screen) is on the screen."""
        self.wait_for(" · context ", whole=False)

    def keys(self, *keys: str) -> None:
        """tmux key names: ``Enter``, ``C-c``, ``C-d``, ``Escape``, or plain text."""
        self._tmux("send-keys", *keys)

    def type(self, text: str) -> None:
        """``text`` typed literally (no key names)."""
        self._tmux("send-keys", "-l", text)

    def paste(self, text: str) -> None:
        """``text`` pasted (bracketed, as a terminal pastes into a program that asks for it)."""
        self._tmux("set-buffer", "--", text)
        self._tmux("paste-buffer", "-p")

    def asked(self, question: str) -> str:
        """The screen once ``question`` shows its keys (they answer it only from then on, a
        moment after it appears)."""
        return self.wait_for(
            lambda text: question in text and KEYS_SHOWN in text.split(question, 1)[1],
            whole=False,
        )

    def answer(self, key: str, question: str) -> str:
        """The screen once ``question`` shows its keys, then ``key`` pressed to answer it."""
        screen = self.asked(question)
        self.keys(key)
        return screen

    def send(self, text: str) -> None:
        self.type(text)
        self.keys("Enter")

    def kill(self, signal: int) -> None:
        """``signal`` sent to the ``taor`` process, as ``kill`` from another terminal does."""
        shell = self._tmux("display-message", "-p", "#{pane_pid}").stdout.strip()
        children = Path(f"/proc/{shell}/task/{shell}/children").read_text().split()
        os.kill(int(children[0]), signal)

    def screen(self, *, colors: bool = False) -> str:
        """What the pane shows now."""
        flags = ["-e"] if colors else []
        return self._tmux("capture-pane", "-p", *flags).stdout

    def history(self) -> str:
        """Everything the pane has shown, its scrollback included, wrapped lines joined."""
        return self._tmux("capture-pane", "-p", "-J", "-S", "-").stdout

    def wait_for(
        self, wanted: str | Callable[[str], bool], *, timeout: float = 30, whole: bool = True
    ) -> str:
        """The history (or the screen, ``whole`` False) once it has ``wanted`` in it."""
        check = wanted if callable(wanted) else (lambda text: wanted in text)
        deadline = time.monotonic() + timeout
        while True:
            text = self.history() if whole else self.screen()
            if check(text):
                return text
            if time.monotonic() > deadline:
                raise AssertionError(f"timed out waiting for {wanted!r}; the screen:\n{text}")
            time.sleep(0.1)

    def exit_code(self, *, timeout: float = 30) -> int:
        text = self.wait_for(EXITED, timeout=timeout)
        return int(text.split(EXITED, 1)[1].split()[0])

    def close(self) -> None:
        self._tmux("kill-server", check=False)

    def _tmux(
        self, *args: str, env: dict[str, str] | None = None, check: bool = True
    ) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            ["tmux", "-S", str(self.socket), "-f", "/dev/null", *args],
            capture_output=True, text=True, env=env, check=check, timeout=30,
        )  # fmt: skip


def transcripts(workspace: Path) -> list[Path]:
    """The transcripts of the sessions run in ``workspace``, oldest first by name."""
    return sorted(data_home(workspace).glob("taor/sessions/*/*.jsonl"))
