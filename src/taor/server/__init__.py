"""taor.server: the service. Runs over HTTP and SSE for many people at once, over the same
``Session`` events and commands as the library and the command.

- ``store/``: the service's database (SQLAlchemy 2, async; SQLite by default, one schema for
  every database, upgraded in place by Alembic migrations): users and their tokens, runs and
  their events.
- ``service``: what one running service holds, opened and closed as one; ``app``: its FastAPI
  application (``auth``: bearer tokens; ``limits``: the body size; ``routes_runs``: the runs
  API, ``routes_events`` their SSE events, ``views`` what it shows of a run; ``admission``:
  the quota and the queue's size; ``schemas``: its bodies).
- ``seams``: the store, queue and fan-out as protocols; ``queue``: this process's queue.
- ``runner``: the workers that carry out runs, queued; ``carry``: how a worker carries one out
  (continued runs resumed from their transcripts); ``compose``: how a run's session is made
  (its environment, limits, permissions and transcript); ``workspaces``: its folder (empty, a
  template, a git clone, or an allowed host folder).
- ``command``: ``taor serve`` and its tokens, set by ``config_file`` (``[serve]`` of the
  person's config file, ``TAOR_SERVE_*``, flags; ``config_types`` reads each value by its
  field's type); ``doctor``: ``taor doctor``'s checks of the service.
- ``feed``: each run's events, live, to every client following it, replayed from any number;
  ``eventfile``: each event appended to its run's file before anyone is sent it (kept through
  a crash, recovered on the next start); ``writer``: the events into the database in batches.
- ``client``: the service from Python (``Client``, over httpx2: runs, commands and typed
  events); ``remote``: a run of the service as a ``SessionLike`` (``RemoteSession``).

The names below are loaded on first access: the client needs none of the server's libraries.
"""

from __future__ import annotations

from taor._lazy import exports

TYPE_CHECKING = False
if TYPE_CHECKING:
    from taor.server.client import Client as Client
    from taor.server.client_views import Pending as Pending
    from taor.server.client_views import Run as Run
    from taor.server.client_views import RunMoved as RunMoved
    from taor.server.client_views import RunPage as RunPage
    from taor.server.remote import RemoteSession as RemoteSession

# (``X as X``: a re-export, for ruff and mypy.)
__getattr__, __dir__ = exports(__name__, __file__)
