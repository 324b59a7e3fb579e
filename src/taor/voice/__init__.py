"""Voice input: ``taor voice serve`` (a speech-to-text MCP server: ``server``, ``engine``,
``sources``) and the controller that ``/voice`` drives (``controller``, ``client``). Import from
the modules; the engine needs the ``voice`` extra."""

__all__: list[str] = []
