"""taor.env: the Environment protocol (files, processes, search) and its implementations.

Names are loaded on first access: a run under ``LocalEnvironment`` does not import the memory
or sandbox environments (``import taor.env.local`` still runs this module first).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from taor._lazy import exports

if TYPE_CHECKING:
    from taor.env.base import (
        Capabilities,
        CommandResult,
        DirEntry,
        EnvError,
        Environment,
        FileStat,
        GrepMatch,
        OutputCallback,
        PathNotFoundError,
        PathPolicyError,
        Spawned,
        StreamName,
        capabilities,
    )
    from taor.env.envvars import (
        EnvPolicy,
        command_environ,
        filter_environ,
        is_secret,
        is_secret_name,
    )
    from taor.env.local import LocalEnvironment
    from taor.env.memory import MemoryEnvironment
    from taor.env.memory.commands import CommandHandler, CommandScript
    from taor.env.memory.faults import Call, Fault
    from taor.env.paths import PathPolicy, resolve_lexically
    from taor.env.sandbox import SandboxEnvironment

# The imports above are the package's public names, written once: at run time each is
# imported from its module on first access (``taor._lazy``).
__getattr__, __dir__ = exports(__name__, __file__)
