"""Tool-call arguments are written once (internal to ``taor.agent.record.codec``).

A ``ToolCallPart`` holds the arguments twice: parsed (``arguments``) and as the model sent them
(``raw_arguments``, which requests replay byte for byte). When the raw text parses to exactly
the parsed arguments, only the raw text is written and the parsed form is rebuilt on reading;
otherwise (a repaired or unparseable call) both are kept. Files that hold both still load.
"""

from __future__ import annotations

import json
from typing import Any

from taor.llm.types import ToolCallPart


def compact(out: dict[str, Any], call: ToolCallPart) -> None:
    """Leave ``arguments`` out of the encoded call when the raw text gives it back."""
    if not call.raw_arguments:
        return
    parsed = _parsed(call.raw_arguments)
    if parsed is not None and _canonical(parsed) == _canonical(out["arguments"]):
        del out["arguments"]  # compared as JSON: 1 == 1.0 == True in Python, not in JSON


def expand(data: dict[str, Any], kwargs: dict[str, Any]) -> None:
    """Rebuild ``arguments`` from ``raw_arguments`` when the record left it out."""
    if "arguments" not in data and kwargs.get("raw_arguments"):
        parsed = _parsed(kwargs["raw_arguments"])
        if parsed is not None:
            kwargs["arguments"] = parsed


def _parsed(raw: str) -> dict[str, Any] | None:
    try:
        value = json.loads(raw)
    except ValueError:
        return None
    return value if isinstance(value, dict) else None


def _canonical(value: Any) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
