"""taor.env: the Environment protocol (files, processes, search) and its implementations.

Names are loaded on first access: a run under ``LocalEnvironment`` does not import the memory
or sandbox environments (``import taor.env.local`` still runs this module first).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from taor._lazy import exports

if TYPE_CHECKING:
    # Each ``name as name``: re-exported, for type checkers (ruff would split the groups).
    # isort: off
    from taor.env.base import (
        Capabilities as Capabilities,
        CommandResult as CommandResult,
        DirEntry as DirEntry,
        EnvError as EnvError,
        Environment as Environment,
        FileStat as FileStat,
        GrepMatch as GrepMatch,
        OutputCallback as OutputCallback,
        PathNotFoundError as PathNotFoundError,
        PathPolicyError as PathPolicyError,
        Spawned as Spawned,
        StreamName as StreamName,
        capabilities as capabilities,
    )
    from taor.env.envvars import (
        EnvPolicy as EnvPolicy,
        command_environ as command_environ,
        filter_environ as filter_environ,
        is_secret as is_secret,
        is_secret_name as is_secret_name,
    )
    from taor.env.local import LocalEnvironment as LocalEnvironment
    from taor.env.memory import MemoryEnvironment as MemoryEnvironment
    from taor.env.memory.commands import (
        CommandHandler as CommandHandler,
        CommandScript as CommandScript,
    )
    from taor.env.memory.faults import Call as Call, Fault as Fault
    from taor.env.paths import PathPolicy as PathPolicy, resolve_lexically as resolve_lexically
    from taor.env.sandbox import SandboxEnvironment as SandboxEnvironment
    # isort: on

# The imports above are the package's public names, written once: at run time each is
# imported from its module on first access (``taor._lazy``).
__getattr__, __dir__ = exports(__name__, __file__)
