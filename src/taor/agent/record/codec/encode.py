"""Records to JSON objects (internal to ``taor.agent.record.codec``)."""

from __future__ import annotations

import base64
import types
from collections.abc import Mapping
from typing import Any, Literal, Union, get_args, get_origin

from taor.agent.record.codec import calls as codec_calls
from taor.agent.record.codec.hints import (
    SCALARS,
    Bad,
    Codec,
    fields,
    hints,
    is_mapping,
    is_record,
    is_sequence,
    item_type,
    per_class,
    value_type,
)
from taor.llm.types import ToolCallPart


@per_class
def record_encoder(cls: Any) -> Codec:
    if not is_record(cls):
        raise Bad(f"{cls.__name__} is not a record")
    resolved = hints(cls)
    steps = [(f.name, _value_encoder(resolved[f.name]), f.default is None) for f in fields(cls)]

    def encode_record(obj: Any) -> dict[str, Any]:
        out = {}
        for name, encode, omit_none in steps:
            value = getattr(obj, name)
            if encode is None or value is None:
                if value is not None or not omit_none:
                    out[name] = value
                continue
            try:
                out[name] = encode(value)
            except Bad as bad:
                raise bad.inside(name) from None
        if cls is ToolCallPart:
            codec_calls.compact(out, obj)
        return out

    return encode_record


def _value_encoder(tp: Any) -> Codec | None:
    """How to encode a value of type ``tp``; ``None`` when it is JSON as it is."""
    if tp in SCALARS or get_origin(tp) is Literal:
        return None
    if tp is Any:
        return json_data
    if tp is bytes:
        return _b64encode
    if get_origin(tp) in (Union, types.UnionType):
        return _union_encoder(tuple(a for a in get_args(tp) if a is not type(None)))
    if is_sequence(tp):
        return _list_encoder(_value_encoder(item_type(tp)))
    if is_mapping(tp):
        item = value_type(tp)
        return json_data if item is Any else _map_encoder(_value_encoder(item))
    if is_record(tp):
        return _any_record
    raise TypeError(f"taor.agent.record.codec: no JSON encoding for {tp!r}")


def _union_encoder(members: tuple[Any, ...]) -> Codec | None:
    encoders = [_value_encoder(m) for m in members]
    if all(e is None for e in encoders):
        return None
    if len(members) == 1:
        return encoders[0]
    if all(is_record(m) for m in members):
        return _any_record
    raise TypeError(f"taor.agent.record.codec: no JSON encoding for the union {members!r}")


def _any_record(value: Any) -> Any:
    return record_encoder(type(value))(value)


def _list_encoder(item: Codec | None) -> Codec:
    def encode_list(value: Any) -> list[Any]:
        if item is None:
            return list(value)
        out = []
        for i, x in enumerate(value):
            try:
                out.append(item(x))
            except Bad as bad:
                raise bad.inside(f"[{i}]") from None
        return out

    return encode_list


def _map_encoder(item: Codec | None) -> Codec:
    def encode_map(value: Any) -> dict[str, Any]:
        return {_key(k): x if item is None or x is None else item(x) for k, x in value.items()}

    return encode_map


def json_data(value: Any) -> Any:
    """``value`` as JSON data: mappings become dicts, tuples lists; anything else is refused."""
    if type(value) in SCALARS or isinstance(value, str | int | float):
        return value
    if isinstance(value, Mapping):
        out = {}
        for k, x in value.items():
            try:
                out[_key(k)] = json_data(x)
            except Bad as bad:
                raise bad.inside(f"[{k!r}]") from None
        return out
    if isinstance(value, list | tuple):
        return _list_encoder(json_data)(value)
    raise Bad(f"{type(value).__name__} is not JSON data")


def _key(key: object) -> str:
    if not isinstance(key, str):
        raise Bad(f"key {key!r} is not a string")
    return key


def _b64encode(value: bytes) -> str:
    return base64.b64encode(value).decode("ascii")
