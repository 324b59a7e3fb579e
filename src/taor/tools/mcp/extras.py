"""A server's resources and prompts, for a host: read a resource as text to attach to a prompt
(``@server:uri``), list them, and get a prompt's text (``/mcp__server__prompt args``).

``attach_resources(text, servers)`` appends every resource the text names as ``@server:uri``
(a server of ``servers``) after it, in ``<resource>`` blocks, like ``@path`` attaches files; a
mention of a server that is not there is left as it is, one that cannot be read is reported.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

from mcp import ClientSession, types

from taor._records import frozen
from taor.errors import ToolError
from taor.tools.mcp.connection import first_error
from taor.tools.mcp.server import McpServer

MENTION = re.compile(r"(?:^|(?<=[\s(\[{\"']))@([A-Za-z0-9_-]{1,64}):(\S+)")
TRAILING = ".,;:!?)]}\"'"
MAX_CHARS = 100_000


@frozen
class AttachedResources:
    """The prompt with the resources appended, those attached (``server:uri``), and problems."""

    text: str
    resources: tuple[str, ...] = ()
    problems: tuple[str, ...] = ()


def session_of(server: McpServer) -> ClientSession:
    connection = server.connection
    session = connection.session if connection is not None else None
    if session is None:
        raise ToolError(f"MCP server {server.name} is not connected ({server.state.status}).")
    return session


async def read_resource(server: McpServer, uri: str, *, max_chars: int = MAX_CHARS) -> str:
    """The resource's text (binary parts named, not included); ``ToolError`` when it cannot be
    read."""
    session = session_of(server)
    try:
        result = await session.read_resource(uri)
    except Exception as error:
        raise ToolError(f"{server.name}:{uri}: {first_error(error)}") from None
    parts = [
        c.text if isinstance(c, types.TextResourceContents) else f"[binary {c.mime_type or ''}]"
        for c in result.contents
    ]
    text = "\n".join(parts)
    if len(text) > max_chars:
        text = text[:max_chars] + f"\n[... {len(text) - max_chars} more characters left out]"
    return text


async def list_resources(server: McpServer) -> list[types.Resource]:
    session = session_of(server)
    try:
        return list((await session.list_resources()).resources)
    except Exception as error:
        raise ToolError(f"{server.name}: {first_error(error)}") from None


def prompts(server: McpServer) -> list[types.Prompt]:
    """The prompts the server offered when it connected."""
    connection = server.connection
    return list(connection.prompts) if connection is not None else []


async def prompt_text(server: McpServer, name: str, argument: str = "") -> str:
    """The prompt ``name`` with ``argument`` (``key=value`` words, or the whole text for its
    first argument), its messages' text joined."""
    found = {p.name: p for p in prompts(server)}.get(name)
    if found is None:
        raise ToolError(f"{server.name} has no prompt {name!r}.")
    arguments = prompt_arguments(found, argument)
    session = session_of(server)
    try:
        result = await session.get_prompt(name, arguments)
    except Exception as error:
        raise ToolError(f"{server.name} prompt {name}: {first_error(error)}") from None
    texts = [m.content.text for m in result.messages if isinstance(m.content, types.TextContent)]
    return "\n\n".join(texts)


def prompt_arguments(prompt: types.Prompt, argument: str) -> dict[str, str]:
    names = [a.name for a in prompt.arguments or []]
    words = argument.split()
    if words and all("=" in w and w.split("=", 1)[0] in names for w in words):
        pairs = dict(w.split("=", 1) for w in words)
    elif names and argument.strip():
        pairs = {names[0]: argument.strip()}
    else:
        pairs = {}
    missing = [a.name for a in prompt.arguments or [] if a.required and a.name not in pairs]
    if missing:
        raise ToolError(f"prompt {prompt.name} needs {', '.join(missing)} (name=value).")
    return pairs


async def attach_resources(
    text: str, servers: Mapping[str, McpServer], *, max_chars: int = MAX_CHARS
) -> AttachedResources:
    """See the module docstring."""
    blocks: list[str] = []
    attached: list[str] = []
    problems: list[str] = []
    for name, uri in mentions(text):
        server = servers.get(name)
        if server is None:
            continue
        try:
            body = await read_resource(server, uri, max_chars=max_chars)
        except ToolError as error:
            problems.append(f"@{name}:{uri}: {error}")
            continue
        attached.append(f"{name}:{uri}")
        blocks.append(f'<resource server="{name}" uri="{uri}">\n{body}\n</resource>')
    if not blocks:
        return AttachedResources(text=text, problems=tuple(problems))
    joined = "\n\n".join([text.rstrip(), "Attached resources (named with @):", *blocks])
    return AttachedResources(text=joined, resources=tuple(attached), problems=tuple(problems))


def mentions(text: str) -> Sequence[tuple[str, str]]:
    found = ((m.group(1), m.group(2).rstrip(TRAILING)) for m in MENTION.finditer(text))
    return list(dict.fromkeys((name, uri) for name, uri in found if uri))
