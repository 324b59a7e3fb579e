"""Gemini API (``POST {base_url}/v1beta/models/{model}:streamGenerateContent?alt=sse``),
through taor's ``RawClient``: the key in an ``x-goog-api-key`` header (never a ``key`` query
parameter), the API version after the base URL's own path, as ``google-genai`` sends them; taor
encodes the body and parses the SSE stream itself, with an idle timeout per read and no retries
of its own. Error bodies are read as ``google-genai`` reads them (``_errors``).

Request encoding. ``systemInstruction`` holds the system prompt and system-role messages;
``contents`` alternate ``user`` / ``model`` (consecutive same-role contents are merged, tool
results are ``functionResponse`` parts of a user content, paired with their call by ``id`` and
named after it). Gemini thought signatures (``provider_state["gemini"]["thought_signature"]``)
go back verbatim on the part they came with; thinking of other providers is dropped, and a model
turn whose calls carry no Gemini signature (history from another provider) gets Gemini's
documented placeholder on its first call, which Gemini 3 requires. Tools are sent with
``parametersJsonSchema`` (full JSON Schema). Reasoning effort follows the catalog:
``thinking="level"`` models get ``thinkingLevel``, ``"budget"`` models ``thinkingBudget`` from
``BUDGETS`` clamped to the model's range; both stream thought summaries (``includeThoughts``).
``provider_options["gemini"]`` is merged into the body (one level deep for objects; its
``tools`` are appended).

Responses. Gemini gives no tool call ids: taor names them ``call_<responseId>_<index>``.
Usage is normalized: ``candidatesTokenCount`` excludes thoughts, so output = candidates +
thoughts. A 429's ``RetryInfo.retryDelay`` counts as a Retry-After; a 429 whose ``QuotaFailure``
is a per-day quota is a ``QuotaExhaustedError``.

Modules: ``_messages`` encodes each message as JSON part fragments, ``_request`` the other
body fields (tool config, generation and thinking config, tools), ``_stream`` turns the chunks
into taor events, ``_errors`` classifies Gemini error bodies, and ``_model`` is the
``HttpModel`` that ties them together.
"""

from taor.llm.adapters.gemini._errors import api_error
from taor.llm.adapters.gemini._messages import FOREIGN_SIGNATURE
from taor.llm.adapters.gemini._model import GeminiModel
from taor.llm.adapters.gemini._request import BUDGETS, LEVELS

__all__ = ["BUDGETS", "FOREIGN_SIGNATURE", "LEVELS", "GeminiModel", "api_error"]
