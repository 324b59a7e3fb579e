"""``frozen`` behaves as ``dataclass(frozen=True, kw_only=True, slots=True)`` does: each check
runs on a pair of the same class made both ways and expects the same outcome."""

from __future__ import annotations

import copy
import dataclasses
import pickle
from dataclasses import field
from typing import Any, ClassVar

import pytest

from taor._records import frozen

standard = dataclasses.dataclass(frozen=True, kw_only=True, slots=True)


def both(make: Any) -> list[Any]:
    """The class ``make(decorator)`` builds, made by the standard decorator and by ``frozen``."""
    return [make(standard), make(frozen)]


def shapes(decorate: Any, prefix: str) -> tuple[Any, Any]:
    """A base and a child class, named ``prefix + Base`` and ``prefix + Child`` in this module
    (so that pickle finds them)."""

    class Base:
        kind: ClassVar[str] = "base"
        name: str
        size: int = 3
        tags: tuple[str, ...] = ()
        secret: str = field(default="", repr=False, compare=False)
        derived: int = field(init=False, default=0)

    Base.__qualname__ = Base.__name__ = prefix + "Base"
    Base = decorate(Base)

    class Child(Base):  # type: ignore[valid-type,misc]
        notes: list[str] = field(default_factory=list)
        extra: dict[str, int] = field(default_factory=dict)

    Child.__qualname__ = Child.__name__ = prefix + "Child"
    Child = decorate(Child)
    globals().update({Base.__name__: Base, Child.__name__: Child})
    return Base, Child


pairs = [shapes(standard, "Standard"), shapes(frozen, "Record")]


@pytest.mark.parametrize("classes", pairs, ids=["dataclass", "frozen"])
def test_fields_defaults_and_factories(classes: Any) -> None:
    base, child = classes
    one = child(name="a")
    assert [f.name for f in dataclasses.fields(one)] == [
        "name",
        "size",
        "tags",
        "secret",
        "derived",
        "notes",
        "extra",
    ]
    assert (one.size, one.tags, one.notes, one.derived, one.extra) == (3, (), [], 0, {})
    assert child(name="b").notes is not one.notes  # a fresh list each time
    assert not hasattr(one, "__dict__") and base.kind == "base"


def test_the_same_repr_equality_hash_and_errors() -> None:
    made = [(b(name="x", secret="s"), c(name="x", extra={"a": 1})) for b, c in pairs]
    (sb, sc), (rb, rc) = made
    assert repr(sb).replace("Standard", "") == repr(rb).replace("Record", "")
    assert repr(sc).replace("Standard", "") == repr(rc).replace("Record", "")
    assert "secret" not in repr(rb)
    for base, child in pairs:
        assert base(name="x", secret="one") == base(name="x", secret="two")  # not compared
        assert base(name="x") != base(name="y")
        assert base(name="x").__eq__(child(name="x")) is NotImplemented
        assert hash(base(name="x", tags=("a",))) == hash(base(name="x", tags=("a",)))
        with pytest.raises(TypeError, match="unhashable"):
            hash(child(name="x"))  # a list field, as the standard one says
        with pytest.raises(dataclasses.FrozenInstanceError):
            base(name="x").size = 4  # type: ignore[misc]
        with pytest.raises(dataclasses.FrozenInstanceError):
            del base(name="x").size  # type: ignore[misc]
        with pytest.raises(TypeError, match="positional"):
            base("x")
        with pytest.raises(TypeError, match="name"):
            base()
        with pytest.raises(TypeError, match="derived"):
            base(name="x", derived=1)


@pytest.mark.parametrize("classes", pairs, ids=["dataclass", "frozen"])
def test_replace_asdict_pickle_and_copies(classes: Any) -> None:
    _, child = classes
    one = child(name="x", notes=["n"], extra={"k": 2})
    assert dataclasses.replace(one, size=9).size == 9
    assert dataclasses.asdict(one)["extra"] == {"k": 2}
    for again in (pickle.loads(pickle.dumps(one)), copy.copy(one), copy.deepcopy(one)):
        assert again == one and again.secret == one.secret


def test_post_init_runs_and_own_methods_are_kept() -> None:
    def make(decorate: Any) -> Any:
        @decorate
        class Checked:
            value: int = 0

            def __post_init__(self) -> None:
                if self.value < 0:
                    raise ValueError("negative")

            def __repr__(self) -> str:
                return "mine"

            def __hash__(self) -> int:
                return 7

        return Checked

    for cls in both(make):
        assert repr(cls()) == "mine" and hash(cls(value=2)) == 7
        with pytest.raises(ValueError, match="negative"):
            cls(value=-1)


def test_a_class_with_no_fields() -> None:
    def make(decorate: Any) -> Any:
        @decorate
        class Empty:
            pass

        return Empty

    for cls in both(make):
        assert cls() == cls() and hash(cls()) == hash(cls()) and repr(cls()).endswith("Empty()")
