"""Provider profiles: per model family, the tools (with the family's native argument names over
taor's executors), the base system prompt, capability flags and request defaults.

``profile_for("anthropic:claude-sonnet-4-5")`` (or a provider name, a bare model id, a ``Model``)
gives a ``Profile``; ``profile.tools()`` builds its tools fresh, ``profile.registry(extra)`` a
``ToolRegistry`` where extra tools replace the profile's of the same name.

    ==============  =========================================================================
    profile         tools
    ==============  =========================================================================
    anthropic       read_file, write_file, edit_file, shell (120 s), grep, glob
    openai          read_file, apply_patch, write_file, shell (10 s), grep, glob
    gemini          read_file, read_many_files, write_file, edit_file, shell (10 s), grep,
                    glob, list_dir
    openai-compat   read_file, write_file, edit_file, shell (10 s), grep (short, forgiving)
    small           read_file, edit_file, write_file, shell (60 s): few arguments, and checks
                    for small models (the local model, open models up to 8B, --profile small)
    ==============  =========================================================================

The first three also want the subagent tools (``Profile.subagent_tools``), added by the session
once subagents exist. Each tool is a ``ProfiledTool`` (``taor.tools.profiled``, re-exported here
with ``ArgumentMap`` and ``workdir_prefix``) over a built-in executor, whose declared effects it
forwards.
"""

from taor.agent.profiles.anthropic import anthropic_profile
from taor.agent.profiles.base import (
    MAX_COMMAND_TIMEOUT,
    PROFILE_IDS,
    SUBAGENT_TOOLS,
    Profile,
    ProfileId,
)
from taor.agent.profiles.compat import compat_profile
from taor.agent.profiles.gemini import gemini_profile
from taor.agent.profiles.lookup import (
    SMALL_MODEL_BILLIONS,
    profile_by_id,
    profile_for,
    profile_id_for,
)
from taor.agent.profiles.openai import openai_profile
from taor.tools.profiled import ArgumentMap, ProfiledTool, Translate, workdir_prefix

__all__ = [
    "MAX_COMMAND_TIMEOUT",
    "PROFILE_IDS",
    "SMALL_MODEL_BILLIONS",
    "SUBAGENT_TOOLS",
    "ArgumentMap",
    "Profile",
    "ProfileId",
    "ProfiledTool",
    "Translate",
    "anthropic_profile",
    "compat_profile",
    "gemini_profile",
    "openai_profile",
    "profile_by_id",
    "profile_for",
    "profile_id_for",
    "workdir_prefix",
]
