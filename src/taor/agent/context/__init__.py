"""What the model sees and what it costs: the system prompt, token and usage ledgers, compaction.

``prompt`` builds the system prompt (profile text, environment facts, project instructions) and
keeps it byte-stable for prompt caching; ``ledger`` estimates tokens (calibrated on what the
provider reports) and adds up usage and cost; ``compaction`` shrinks what is sent when the window
fills (when a session compacts and what its host sees is a step of the loop:
``taor.agent.loop.compact_step``); ``metered`` counts the model calls compaction makes.
"""

__all__: list[str] = []  # its modules are imported by name
