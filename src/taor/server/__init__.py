"""taor.server: the service. Runs over HTTP and SSE for many people at once, over the same
``Session`` events and commands as the library and the command.

- ``store/``: the service's database (SQLAlchemy 2, async; SQLite by default, one schema for
  every database, upgraded in place by Alembic migrations): users and their tokens, runs and
  their events.
- ``service``: what one running service holds, opened and closed as one; ``app``: its FastAPI
  application (``auth``: bearer tokens; ``limits``: the body size; ``routes_runs``: the runs
  API and their SSE events; ``schemas``: its bodies).
- ``runner``: the workers that carry out runs, queued; ``compose``: how a run's session is
  made (its workspace, environment, limits, permissions and transcript).
- ``command``: ``taor serve`` and its tokens, set by ``config_file`` (``[serve]`` of the
  person's config file, ``TAOR_SERVE_*``, flags; ``config_types`` reads each value by its
  field's type); ``doctor``: ``taor doctor``'s checks of the service.
- ``feed``: each run's events, live, to every client following it, replayed from any number;
  ``writer``: the events onto disk in batches, off the runs' path.
"""
