"""The turn loop and its steps: where one input becomes model calls and tool rounds.

``cycle.run_cycle`` reads top to bottom: ``steps.begin`` records the input; then, until the
model answers without tools or something stops the cycle, ``model_call.call_model`` (a due
compaction first, then the stream step, ``stream``: the request through the retry policy and
the idle watchdog (``taor.llm.idle``), asked again differently when the server cannot parse the
model's tool call; then ``record_response``) and ``tool_round.run_round`` (each call through
``guarded``: permission, hooks, the tool, its timeout). The rest of ``steps`` ends a cycle: the
limit summary, the stop hook, loop detection, interrupted or failed cycles.
``compact_step`` compacts when due or asked (also between cycles, for the driver);
``deadline`` stops a cycle at its wall-time limit; ``parking`` records the permission waits a
closed session leaves; ``call_summary`` writes the one-line summaries hosts show for tool
calls. Tool-call ids are kept unique where turns are recorded (``record.call_ids``).

The cycle holds the ``Runtime``; each step takes only the parts it reads and writes, one by one
or as one of the views of ``taor.agent.parts``.
"""

__all__: list[str] = []  # its modules are imported by name
