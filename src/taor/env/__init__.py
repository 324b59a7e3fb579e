"""taor.env: the Environment protocol (files, processes, search) and its implementations."""

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
    StreamName,
    capabilities,
)
from taor.env.envvars import EnvPolicy, command_environ, filter_environ, is_secret, is_secret_name
from taor.env.local import LocalEnvironment
from taor.env.memory import MemoryEnvironment
from taor.env.memory_commands import CommandHandler, CommandScript
from taor.env.memory_faults import Call, Fault
from taor.env.paths import PathPolicy, resolve_lexically
from taor.env.sandbox import SandboxEnvironment

__all__ = [
    "Call",
    "Capabilities",
    "CommandHandler",
    "CommandResult",
    "CommandScript",
    "DirEntry",
    "EnvError",
    "EnvPolicy",
    "Environment",
    "Fault",
    "FileStat",
    "GrepMatch",
    "LocalEnvironment",
    "MemoryEnvironment",
    "OutputCallback",
    "PathNotFoundError",
    "PathPolicy",
    "PathPolicyError",
    "SandboxEnvironment",
    "StreamName",
    "capabilities",
    "command_environ",
    "filter_environ",
    "is_secret",
    "is_secret_name",
    "resolve_lexically",
]
