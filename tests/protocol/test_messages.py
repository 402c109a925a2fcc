"""The messages each way (protocol/_messages.py): one list per direction, from which the TypeScript unions and the
front end's input guard are generated."""

from __future__ import annotations

from typing import get_args, get_type_hints

from mgenv_jupyter.comms._typescript_schema import typescript
from mgenv_jupyter.protocol import _messages as messages
from mgenv_jupyter.protocol import _sidebar as sidebar


def kind(message: type) -> str:
    (literal,) = get_args(get_type_hints(message)["type"])
    return str(literal)


def test_every_message_the_kernel_sends_has_one_type_the_front_end_knows():
    sent = [kind(m) for m in (*messages.REPLIES, *messages.NOTICES, *messages.MEMORY)]
    assert messages.message_types() == tuple(dict.fromkeys(sent))
    assert {"changed", "oom", "verify", "memory.batch", "memory.snapshot"} <= set(messages.message_types())
    assert [kind(m) for m in messages.REQUESTS] == list(sidebar.REQUEST_TYPES)


def test_the_unions_and_the_guard_are_generated_not_written_by_hand():
    written = typescript()
    assert ("export type Notice = ChangedNotice | OomNotice | VerifyNotice | ProfileOfferNotice | CellOfferNotice;"
            in written)
    assert "export type KernelMessage = Reply | Notice | MemoryMessage;" in written
    assert "export type RequestBody<R extends Request = Request> = R extends Request ? Omit<R, 'v' | 'id'> : never;" \
        in written
    assert "export const KERNEL_MESSAGE_TYPES: readonly KernelMessage['type'][] = ['catalog', 'state'," in written
    assert "export const RESTART_STATUSES: readonly StatusCode[] = ['already_read', 'may_be_latched'];" in written
