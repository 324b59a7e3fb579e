"""``taor doctor``'s checks of the service, through the real command, for each state the
service's data folder, database and port can be in: fresh, ready, a folder that cannot be
made, the port held by a running taor service or by another program, a database made by an
older or a newer taor; and without the server extra, one line saying how to install it."""

from __future__ import annotations

import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from taor.testing import FakeProviderServer

from ..cli.support import environ, home, taor
from .process import Home, free_port, serve, stop


@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / "project").mkdir()
    return tmp_path / "project"


def configure(project: Path, text: str) -> Path:
    """The person's own config file (the XDG config home ``taor()`` gives the run)."""
    path = home(project, "config") / "taor" / "config.toml"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def service_lines(project: Path) -> dict[str, str]:
    """The service's checks by name (service, database, port), each as printed."""
    done = taor("doctor", cwd=project)
    assert done.returncode in (0, 1) and "Traceback" not in done.stderr, done.stderr
    lines = done.stdout.splitlines()
    start = next(i for i, line in enumerate(lines) if line.split()[1] == "service")
    return {line.split()[1]: line for line in lines[start:]}


def as_person(project: Path) -> Home:
    """The same person for ``taor serve`` (the same config and data homes)."""
    return Home(project.parent, environ=environ(project))


def test_a_fresh_machine_says_taor_serve_makes_what_it_needs(project: Path) -> None:
    port = free_port()
    configure(project, f"[serve]\nport = {port}\n")
    data = home(project, "data") / "taor" / "service"
    lines = service_lines(project)
    assert (
        lines["service"].split()[0] == "ok"
        and f"data folder {data} (not made yet" in lines["service"]
    )
    assert (
        lines["database"].split()[0] == "ok" and "none yet: taor serve makes" in lines["database"]
    )
    assert lines["port"] == f"ok       port         127.0.0.1:{port} is free"


def test_a_running_service_holds_its_port_and_its_database_is_current(project: Path) -> None:
    port = free_port()
    configure(project, f'[serve]\nport = {port}\ndata_dir = "{project.parent / "svc"}"\n')
    process, _ = serve(as_person(project), cwd=project)
    try:
        running = service_lines(project)
    finally:
        assert stop(process)[0] == 0
    assert "is in use by a running taor service (taor " in running["port"]
    assert running["port"].split()[0] == "ok"
    assert running["service"].startswith("ok") and "(writable)" in running["service"]
    assert running["database"].startswith("ok") and "the newest" in running["database"]
    assert service_lines(project)["port"].endswith("is free")  # stopped


def test_a_port_held_by_another_program_is_broken(project: Path) -> None:
    with FakeProviderServer([]) as other:
        port = int(other.url.rsplit(":", 1)[1])
        configure(project, f"[serve]\nport = {port}\n")
        line = service_lines(project)["port"]
    assert line.startswith("broken") and f"127.0.0.1:{port} is in use by another program" in line
    assert "set port in [serve]" in line


def test_a_data_folder_that_cannot_be_made_is_broken(project: Path) -> None:
    blocker = project.parent / "blocker"
    blocker.write_text("a file\n")
    configure(project, f'[serve]\nport = 0\ndata_dir = "{blocker / "service"}"\n')
    lines = service_lines(project)
    assert lines["service"].startswith("broken")
    assert f"cannot be made ({blocker} is a file)" in lines["service"]
    assert "data_dir in [serve]" in lines["service"]
    assert lines["port"].startswith("ok") and "any free port" in lines["port"]


def downgraded(database: Path) -> None:
    """The database as an older taor left it: its newest migration undone, by Alembic."""
    from alembic import command
    from alembic.config import Config
    from sqlalchemy import create_engine

    from taor.server.store.database import MIGRATIONS

    engine = create_engine(f"sqlite:///{database}")
    with engine.begin() as connection:
        config = Config()
        config.set_main_option("script_location", str(MIGRATIONS))
        config.attributes["connection"] = connection
        command.downgrade(config, "-1")
    engine.dispose()


def test_an_old_database_is_behind_and_a_newer_one_is_broken(project: Path) -> None:
    data = project.parent / "svc"
    configure(project, f'[serve]\nport = 0\ndata_dir = "{data}"\n')
    made = subprocess.run(  # the database, as taor serve makes it
        [sys.executable, "-m", "taor", "serve", "token", "list"],
        env=environ(project), capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert made.returncode == 0, made.stderr
    downgraded(data / "taor.db")
    line = service_lines(project)["database"]
    assert line.startswith("note") and "1 migration behind; taor serve upgrades it" in line
    with sqlite3.connect(data / "taor.db") as connection:
        connection.execute("DELETE FROM alembic_version")
        connection.execute("INSERT INTO alembic_version VALUES ('9999')")
    line = service_lines(project)["database"]
    assert line.startswith("broken") and "made by a newer taor (schema 9999)" in line
    (data / "taor.db").write_bytes(b"not a database, " * 100)
    line = service_lines(project)["database"]
    assert line.startswith("broken") and "cannot be read" in line


def test_a_bad_serve_table_is_broken_and_not_fatal(project: Path) -> None:
    path = configure(project, '[serve]\nworkers = "many"\n')
    done = taor("doctor", cwd=project, env={"ANTHROPIC_API_KEY": "sk-ant-test-0123456789"})
    assert done.returncode == 0  # taor runs; its service does not
    [line] = [line for line in done.stdout.splitlines() if line.split()[1] == "service"]
    assert line.startswith("broken") and f"{path}: serve.workers = 'many'" in line
    assert "whole number, 1 or more" in line


SERVER = ("fastapi", "uvicorn", "sse_starlette", "sqlalchemy", "aiosqlite", "alembic", "starlette")
DOCTOR = """
import sys
blocked = {blocked!r}
sys.modules.update(dict.fromkeys(blocked))  # as if the server extra were not installed
from taor.cli import main
code = main(["doctor"])
print("imported:", sorted(m for m in {server!r} if sys.modules.get(m) is not None))
"""


@pytest.mark.parametrize("installed", [True, False])
def test_doctor_imports_nothing_of_the_server_and_names_its_extra(
    project: Path, installed: bool
) -> None:
    configure(project, "[serve]\nport = 0\n")
    blocked = () if installed else SERVER
    done = subprocess.run(
        [sys.executable, "-c", DOCTOR.format(blocked=blocked, server=SERVER)],
        cwd=project, env=environ(project), capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert "Traceback" not in done.stderr, done.stderr
    assert done.stdout.splitlines()[-1] == "imported: []"
    [line] = [line for line in done.stdout.splitlines() if line.split()[1:2] == ["service"]]
    if installed:
        assert line.startswith("ok")
    else:
        assert line.startswith("missing") and "pip install 'taor[server]'" in line
