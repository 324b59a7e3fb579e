"""The OpenAI Responses API (``POST {base_url}/responses``, the base URL ending in ``/v1``),
stateless: ``store=false``, streamed, through taor's ``RawClient`` with the headers the official
SDK sends: ``Authorization: Bearer``, and ``OpenAI-Organization`` / ``OpenAI-Project`` when given.

Request. The system prompt goes to ``instructions``; each message becomes input items: user text
and images (``input_text`` / ``input_image``), assistant text (``output_text`` messages, with
their ``phase``), ``function_call`` items (``call_id`` is the ``ToolCallPart.id``) and
``function_call_output`` items (a string, or a list when the result carries images). Tools are
flat function tools. Reasoning models (per the catalog) get ``reasoning`` (effort, summaries)
and ``include: ["reasoning.encrypted_content"]``; other models reject both, and reasoning models
reject ``temperature``, so each is sent only where it is accepted. The Responses API has no stop
sequences: ``Request.stop`` is ignored.

Opaque state. A reasoning item is kept whole as ``provider_state["openai"]`` of its
``ThinkingPart`` and sent back as ``{"type": "reasoning", "summary", "encrypted_content"}``.
Item ids (``rs_``, ``msg_``, ``fc_``) are never sent back, as Codex does: with ``store=false``
they name nothing on the server, and sending some ids but not others trips the API's pairing
checks ("provided without its required reasoning item"). Thinking from other providers, and
reasoning items without encrypted content, are dropped.

Stream. The part index is the item's ``output_index``. ``response.completed`` / ``incomplete``
give usage and the finish reason; ``error`` events and ``response.failed`` raise.

Modules: ``_request`` encodes the body's pieces (parameters, tools, input items), ``_stream``
handles each stream event type, and ``_model`` is the ``HttpModel`` that ties them together.
"""

from taor.llm.adapters.openai._model import OpenAIModel

__all__ = ["OpenAIModel"]
