"""taor's configuration, for every front end: the schema of what it may hold, the layers it
comes from, and the merged ``Settings`` with the source of each value (``project``: those of
a run in a folder)."""

from taor.host.settings.resolve import Settings, resolve
from taor.host.settings.schema import KEYS, Key

__all__ = ["KEYS", "Key", "Settings", "resolve"]
