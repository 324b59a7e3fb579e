"""``taor`` with no ``-p``: the interactive mode, a front end over the same ``Session`` event
stream as the headless command, built the same way (``taor.cli.setup``,
``taor.host.compose``).

- ``app``: ``Repl``, the loop: events shown by one task while the prompt reads input;
- ``prompt``, ``keys``, ``completion``, ``paste``: the input side (prompt_toolkit);
- ``events`` (with ``tool_calls``), ``live``, ``views``, ``blocks``, ``screen``: the output side
  (rich): the live area above the prompt and what is printed once finished;
- ``commands/`` (``registry``, one module per group, ``custom``: one's own from Markdown
  files): the local ``/`` commands; ``picker``: picking from a list (``/model``); ``shell``: ``!command``;
- ``permission``: permission requests asked inline; ``status``: the line under the prompt;
- ``stopping``: Ctrl-C and the signals, and the steering a stop leaves unsent;
- ``trust``: the question that trusts a folder whose own files would act for the person.

Only a run of the interactive mode imports this package (and prompt_toolkit and rich):
``taor --help`` and ``taor -p`` never do.
"""

from __future__ import annotations

from argparse import Namespace
from logging import Logger

from taor.host.settings import Settings


async def run_interactive(args: Namespace, settings: Settings, log: Logger) -> int:
    """The interactive mode until the person leaves; ``args.prompt`` is its first input."""
    from taor.cli.interactive.app import Repl
    from taor.cli.interactive.trust import settle_trust
    from taor.cli.setup import session_from

    settings = await settle_trust(args, settings)
    session, model = session_from(args, settings, interactive=True)
    return await Repl(args, settings, log, session, model).run(args.prompt or "")


__all__ = ["run_interactive"]
