"""The provider adapters, a sub-package each (``taor.llm.connect`` picks one), over the
shared HTTP client (``_client``, ``_wire``, ``_http``, ``_tls``) and the error mapping
(``_error_map``): every name here is internal."""

__all__: list[str] = []  # its modules are imported by name
