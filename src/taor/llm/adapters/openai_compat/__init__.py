"""Chat Completions for OpenAI-compatible servers: Ollama, vLLM, llama.cpp, LM Studio,
OpenRouter, DeepSeek, Gemini's OpenAI endpoint, ... (``POST {base_url}/chat/completions``).

What is sent, since servers differ and many reject what they do not know:

- ``max_tokens`` when the request sets it, or the catalog's ``max_output`` when the catalog
  lists the model under ``openai-compat``; otherwise nothing, and the server's own default
  applies (local servers reject values beyond their limits).
- ``tool_choice`` only for none, required and named: "auto" is the default whenever tools are
  sent, and vLLM refuses an explicit "auto" unless started with ``--enable-auto-tool-choice``.
- ``reasoning_effort`` only when the request sets it.
- ``stream_options: {"include_usage": true}``. Every key of ``provider_options["openai-compat"]``
  is merged into the body, ``None`` deleting one: ``{"stream_options": None}`` for a server that
  rejects it, ``{"max_tokens": None, "max_completion_tokens": 8192}`` for OpenAI's o-series.
- Thinking is never sent back (Chat Completions has no field for it). Tool results become ``tool``
  messages in call order, error results prefixed with "Error: "; their images follow in one
  ``user`` message, as most servers take only text in the tool role.
- Opaque state: a tool call's ``extra_content`` (Gemini puts its thought signature there) is kept
  in ``provider_state["openai-compat"]`` and sent back verbatim.

The stream parser accepts the dialects seen in practice: tool calls streamed in fragments or
whole, ids repeated on every chunk or missing (then ``call_<random>`` is made up), ``index``
missing (the position in the list is used) or reused for a new call, ``reasoning_content`` or
``reasoning`` deltas (thinking), usage in its own chunk, in the finish chunk or absent (zeros),
``[DONE]`` without a finish reason (taken as stop), and ``{"error": ...}`` chunks (raised).

Modules: ``_request`` encodes the body's pieces (head fields, tools, messages), ``_stream``
parses the chunks, and ``_model`` is the ``HttpModel`` that ties them together.
"""

from taor.llm.adapters.openai_compat._model import OpenAICompatModel
from taor.llm.adapters.openai_compat._request import PROVIDER

__all__ = ["PROVIDER", "OpenAICompatModel"]
