"""MCP servers as tool sources (the official ``mcp`` SDK, the ``mcp`` extra).

- ``config``: ``McpServerConfig`` (a stdio command or a streamable HTTP URL, ``${VAR}`` filled at
  start, secrets redacted for display) and the common ``{"mcpServers": ...}`` JSON shape;
- ``transport``: a stdio server spawned through the session's ``Environment``, or HTTP;
- ``connection``: one live connection in a task of its own;
- ``server``: ``McpServer``, one server as a supervised ``ToolSource`` (timeouts, restarts,
  status reports, error results for calls its death cut short);
- ``servers``: ``McpServers``, a session's servers started concurrently as one source;
- ``tool`` and ``results``: a server's tool as ``mcp__SERVER__TOOL`` with effects from its hints,
  and its results as tool output parts.

Import from the modules: ``config`` reads settings without the SDK, which the other modules
import; ``import taor`` imports none of them.
"""

__all__: list[str] = []
