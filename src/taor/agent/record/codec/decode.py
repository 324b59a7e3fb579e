"""JSON objects back to records (internal to ``taor.agent.record.codec``)."""

from __future__ import annotations

import base64
import binascii
import types
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
    is_required,
    is_sequence,
    item_type,
    per_class,
    value_type,
    what,
)
from taor.errors import TaorError
from taor.llm.types import ToolCallPart


@per_class
def record_decoder(cls: Any) -> Codec:
    resolved, name = hints(cls), cls.__name__
    steps = [(f.name, _value_decoder(resolved[f.name])) for f in fields(cls)]
    required = {f.name for f in fields(cls) if is_required(f)}

    def decode_record(data: Any) -> Any:
        if type(data) is not dict:
            raise Bad(f"expected a {name} object, got {what(data)}")
        kwargs = {}
        for field_name, decode in steps:
            if field_name in data:
                try:
                    kwargs[field_name] = decode(data[field_name])
                except Bad as bad:
                    raise bad.inside(field_name) from None
        if cls is ToolCallPart:
            codec_calls.expand(data, kwargs)
        if missing := required.difference(kwargs):
            raise Bad(f"{name} is missing {', '.join(sorted(missing))}")
        try:
            return cls(**kwargs)
        except (TaorError, TypeError, ValueError) as exc:
            raise Bad(f"invalid {name}: {exc}") from None

    return decode_record


@per_class
def kind_decoder(classes: tuple[Any, ...]) -> Codec:
    """A record of one of ``classes``, chosen by its ``kind``."""
    by_kind = {c.__dataclass_fields__["kind"].default: c for c in classes}

    def decode_kind(data: Any) -> Any:
        if type(data) is not dict:
            raise Bad(f"expected an object with a kind, got {what(data)}")
        cls = by_kind.get(data.get("kind"))
        if cls is None:
            known = ", ".join(sorted(by_kind))
            raise Bad(f"unknown kind {data.get('kind')!r} (expected one of: {known})")
        return record_decoder(cls)(data)

    return decode_kind


def _value_decoder(tp: Any) -> Codec:
    if tp in SCALARS:
        return _SCALAR_DECODERS[tp]
    if tp is Any:
        return _identity
    if tp is bytes:
        return _b64decode
    if get_origin(tp) is Literal:
        return _literal_decoder(get_args(tp))
    if get_origin(tp) in (Union, types.UnionType):
        return _union_decoder(get_args(tp))
    if is_sequence(tp):
        return _list_decoder(_value_decoder(item_type(tp)), get_origin(tp) is list)
    if is_mapping(tp):
        item = value_type(tp)
        return _map_decoder(None if item is Any else _value_decoder(item))
    if is_record(tp):
        return lambda data: record_decoder(tp)(data)
    raise TypeError(f"taor.agent.record.codec: no JSON decoding for {tp!r}")


def _union_decoder(args: tuple[Any, ...]) -> Codec:
    members = tuple(a for a in args if a is not type(None))
    if all(is_record(m) and "kind" in m.__dataclass_fields__ for m in members):
        first = kind_decoder(members)
    elif len(members) == 1:
        first = _value_decoder(members[0])
    else:
        first = _first_fit([_value_decoder(m) for m in members], members)
    if len(members) == len(args):
        return first
    return lambda data: None if data is None else first(data)


def _first_fit(decoders: list[Codec], members: tuple[Any, ...]) -> Codec:
    def decode_first(data: Any) -> Any:
        for decode in decoders:
            try:
                return decode(data)
            except Bad:
                continue
        raise Bad(f"{what(data)} fits none of {', '.join(map(str, members))}")

    return decode_first


def _list_decoder(item: Codec, as_list: bool) -> Codec:
    def decode_list(data: Any) -> Any:
        if type(data) is not list:
            raise Bad(f"expected a list, got {what(data)}")
        out = []
        for i, x in enumerate(data):
            try:
                out.append(item(x))
            except Bad as bad:
                raise bad.inside(f"[{i}]") from None
        return out if as_list else tuple(out)

    return decode_list


def _map_decoder(item: Codec | None) -> Codec:
    def decode_map(data: Any) -> Any:
        if type(data) is not dict:
            raise Bad(f"expected an object, got {what(data)}")
        return data if item is None else {k: item(x) for k, x in data.items()}

    return decode_map


def _literal_decoder(allowed: tuple[Any, ...]) -> Codec:
    allowed_types = frozenset(type(a) for a in allowed)

    def decode_literal(data: Any) -> Any:
        if type(data) not in allowed_types or data not in allowed:
            raise Bad(f"{data!r} is not one of {', '.join(map(repr, allowed))}")
        return data

    return decode_literal


def _scalar_decoder(tp: type, label: str) -> Codec:
    def decode_scalar(data: Any) -> Any:
        if type(data) is tp:
            return data
        if tp is float and type(data) is int:
            return float(data)
        raise Bad(f"expected {label}, got {what(data)}")

    return decode_scalar


def _b64decode(data: Any) -> bytes:
    if type(data) is not str:
        raise Bad(f"expected base64 text, got {what(data)}")
    try:
        return base64.b64decode(data, validate=True)
    except (binascii.Error, ValueError):
        raise Bad("not valid base64 text") from None


def _identity(data: Any) -> Any:
    return data


_SCALAR_DECODERS: dict[Any, Codec] = {
    str: _scalar_decoder(str, "a string"),
    int: _scalar_decoder(int, "an integer"),
    float: _scalar_decoder(float, "a number"),
    bool: _scalar_decoder(bool, "true or false"),
    type(None): _scalar_decoder(type(None), "null"),
}
