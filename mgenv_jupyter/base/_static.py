"""Reading a user's object without running any of its code: its type, its classes, and what its instance stores.

`isinstance(x, T)` consults `x.__class__` when `type(x)` is not a subclass of T, so a `__class__` property runs (a lazy
proxy's, Django's `settings` before it is configured, raises); `getattr(x, "__dict__")` runs `__getattribute__`, and
`__getattr__` when the attribute is missing; `T in cls.__mro__` runs a metaclass's `__getattribute__`. What is read
here goes through the interpreter's own slot accessors instead (as `inspect.getattr_static` does), so a class can
change none of it:

- `classes(cls)` is the method resolution order as the interpreter stores it (`type.__dict__["__mro__"]`);
- `inherits(cls, base)` looks `base` up in it by identity (no `__subclasscheck__`, no `__eq__`);
- `instance_dict(x, dict_accessor(type(x)))` is the dict the instance keeps its attributes in, read through the
  `__dict__` accessor the interpreter gave its class, or None when a class replaced it with something of its own;
- `slot_values(x, slot_accessors(type(x)))` are the values of its `__slots__`, read through the interpreter's member
  descriptors.
"""

from __future__ import annotations

from collections.abc import Iterator
from types import GetSetDescriptorType, MemberDescriptorType
from typing import Any

_MRO = type.__dict__["__mro__"].__get__  # the C slot tp_mro: no metaclass is asked
_CLASS_DICT = type.__dict__["__dict__"].__get__  # a class's own namespace (a read-only view of its dict)
_MISSING = object()


def classes(cls: type) -> tuple[type, ...]:
    """`cls.__mro__`, read from the interpreter's slot."""
    found: tuple[type, ...] = _MRO(cls)
    return found


def inherits(cls: type, base: type) -> bool:
    """Whether `base` is one of `cls`'s classes (itself included), by identity."""
    return any(klass is base for klass in _MRO(cls))


def dict_accessor(cls: type) -> GetSetDescriptorType | None:
    """The interpreter's `__dict__` accessor for instances of `cls`; None when they have no dict, or when a class put
    something of its own in its place (a property: reading it would run the class's code)."""
    for klass in _MRO(cls):
        accessor = _CLASS_DICT(klass).get("__dict__", _MISSING)
        if accessor is _MISSING:
            continue
        return accessor if type(accessor) is GetSetDescriptorType else None
    return None


def instance_dict(value: Any, accessor: GetSetDescriptorType | None) -> dict[str, Any] | None:
    """The instance's own attributes as the interpreter stores them, read through `accessor` (`dict_accessor(type(
    value))`, looked up once per class by the caller); None without one."""
    if accessor is None:
        return None
    try:
        found = GetSetDescriptorType.__get__(accessor, value, type(value))
    except (TypeError, AttributeError):  # an accessor taken from an unrelated class
        return None
    return found if type(found) is dict else None


def slot_accessors(cls: type) -> tuple[MemberDescriptorType, ...]:
    """The interpreter's accessors of the `__slots__` of `cls` and its bases."""
    return tuple(accessor for klass in _MRO(cls) for accessor in _CLASS_DICT(klass).values()
                 if type(accessor) is MemberDescriptorType)


def slot_values(value: Any, accessors: tuple[MemberDescriptorType, ...]) -> Iterator[Any]:
    """The values of the instance's slots that are set (`accessors`: `slot_accessors(type(value))`)."""
    for accessor in accessors:
        try:
            yield MemberDescriptorType.__get__(accessor, value, type(value))
        except (TypeError, AttributeError):  # not set, or an accessor of another class
            continue


def hides_dict(cls: type) -> bool:
    """Whether a class of `cls` put something of its own where the interpreter's `__dict__` accessor would be (a
    property: a proxy's way of showing another object's attributes)."""
    for klass in _MRO(cls):
        accessor = _CLASS_DICT(klass).get("__dict__", _MISSING)
        if accessor is not _MISSING:
            return type(accessor) is not GetSetDescriptorType
    return False


_NAME = type.__dict__["__name__"].__get__


def type_name(cls: type) -> str:
    """`cls.__name__`, read from the interpreter's slot (a metaclass cannot change it)."""
    name: str = _NAME(cls)
    return name


_MODULE = type.__dict__["__module__"].__get__  # a class's own namespace's entry, or a built-in type's dotted name


def module_name(cls: type) -> str:
    """`cls.__module__`, read through the interpreter's slot (a descriptor stored there is not called), or "" when
    it is not text."""
    name = _MODULE(cls)
    return name if type(name) is str else ""
