"""``taor voice``: its help is argparse's (written at once, so ``| head`` leaves no traceback);
a subcommand it does not know is one usage line and exit 2."""

from __future__ import annotations

from pathlib import Path

from ..cli.support import taor


def test_help_names_the_subcommand(tmp_path: Path) -> None:
    done = taor("voice", "--help", cwd=tmp_path)
    assert done.returncode == 0 and done.stdout.startswith("usage: taor voice")
    assert "serve" in done.stdout


def test_an_unknown_subcommand_is_a_usage_error(tmp_path: Path) -> None:
    done = taor("voice", "listen", cwd=tmp_path)
    assert done.returncode == 2
    assert "invalid choice: 'listen'" in done.stderr and "Traceback" not in done.stderr
