"""taor.tools: the Tool protocol, registry, truncation and the built-in tools."""
