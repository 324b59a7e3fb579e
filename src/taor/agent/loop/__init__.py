"""The turn loop and its steps: where one input becomes model calls and tool rounds.

``cycle.run_cycle`` reads top to bottom: ``steps.begin`` records the input; then, until the
model answers without tools or something stops the cycle, ``model_call.call_model`` (a due
compaction first, then ``stream_response`` through the retry policy, then ``record_response``)
and ``tool_round.run_round`` (each call through ``guarded``: permission, hooks, the tool, its
timeout). The rest of ``steps`` ends a cycle: the limit summary, the stop hook, loop detection,
interrupted or failed cycles. ``deadline`` stops a cycle at its wall-time limit, ``idle`` a
stalled stream; ``call_ids`` keeps tool-call ids unique; ``call_summary`` writes the one-line
summaries hosts show for tool calls.
"""
