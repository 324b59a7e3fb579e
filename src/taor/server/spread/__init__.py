"""The service across machines: runs, their events and their commands on Redis Streams, the
runs' rows in a shared database (PostgreSQL), the workspaces and transcripts on a folder every
machine mounts.

- ``streams``: the keys, and a client that reconnects with back-off for as long as it takes;
- ``fanout``: ``StreamFeeds``, the ``Fanout`` seam on each run's event stream (any API
  process follows any run from a ``Last-Event-ID``);
- ``manager``: ``SpreadManager``, what an API process does with a run: queue it on the
  ``runs`` stream, send its commands to its command stream;
- ``worker``: ``Worker``, a ``taor worker`` process: takes runs with a consumer group, carries
  them out, heartbeats, and takes over a dead worker's runs;
- ``command``: ``taor worker`` and ``taor workers``.
"""

__all__: list[str] = []
