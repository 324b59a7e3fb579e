"""taor.env: the Environment protocol (files, processes, search) and its implementations."""

from taor.env.base import (
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
)
from taor.env.envvars import EnvPolicy, command_environ, filter_environ, is_secret_name
from taor.env.local import LocalEnvironment
from taor.env.paths import PathPolicy, resolve_lexically

__all__ = [
    "CommandResult",
    "DirEntry",
    "EnvError",
    "EnvPolicy",
    "Environment",
    "FileStat",
    "GrepMatch",
    "LocalEnvironment",
    "OutputCallback",
    "PathNotFoundError",
    "PathPolicy",
    "PathPolicyError",
    "StreamName",
    "command_environ",
    "filter_environ",
    "is_secret_name",
    "resolve_lexically",
]
