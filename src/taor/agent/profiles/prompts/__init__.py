"""The base system prompts of the profiles, one module each."""

__all__: list[str] = []  # its modules are imported by name
