"""The pprof profile format (github.com/google/pprof, proto/profile.proto), read with Google's protobuf runtime: JAX's
device memory profile is one (`jax.profiler.device_memory_profile()`, gzipped).

No pprof package for Python is kept up to date, and the runtime needs no generated code: the messages are declared
here from profile.proto (only the fields read; protobuf skips the others), and protobuf's own parser reads the bytes.
`protobuf` is imported when a profile is first read, never at `%load_ext`.
"""

from __future__ import annotations

import gzip
from collections.abc import Iterator
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

_PACKAGE = "mgenv_jupyter.pprof"

# (message, [(field, number, kind, repeated, message type)]) as profile.proto numbers them.
_MESSAGES: tuple[tuple[str, tuple[tuple[str, int, str, bool, str | None], ...]], ...] = (
    ("ValueType", (("type", 1, "int64", False, None), ("unit", 2, "int64", False, None))),
    ("Label", (("key", 1, "int64", False, None), ("str", 2, "int64", False, None), ("num", 3, "int64", False, None))),
    ("Sample", (("location_id", 1, "uint64", True, None), ("value", 2, "int64", True, None),
                ("label", 3, "message", True, "Label"))),
    ("Line", (("function_id", 1, "uint64", False, None), ("line", 2, "int64", False, None))),
    ("Location", (("id", 1, "uint64", False, None), ("line", 4, "message", True, "Line"))),
    ("Function", (("id", 1, "uint64", False, None), ("name", 2, "int64", False, None),
                  ("filename", 4, "int64", False, None))),
    ("Profile", (("sample_type", 1, "message", True, "ValueType"), ("sample", 2, "message", True, "Sample"),
                 ("location", 4, "message", True, "Location"), ("function", 5, "message", True, "Function"),
                 ("string_table", 6, "string", True, None))),
)


@lru_cache(maxsize=1)
def _profile_class() -> Any:
    from google.protobuf import descriptor_pb2, descriptor_pool, message_factory

    field = descriptor_pb2.FieldDescriptorProto
    kinds = {"int64": field.TYPE_INT64, "uint64": field.TYPE_UINT64, "string": field.TYPE_STRING,
             "message": field.TYPE_MESSAGE}
    file = descriptor_pb2.FileDescriptorProto(name="mgenv_jupyter_pprof.proto", package=_PACKAGE, syntax="proto3")
    for name, fields in _MESSAGES:
        message = file.message_type.add(name=name)
        for field_name, number, kind, repeated, type_name in fields:
            declared = message.field.add(name=field_name, number=number, type=kinds[kind],
                                         label=field.LABEL_REPEATED if repeated else field.LABEL_OPTIONAL)
            if type_name is not None:
                declared.type_name = f".{_PACKAGE}.{type_name}"
    pool = descriptor_pool.DescriptorPool()
    pool.Add(file)
    return message_factory.GetMessageClass(pool.FindMessageTypeByName(f"{_PACKAGE}.Profile"))


@dataclass(frozen=True)
class Sample:
    """One sample: its values by sample type ("space" → bytes), its labels (string ones as text, numeric ones as
    numbers), and its stack as (file name, line, function), innermost first."""

    values: dict[str, int]
    labels: dict[str, str | int]
    stack: tuple[tuple[str, int, str], ...]


def samples(data: bytes) -> Iterator[Sample]:
    """The samples of a pprof profile (gzipped or not)."""
    if data[:2] == b"\x1f\x8b":
        data = gzip.decompress(data)
    profile = _profile_class()()
    profile.ParseFromString(data)
    strings = list(profile.string_table)

    def text(index: int) -> str:
        return strings[index] if 0 <= index < len(strings) else ""

    functions = {f.id: (text(f.filename), text(f.name)) for f in profile.function}
    locations = {}
    for location in profile.location:
        # A location's lines are innermost first already (inlined calls): keep the order.
        locations[location.id] = tuple(
            (functions.get(line.function_id, ("", ""))[0], int(line.line), functions.get(line.function_id, ("", ""))[1])
            for line in location.line)
    kinds = [text(t.type) for t in profile.sample_type]
    for sample in profile.sample:
        values = {kind: int(value) for kind, value in zip(kinds, sample.value, strict=False)}
        labels: dict[str, str | int] = {text(label.key): (text(label.str) if label.str else int(label.num))
                                        for label in sample.label}
        stack = tuple(frame for location_id in sample.location_id for frame in locations.get(location_id, ()))
        yield Sample(values, labels, stack)
