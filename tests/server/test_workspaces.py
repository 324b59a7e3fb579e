"""Where a run works: a copy of a named template, a clone of a git repository at a ref (a
local one made here, inside the host allowlist), or a host folder from the allowlist, worked
in in place and left alone by DELETE. Bad requests are 422 saying what is allowed."""

from __future__ import annotations

import socket
import subprocess
from pathlib import Path

from taor.testing import FakeProviderServer, ToolCall, text, tool_calls

from .conftest import serve
from .test_runs_api import create, until


def git(folder: Path, *args: str) -> str:
    done = subprocess.run(
        ["git", "-C", str(folder), "-c", "user.name=t", "-c", "user.email=t@example.com", *args],
        capture_output=True,
        text=True,
        check=True,
    )
    return done.stdout.strip()


def closed_port() -> int:
    """A loopback port nothing listens on."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def empty(folder: Path) -> bool:
    return not any(folder.iterdir())


def repository(folder: Path) -> Path:
    """A repository with ``README`` "one" on ``main`` and "two" on branch ``next``."""
    folder.mkdir(parents=True)
    git(folder, "init", "-q", "-b", "main")
    (folder / "README").write_text("one\n")
    git(folder, "add", "README")
    git(folder, "commit", "-qm", "one")
    git(folder, "checkout", "-qb", "next")
    (folder / "README").write_text("two\n")
    git(folder, "commit", "-qam", "two")
    git(folder, "checkout", "-q", "main")
    return folder


async def test_a_template_is_copied_in_and_an_unknown_one_is_422(tmp_path: Path) -> None:
    templates = tmp_path / "templates"
    (templates / "python").mkdir(parents=True)
    (templates / "python" / "main.py").write_text("print('hi')\n")
    (templates / "web").mkdir()
    with FakeProviderServer([text("Seen.")]) as model:
        async with (
            serve(tmp_path / "data", model, templates_dir=templates) as served,
            served.client(served.admin) as client,
        ):
            run = await create(client, workspace={"kind": "template", "template": "python"})
            done = await until(client, run["id"], "finished", "failed")
            assert (Path(done["workspace"]) / "main.py").read_text() == "print('hi')\n"
            assert (templates / "python" / "main.py").exists()  # copied, not moved
            unknown = await client.post(
                "/runs",
                json={"prompt": "x", "workspace": {"kind": "template", "template": "go"}},
            )
            assert unknown.status_code == 422
            assert "'go' is unknown" in unknown.text and "python, web" in unknown.text
            assert (await client.get("/runs")).json()["runs"] == [done]


async def test_a_git_workspace_is_cloned_at_its_ref(tmp_path: Path) -> None:
    origin = repository(tmp_path / "repos" / "origin")
    with FakeProviderServer([text("Cloned.")]) as model:
        allow = (tmp_path / "repos",)
        async with (
            serve(tmp_path / "data", model, host_allowlist=allow) as served,
            served.client(served.admin) as client,
        ):
            spec = {"kind": "git", "url": f"file://{origin}", "ref": "next"}
            run = await create(client, workspace=spec)
            done = await until(client, run["id"], "finished", "failed")
            assert done["status"] == "finished", done
            assert (Path(done["workspace"]) / "README").read_text() == "two\n"
            assert git(Path(done["workspace"]), "rev-parse", "--abbrev-ref", "HEAD") in (
                "HEAD",
                "next",
            )


async def test_a_clone_that_fails_fails_the_run_with_gits_reason(tmp_path: Path) -> None:
    (tmp_path / "repos" / "empty").mkdir(parents=True)
    origin = repository(tmp_path / "repos" / "origin")
    with FakeProviderServer([]) as model:
        allow = (tmp_path / "repos",)
        async with (
            serve(tmp_path / "data", model, host_allowlist=allow) as served,
            served.client(served.admin) as client,
        ):
            run = await create(
                client, workspace={"kind": "git", "url": str(origin.parent / "empty")}
            )
            failed = await until(client, run["id"], "failed", "finished")
            assert failed["status"] == "failed"
            assert failed["error"].startswith("git clone failed: fatal:"), failed["error"]
            assert "\n" not in failed["error"]
            spec = {"kind": "git", "url": str(origin), "ref": "no-such-branch"}
            run = await create(client, workspace=spec)
            failed = await until(client, run["id"], "failed", "finished")
            assert failed["error"].startswith("git checkout failed:"), failed["error"]
            closed = f"https://ann:s3cret@127.0.0.1:{closed_port()}/repo.git"
            run = await create(client, workspace={"kind": "git", "url": closed})
            failed = await until(client, run["id"], "failed", "finished")
            assert failed["error"].startswith("git clone failed:"), failed["error"]
            assert "s3cret" not in failed["error"]
            for url, said in [
                (str(tmp_path / "data"), "outside the host allowlist"),
                (f"file://{tmp_path}", "outside the host allowlist"),
                ("ext::sh -c touch% /tmp/pwned", "use an https, ssh or git URL"),
                ("--upload-pack=touch /tmp/pwned", "is not a repository URL"),
                ("repos/origin", "full path"),
            ]:
                refused = await client.post(
                    "/runs", json={"prompt": "x", "workspace": {"kind": "git", "url": url}}
                )
                assert refused.status_code == 422 and said in refused.text, refused.text
    assert model.requests == []  # no run reached the model


async def test_a_host_folder_is_worked_in_in_place_and_never_deleted(tmp_path: Path) -> None:
    allowed, outside = tmp_path / "projects", tmp_path / "secret"
    (allowed / "app").mkdir(parents=True)
    outside.mkdir()
    (allowed / "link").symlink_to(outside)
    write = ToolCall(name="write_file", arguments={"path": "made.txt", "content": "here\n"})
    with FakeProviderServer([tool_calls(write), text("Written.")]) as model:
        async with serve(tmp_path / "a", model) as served, served.client(served.admin) as client:
            none = await client.post(
                "/runs", json={"prompt": "x", "workspace": {"kind": "host", "path": str(allowed)}}
            )
            assert none.status_code == 422 and "no host folder is allowed" in none.text
        async with (
            serve(tmp_path / "b", model, host_allowlist=(allowed,)) as served,
            served.client(served.admin) as client,
        ):
            for path in [allowed / "app" / ".." / ".." / "secret", allowed / "link", outside]:
                refused = await client.post(
                    "/runs",
                    json={"prompt": "x", "workspace": {"kind": "host", "path": str(path)}},
                )
                assert refused.status_code == 422 and "outside the host allowlist" in refused.text
            spec = {"kind": "host", "path": str(allowed / "app")}
            run = await create(client, workspace=spec, permission_mode="accept_edits")
            done = await until(client, run["id"], "finished", "failed")
            assert done["workspace"] == str((allowed / "app").resolve())
            assert (allowed / "app" / "made.txt").read_text() == "here\n"
            assert (await client.delete(f"/runs/{run['id']}")).status_code == 204
            assert (allowed / "app" / "made.txt").exists()  # the host's folder stays
    assert not list(outside.iterdir())


async def test_a_clone_that_hangs_is_cancelled_or_timed_out(tmp_path: Path) -> None:
    with socket.socket() as silent, FakeProviderServer([]) as model:
        silent.bind(("127.0.0.1", 0))
        silent.listen()  # takes connections, never answers: git waits
        url = f"git://127.0.0.1:{silent.getsockname()[1]}/repo.git"
        async with (
            serve(tmp_path / "data", model, git_timeout=1.0) as served,
            served.client(served.admin) as client,
        ):
            run = await create(client, workspace={"kind": "git", "url": url})
            timed_out = await until(client, run["id"], "failed", "finished")
            assert timed_out["error"] == "git clone took over 1 s"
        async with (
            serve(tmp_path / "other", model, git_timeout=600.0) as served,
            served.client(served.admin) as client,
        ):
            run = await create(client, workspace={"kind": "git", "url": url})
            await until(client, run["id"], "running")
            steer = await client.post(f"/runs/{run['id']}/steer", json={"text": "x"})
            assert steer.status_code == 409 and "preparing its workspace" in steer.text
            assert (await client.post(f"/runs/{run['id']}/cancel")).status_code == 202
            cancelled = await until(client, run["id"], "cancelled", "failed")
            assert cancelled["status"] == "cancelled"
            assert empty(Path(cancelled["workspace"]))  # left for another try
    assert model.requests == []
