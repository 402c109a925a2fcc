"""Where the kernel handles a front end's message to one of our comms: on the subshell the message itself names.

JupyterLab 4.4+ and Notebook 7 send a comm's messages on a kernel subshell (one per comm target by default), which
each page creates for itself and deletes when its last comm of that target goes. ipykernel 7.4 does not handle a
`comm_msg` on the subshell its header names, though: it asks the comm (`_reply_subshell_for`), whose answer is the
subshell of the request under which the comm last sent anything, so that a front end's reply reaches a kernel loop
waiting for it. Our comms send in answer to a page's request (under that page's subshell) and from the sampler's
thread (under whatever message the kernel handled last, from any page: ipykernel's fallback for threads of ours).
Once the page behind that subshell deleted it, every message to the comm was dropped ("Cannot handle comm_msg …:
Unknown subshell_id" in the server's log): a reloaded chart's hello went unanswered and the chart showed no history
(8 of 30 reloads in JupyterLab 4.6, 4 of 10 in Notebook 7), and the sidebar's requests were lost the same way.

Nothing of ours in the kernel waits for a front end's reply, so each message is handled where its sender asked: on a
subshell that sender keeps, or on the main shell when it names none. ipykernel before 7.4 never asks, and the
attribute is ignored there.
"""
from __future__ import annotations

from typing import Any


def _subshell_named(data: Any, header_subshell_id: str | None) -> str | None:
    return header_subshell_id


def handle_where_sent(comm: Any) -> None:
    """Have the kernel handle each message to `comm` on the subshell the message's header names."""
    comm._reply_subshell_for = _subshell_named
