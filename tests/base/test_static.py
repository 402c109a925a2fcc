"""Reading an object without running its code (mgenv_jupyter/base/_static.py), on objects that would run code the moment
anything else looked: a metaclass whose attribute look-ups raise, a `__class__` property, `__getattribute__` and
`__getattr__`, a class that hides its `__dict__` behind a property, `__slots__`."""

from __future__ import annotations

import pytest

from mgenv_jupyter.base._static import (
    classes,
    dict_accessor,
    hides_dict,
    inherits,
    instance_dict,
    slot_accessors,
    slot_values,
    type_name,
)

ran: list[str] = []


class Loud(type):
    def __getattribute__(cls, name):
        ran.append(f"metaclass {name}")
        return super().__getattribute__(name)

    def __subclasscheck__(cls, other):
        ran.append("__subclasscheck__")
        return True


class Base:
    pass


class Proxy(Base, metaclass=Loud):
    def __init__(self) -> None:
        object.__setattr__(self, "wrapped", [1, 2, 3])

    @property  # type: ignore[misc]
    def __class__(self):  # noqa: PLE0237
        ran.append("__class__")
        raise RuntimeError("the factory failed")

    def __getattribute__(self, name):
        ran.append(f"__getattribute__ {name}")
        raise RuntimeError("no attribute for anyone")

    def __getattr__(self, name):
        ran.append(f"__getattr__ {name}")
        raise RuntimeError("no attribute for anyone")


class Hidden:
    @property
    def __dict__(self):  # noqa: PLE0237
        ran.append("__dict__")
        return {"shown": "a proxy's view of another object"}


class Slotted:
    __slots__ = ("weights", "empty")

    def __getattr__(self, name):
        ran.append(f"slots __getattr__ {name}")
        raise AttributeError(name)


def test_classes_and_inheritance_are_read_from_the_interpreters_slots():
    ran.clear()
    proxy = Proxy()
    assert classes(type(proxy)) == (Proxy, Base, object)
    assert inherits(type(proxy), Base) and not inherits(type(proxy), dict)
    assert type_name(type(proxy)) == "Proxy"
    assert ran == []
    with pytest.raises(RuntimeError):  # what isinstance does instead: it asks the object for its __class__
        isinstance(proxy, dict)
    assert ran == ["__getattribute__ __class__"]


def test_an_instances_attributes_are_read_as_stored_and_a_hidden_dict_is_not_read():
    ran.clear()
    proxy = Proxy()
    assert instance_dict(proxy, dict_accessor(type(proxy))) == {"wrapped": [1, 2, 3]}
    assert hides_dict(Hidden) and dict_accessor(Hidden) is None
    assert not hides_dict(Proxy)
    assert instance_dict(Hidden(), dict_accessor(Hidden)) is None
    assert ran == []


def test_slots_are_read_through_their_member_descriptors_and_unset_ones_are_left_out():
    ran.clear()
    slotted = Slotted()
    slotted.weights = "set"
    assert dict_accessor(Slotted) is None
    assert list(slot_values(slotted, slot_accessors(Slotted))) == ["set"]
    assert ran == []


def test_an_accessor_of_an_unrelated_class_reads_nothing():
    class Other:
        pass

    accessor = dict_accessor(Other)
    assert accessor is not None
    assert instance_dict(Slotted(), accessor) is None
