"""GPU-aware culling's events: the schema registers with jupyter_events' own logger (the server's event bus), a
CullEvent as the culler sends it validates, and one missing a field or with an unknown action is refused."""

from __future__ import annotations

import io
import json
import logging

import pytest
from jsonschema.exceptions import ValidationError
from jupyter_events import EventLogger

from mgenv_jupyter.protocol._culling import CULLING_EVENTS, CullEvent, event_schema

EVENT = CullEvent(action="notice", kernel_id="k", notebooks=["train/big.ipynb"], held_bytes=30 * 2**30,
                  idle_seconds=3600.5, cull_at="2026-12-02T03:00:00+00:00", idle_after=3600.0)


def logger() -> tuple[EventLogger, io.StringIO]:
    """jupyter_events' logger with one handler (as the server's has when anything listens): events are validated."""
    written = io.StringIO()
    events = EventLogger(handlers=[logging.StreamHandler(written)])
    events.register_event_schema(event_schema())
    return events, written


def test_a_cull_event_validates_against_the_registered_schema():
    events, written = logger()
    assert events.emit(schema_id=CULLING_EVENTS, data=dict(EVENT)) is not None
    assert json.loads(written.getvalue())["held_bytes"] == 30 * 2**30


@pytest.mark.parametrize("broken", [{"action": "evicted"}, {"held_bytes": "30 GiB"}, {"notebooks": "a.ipynb"}])
def test_an_event_the_schema_does_not_describe_is_refused(broken):
    events, _ = logger()
    with pytest.raises(ValidationError):
        events.emit(schema_id=CULLING_EVENTS, data={**EVENT, **broken})


def test_every_field_is_required():
    assert sorted(event_schema()["required"]) == sorted(CullEvent.__annotations__)  # type: ignore[call-overload]
