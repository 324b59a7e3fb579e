"""``taor sessions``: the command (``command``), its table (``table``) and one session shown
readably (``show``). Where the sessions are and what is in them is ``taor.host.sessions``."""

__all__: list[str] = []  # its modules are imported by name
