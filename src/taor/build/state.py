"""What a build keeps beside its transcript (``<transcript>.build.json``) so that it can be
continued with nothing but ``--continue``: its brief, interview, plan, title and cap."""

from __future__ import annotations

import json
import os
from pathlib import Path

from taor._records import frozen
from taor.build.inputs import BuildInputs
from taor.errors import ConfigurationError


@frozen
class BuildState:
    inputs: BuildInputs
    title: str = ""
    max_tool_calls: int = 0


def state_path(transcript: Path) -> Path:
    return transcript.with_name(f"{transcript.stem}.build.json")


def save_state(transcript: Path, state: BuildState) -> None:
    data = {
        "brief": state.inputs.brief,
        "qna": state.inputs.qna,
        "plan": state.inputs.plan,
        "title": state.title,
        "max_tool_calls": state.max_tool_calls,
    }
    path = state_path(transcript)
    temporary = path.with_suffix(".tmp")
    temporary.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
    os.chmod(temporary, 0o600)
    os.replace(temporary, path)


def load_state(transcript: Path) -> BuildState:
    try:
        data = json.loads(state_path(transcript).read_text(encoding="utf-8"))
        inputs = BuildInputs(brief=data["brief"], qna=data["qna"], plan=data["plan"])
        return BuildState(
            inputs=inputs,
            title=str(data.get("title") or ""),
            max_tool_calls=int(data.get("max_tool_calls") or 0),
        )
    except (OSError, ValueError, KeyError, TypeError) as error:
        raise ConfigurationError(f"the build beside {transcript} cannot be read: {error}") from None


def newest_build(folder: Path) -> Path:
    """The newest transcript in ``folder`` that is a build's."""
    found = sorted(p for p in folder.glob("*.jsonl") if state_path(p).is_file())
    if not found:
        raise ConfigurationError("no build to continue in this workspace: run taor build first")
    return found[-1]
