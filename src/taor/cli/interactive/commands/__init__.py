"""The local ``/`` commands of the interactive mode: what one is (``command``), the table and
how a line runs (``registry``), the commands by what they work on (``info``: ``/cost``,
``/context``; ``init``: ``/init``; ``session``: ``/clear``, ``/session``, ``/checkpoint``,
``/diff``; ``settings``: ``/model``, ``/effort``, ``/permissions``, ``/compact``), and one's
own from Markdown files (``custom``)."""

__all__: list[str] = []  # its modules are imported by name
