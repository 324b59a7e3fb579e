"""What may run and what to do when a run goes wrong: permissions, hooks, loop detection.

``permissions`` decides each tool call (mode, then ``rules``, then the host), with ``subjects``
saying what a call touches and ``shell_split`` splitting a shell command into the commands rules
are matched against; ``decisions`` are the host's answers. ``hooks`` are the host's callbacks
around prompts, tool calls, compaction and stops. ``loop_detection`` notices a model repeating
the same calls.
"""

__all__: list[str] = []  # its modules are imported by name
