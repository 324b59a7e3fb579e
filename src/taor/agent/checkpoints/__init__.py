"""Checkpoints: the files a session's tool calls change, saved before each user input's first
change of them, so that ``Session.rewind`` can put them back, and the conversation with them.

- ``records``: what the index holds and what a host sees (``Checkpoint``, ``FileChange``,
  ``RewindResult``); ``storage``: the object store and the index file; ``index``: the records
  folded per turn.
- ``log``: ``CheckpointLog``, the session's checkpoints as they are made; ``watch``: which
  files a call may change, and the watch around it (``loop/guarded.py`` runs each call in one);
  ``commands`` and ``picture``: what a shell command changed, from pictures of the workspace
  before and after it.
- ``rewind``: the files put back, and the conversation forked; ``diff``: every change of the
  session as one unified diff (``Session.diff``).
"""

from taor.agent.checkpoints.records import Checkpoint, FileChange, FileState, RewindResult

__all__ = ["Checkpoint", "FileChange", "FileState", "RewindResult"]
