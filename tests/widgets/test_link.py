"""How a displayed widget follows the kernel (widgets/_link.py): the link holds its widget weakly."""

from __future__ import annotations

import gc

from mgenv_jupyter.widgets._link import SessionLink


def test_the_session_link_does_not_keep_its_widget_alive(fresh_session):
    class Owner:
        calls = 0

        def changed(self, report) -> None:
            self.calls += 1

        def cell(self) -> None:
            pass

    owner = Owner()
    link = SessionLink(fresh_session, owner.changed, owner.cell)
    fresh_session.set({"MGE_DEFAULT_DEVICE": "cpu0"})
    assert owner.calls == 1
    del owner
    gc.collect()
    fresh_session.set({"MGE_DEFAULT_DEVICE": "cpu1"})  # the dead owner's link removes itself
    assert link.closed and link not in fresh_session._observers
