"""The service's web page: the list of runs with a form that starts one, and a run's live view.

The pages are server-rendered HTML (Jinja2) that hold no data: a small amount of plain
JavaScript (ES modules under ``/static``, no build step, nothing third-party) asks the API for
everything with the token the person entered once, kept in the browser and sent as
``Authorization: Bearer``, never in a URL. A run's events are read from its SSE endpoint with
``fetch`` (``EventSource`` cannot send the header), resumed after the last number shown.

``mount_web(app)`` adds the pages and their static files to the service's app; it must come
before the runs API, since a browser's ``GET /runs/{id}`` asking for HTML is the page and any
other request to that path is the API.
"""

from __future__ import annotations

from taor.server.web.routes import mount_web

__all__ = ["mount_web"]
