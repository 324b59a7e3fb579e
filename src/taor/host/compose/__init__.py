"""Composing a ``Session`` from settings: its model (``model``), its environment, config,
hooks (``hooks``: shell commands from the config files) and where it is recorded
(``session``)."""
