"""``python -m taor.mcp_server [--http ...]``: the server, as ``taor mcp serve`` runs it."""

import sys

from taor.mcp_server.command import run

sys.exit(run(sys.argv[1:]))
