"""``taor mcp serve``: taor's agent as an MCP server, over stdio or streamable HTTP.

``command`` reads the flags and runs the server; ``app`` is the server and its one tool,
``run_task``; ``task`` composes a task's session from the person's settings (``taor.host``);
``job`` runs it in the background and queues what the waiting request is told; ``progress``
turns its events into sentence-sized progress lines; ``asking`` puts a permission request to the
client as an elicitation. The ``taor`` command reaches ``command.run`` by name; this package
imports nothing of ``taor.cli`` or ``taor.server``.
"""

__all__: list[str] = []
