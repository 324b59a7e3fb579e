"""Commands of one's own from Markdown files: their arguments, front matter, and where they are
read from (a project's only in a trusted folder)."""

from __future__ import annotations

from pathlib import Path

from taor.cli.interactive.commands.custom import folders, load


def write(folder: Path, name: str, text: str) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / name).write_text(text)


def test_arguments_go_where_the_file_says(tmp_path: Path) -> None:
    write(tmp_path, "fix.md", "Fix issue $1 in $2; all of it: $ARGUMENTS")
    write(tmp_path, "plain.md", "Explain the code.\n")
    found = load([(tmp_path, "user")])
    assert (
        found["fix"].prompt('42 "src/app.py"')
        == 'Fix issue 42 in src/app.py; all of it: 42 "src/app.py"'
    )
    assert found["fix"].prompt("") == "Fix issue  in ; all of it:"
    assert found["plain"].prompt("the parser") == "Explain the code.\n\nthe parser"
    assert found["plain"].description == "user command (plain.md)"


def test_front_matter_gives_the_help_line_and_is_not_sent(tmp_path: Path) -> None:
    write(
        tmp_path,
        "review.md",
        "---\ndescription: review the staged changes\n---\nReview: $ARGUMENTS\n",
    )
    (command,) = load([(tmp_path, "user")]).values()
    assert command.description == "review the staged changes"
    assert command.prompt("tests") == "Review: tests"


def test_project_commands_only_in_a_trusted_folder_and_built_ins_win(tmp_path: Path) -> None:
    project, config = tmp_path / "project", tmp_path / "config"
    write(project / ".taor" / "commands", "deploy.md", "Deploy (project)")
    write(project / ".taor" / "commands", "help.md", "Not the help")
    write(config / "commands", "deploy.md", "Deploy (user)")
    write(config / "commands", "mine.md", "Mine")
    untrusted = load(folders(project, config, trusted=False), taken=["help"])
    assert {n: c.template for n, c in untrusted.items()} == {
        "deploy": "Deploy (user)",
        "mine": "Mine",
    }
    trusted = load(folders(project, config, trusted=True), taken=["help"])
    assert trusted["deploy"].template == "Deploy (project)" and "help" not in trusted
    assert trusted["deploy"].origin == "project" and trusted["mine"].origin == "user"
