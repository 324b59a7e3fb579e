"""Composing a ``Session`` from settings: its model (``model``), its environment, config,
hooks (``hooks``: shell commands from the config files) and where it is recorded
(``session``)."""

__all__: list[str] = []  # its modules are imported by name
