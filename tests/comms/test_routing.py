"""A comm of ours is handled on the subshell each message names, whatever it sent under before (the kernel tier,
tests/kernel/test_comm_subshells.py, checks it in a real kernel with real subshells)."""

from __future__ import annotations

import pytest
from ipykernel.comm.comm import BaseComm

from mgenv_jupyter.comms._routing import handle_where_sent


def test_a_comm_is_handled_on_the_subshell_its_message_names_not_the_one_it_last_sent_under():
    if not hasattr(BaseComm, "_reply_subshell_for"):
        pytest.skip("this ipykernel handles a comm's message where its header says (before 7.4)")
    comm = BaseComm(target_name="mgenv-test", primary=False)  # outside a kernel: nothing is sent
    comm._reply_subshell_id = "gone"  # what ipykernel 7.4 remembers when the comm sends while it handles "gone"'s
    assert comm._reply_subshell_for({}, "kept") == "gone"
    handle_where_sent(comm)
    assert comm._reply_subshell_for({}, "kept") == "kept"
    assert comm._reply_subshell_for({"content": {"id": "7"}}, None) is None  # none named: the main shell
