"""What tests read from /proc (Linux) about processes: is one running, which of a group are."""

from __future__ import annotations

from pathlib import Path


def _state_and_group(stat: str) -> tuple[str, str]:
    state, _, group = stat[stat.rfind(")") + 2 :].split()[:3]  # after "pid (comm) "
    return state, group


def running(pid: int) -> bool:
    """True while ``pid`` exists and is not a zombie."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except FileNotFoundError:
        return False
    return _state_and_group(stat)[0] not in "ZX"


def group_running(pgid: int) -> list[int]:
    """The members of process group ``pgid`` still running (zombies aside)."""
    members = []
    for entry in Path("/proc").iterdir():
        try:
            stat = (entry / "stat").read_text()
        except OSError:  # not a process, or gone meanwhile
            continue
        state, group = _state_and_group(stat)
        if group == str(pgid) and state not in "ZX":
            members.append(int(entry.name))
    return members
