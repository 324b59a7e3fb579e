"""Scripting the tools a provider runs itself within a reply (Anthropic's web search, web
fetch, code execution, tool search): ``ServerToolRun``, ``web_search()`` and the blocks they
stream as."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import field
from typing import Any

from taor._records import frozen


@frozen
class ServerToolRun:
    """A tool the provider runs itself within a reply (Anthropic's web search, web fetch, code
    execution, tool search): its use (``name``, ``input``) and its result block (``result_type``
    with the JSON ``content``), streamed as Anthropic streams them. Other wires leave it out."""

    name: str
    input: Mapping[str, Any] = field(default_factory=dict)
    result_type: str = ""
    content: Any = None
    id: str | None = None


def web_search(query: str, *results: tuple[str, str], call_id: str | None = None) -> ServerToolRun:
    """A web search and its ``(title, url)`` results, shaped as Anthropic's ``web_search``."""
    found = [
        {
            "type": "web_search_result",
            "title": title,
            "url": url,
            "encrypted_content": f"fake-encrypted-{n}-" + "x" * 40,
            "page_age": None,
        }
        for n, (title, url) in enumerate(results)
    ]
    return ServerToolRun(
        name="web_search",
        input={"query": query},
        result_type="web_search_tool_result",
        content=found,
        id=call_id,
    )


def server_tool_blocks(run: ServerToolRun, call_id: str) -> tuple[dict[str, Any], dict[str, Any]]:
    """The run's use and result blocks, in Anthropic's shape."""
    use = {"type": "server_tool_use", "id": call_id, "name": run.name, "input": dict(run.input)}
    use["caller"] = {"type": "direct"}  # newer API versions add it after the input
    kind = run.result_type or f"{run.name}_tool_result"
    return use, {"type": kind, "tool_use_id": call_id, "content": run.content}
