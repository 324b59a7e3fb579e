"""``python -m taor``: the ``taor`` command."""

from taor.cli import main

raise SystemExit(main())
