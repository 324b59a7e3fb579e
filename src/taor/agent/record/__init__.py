"""What a session remembers: turns, the transcript, and the transcript on disk.

``turns`` are the records (user input, assistant replies, tool results, steering, notices);
``transcript`` holds them, derives the messages sent to the model, checks them (no call without
its result, no duplicate ids) and repairs what a crash left; ``codec/`` (with ``encode``,
``decode``, ``calls`` and ``hints``) turns turns and events into JSON and back;
``store`` writes a JSONL transcript as the session runs and ``store_load`` reads one;
``persist`` starts a recorded session and reopens one; ``parking`` reads the permission waits
a session records, so that one closed while it waits resumes waiting.
"""

__all__: list[str] = []  # its modules are imported by name
