"""The command's configuration: the schema of what it may hold, the layers it comes from, and
the merged ``Settings`` with the source of each value."""

from taor.cli.settings.resolve import Settings, resolve
from taor.cli.settings.schema import KEYS, Key

__all__ = ["KEYS", "Key", "Settings", "resolve"]
