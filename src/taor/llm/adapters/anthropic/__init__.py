"""Anthropic Messages API (``POST /v1/messages``, streamed) through taor's ``RawClient``, with
the headers the official SDK (2.x) sends: the key as ``Authorization: Bearer`` and
``anthropic-version`` (``API_VERSION``); ``anthropic-beta`` when asked (below).

Request encoding. The system prompt goes top level as text blocks (system-role messages join
it). Messages alternate strictly: consecutive messages of one role are merged, ``tool``
messages become user messages of ``tool_result`` blocks, and user text that follows tool results
joins that same user message after them (Anthropic wants the results first). Thinking blocks go
back verbatim with their signature (redacted ones as ``redacted_thinking``); thinking produced
by another provider is dropped. Each message is encoded once and its fragments are reused on
every later request.

Reasoning effort follows the catalog: ``thinking="budget"`` models get ``thinking.budget_tokens``
from ``BUDGETS`` (kept below ``max_tokens``, at least 1024), ``thinking="effort"`` models get
adaptive thinking with ``output_config.effort``, models that do not reason get nothing. With
thinking on, ``temperature`` is not sent and a forced tool choice becomes ``auto`` (Anthropic
rejects both). Thinking stays off in the middle of a tool-use loop whose assistant turn has no
thinking block (history from another provider): Anthropic rejects turning it on mid-turn.
``max_tokens`` defaults to the catalog's ``max_output``.

Prompt caching (on unless ``provider_options={"anthropic": {"auto_cache": False}}``): at most
four ``cache_control`` breakpoints: (1) the last tool definition, (2) the last system block,
(3) the last block of the newest message, which writes this turn's prefix to the cache and reads
the previous request's entry, found by Anthropic's lookback of about 20 blocks, and (4) only when
the turns since the user turn before it hold more than ``LOOKBACK_BLOCKS`` (8) blocks, the last
block of that user turn, where the previous request put breakpoint 3. Breakpoints are not part of
the cached content, but each one moved changes the body's bytes; placing (4) only when needed
keeps each body equal to the previous one, byte for byte, up to the marker of its last breakpoint.

``provider_options["anthropic"]`` is merged into the body, except taor's own keys: ``auto_cache``,
``beta_headers`` (a list, sent comma-joined as the ``anthropic-beta`` header) and ``tools`` (a
list of tool definitions sent after taor's own: this is how server tools are enabled, e.g.
``{"type": "web_search_20250305", "name": "web_search", "max_uses": 5}``).

Server tools. Anthropic runs them itself within the response: their ``server_tool_use`` blocks
and result blocks (``web_search_tool_result``, ...) arrive as ``server_tool_use`` /
``server_tool_result`` events, are kept on the assistant message as ``ServerToolPart``s in their
place among the other blocks, and go back verbatim on the next request. They are never tool
calls: nothing runs them in taor, and no permission is asked (enabling them is the host's
choice). A ``pause_turn`` stop reason (a long server-tool turn cut short) finishes as ``other``.

Modules: ``_messages`` encodes each message as JSON fragments, ``_request`` assembles the body
(options, thinking, tool choice, cache breakpoints), ``_stream`` turns the SSE events into taor
events, and ``_model`` is the ``HttpModel`` that ties them together.
"""

from taor.llm.adapters.anthropic._messages import MAX_IMAGE_MB
from taor.llm.adapters.anthropic._model import AnthropicModel
from taor.llm.adapters.anthropic._request import BUDGETS

__all__ = ["BUDGETS", "MAX_IMAGE_MB", "AnthropicModel"]
