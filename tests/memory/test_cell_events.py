"""The one follower of a real IPython shell's cells (mgenv_jupyter/memory/_cell_events.py): registered with IPython
once however many follow, and not at all when none does or after `%unload_ext`; subscribers told in `Order`, not in
the order they came; and the one meaning of the running cell: a user's cell is told with its number, id, code, times
and error, while a silent request, an empty one (the culling notice's "Keep the kernel") and a run inside a cell
(`%rerun`) are no cell of their own."""

from __future__ import annotations

import sys
from typing import Any

import pytest

from mgenv_jupyter.memory._cell_events import Cell, CellFollower, Order, cell_follower, made_follower, running_cell


def ours(shell: Any) -> int:
    """How many of our callbacks the shell's events hold."""
    return sum(isinstance(getattr(callback, "__self__", None), CellFollower)
               for event in ("pre_run_cell", "post_run_cell") for callback in shell.events.callbacks[event])


class Heard:
    """What one subscriber heard, as (name, moment, cell)."""

    def __init__(self, follower: CellFollower) -> None:
        self.follower = follower
        self.heard: list[tuple[str, str, Cell]] = []
        self.subscriptions: list[Any] = []

    def subscribe(self, name: str, order: Order) -> None:
        self.subscriptions.append(self.follower.subscribe(
            order, started=lambda cell: self.heard.append((name, "started", cell)),
            ended=lambda cell: self.heard.append((name, "ended", cell))))

    def close(self) -> None:
        for subscription in self.subscriptions:
            subscription.close()

    def ended(self) -> list[Cell]:
        return [cell for _, moment, cell in self.heard if moment == "ended"]


@pytest.fixture
def heard(ip):
    heard = Heard(cell_follower(ip))
    yield heard
    heard.close()


def test_one_registration_for_every_subscriber_and_none_without_one(ip):
    follower = cell_follower(ip)
    assert follower is made_follower() and cell_follower() is follower
    assert ours(ip) == 2  # loading subscribed the markers, the records and the out-of-memory hook: one pair
    extra = [follower.subscribe(Order.VIEWS, ended=lambda cell: None) for _ in range(3)]
    assert ours(ip) == 2
    for subscription in extra:
        subscription.close()
        subscription.close()  # twice is harmless
    ip.run_line_magic("unload_ext", "mgenv_jupyter")
    assert ours(ip) == 0 and not follower.registered  # nothing of ours follows the cells now
    ip.run_line_magic("load_ext", "mgenv_jupyter")
    ip.run_line_magic("reload_ext", "mgenv_jupyter")
    assert ours(ip) == 2 and cell_follower(ip) is follower


def test_subscribers_are_told_in_order_not_as_they_came(ip, heard):
    # the package's own: the markers first, the record after them, the out-of-memory hook after the record
    owners = [(s.order, type(s.ended.__self__).__name__) for s in heard.follower.subscriptions()]
    assert owners == [(Order.MARKERS, "CellTracker"), (Order.RECORDS, "CellRecords"), (Order.OOM, "OomHook")]
    for order in reversed(Order):
        heard.subscribe(order.name, order)
    heard.subscribe("second view", Order.VIEWS)  # within a rank, in the order of subscribing
    ip.run_cell("x = 1", store_history=True)
    names = [order.name for order in Order] + ["second view"]
    assert [(name, moment) for name, moment, _ in heard.heard] == (
        [(name, "started") for name in names] + [(name, "ended") for name in names])


def test_a_user_cell_with_its_number_id_code_times_and_error(ip, heard):
    heard.subscribe("one", Order.VIEWS)
    seen_running = []
    heard.follower.subscribe(Order.VIEWS, started=lambda cell: seen_running.append(running_cell()))
    result = ip.run_cell("y = 2", store_history=True, cell_id="cell-y")
    failed = ip.run_cell("1 / 0", store_history=True, cell_id="cell-z")
    first, second = heard.ended()
    assert (first.execution_count, first.stored, first.cell_id, first.raw_cell) == (
        result.execution_count, True, "cell-y", "y = 2")
    assert first.ok and first.started <= first.ended and 0 <= first.duration < 5
    assert second.execution_count == failed.execution_count == result.execution_count + 1
    assert isinstance(second.error, ZeroDivisionError) and not second.ok
    started = [cell for _, moment, cell in heard.heard if moment == "started"]
    assert [cell.execution_count for cell in started] == [first.execution_count, second.execution_count]
    assert [cell.execution_count for cell in seen_running] == [first.execution_count, second.execution_count]
    assert running_cell() is None  # between cells
    assert heard.follower.last == second


def test_silent_empty_and_inner_runs_are_no_cells_of_their_own(ip, heard):
    heard.subscribe("one", Order.VIEWS)
    ip.run_cell("silent_ran = 1", silent=True)  # a front end's own request: IPython announces none of it
    ip.run_cell("")  # the culling notice's "Keep the kernel": IPython ends it without a start
    ip.run_cell("   \n")
    assert heard.heard == [] and ip.user_ns["silent_ran"] == 1
    outer = ip.run_cell("get_ipython().run_cell('inner = 1')\nget_ipython().run_cell('1 / 0')\nouter = 2",
                        store_history=True, cell_id="outer")
    assert [(moment, cell.cell_id, cell.execution_count) for _, moment, cell in heard.heard] == [
        ("started", "outer", outer.execution_count), ("ended", "outer", outer.execution_count)]
    (cell,) = heard.ended()
    assert isinstance(cell.error, ZeroDivisionError)  # the inner run's traceback was shown under this cell
    assert ip.user_ns["outer"] == 2


def test_a_cell_not_kept_in_the_history_is_numbered_as_ipython_stands(ip, heard):
    heard.subscribe("one", Order.VIEWS)
    ip.run_cell("z = 3", store_history=True)
    before = ip.execution_count
    ip.run_cell("w = 4")
    (_, cell) = heard.ended()
    assert not cell.stored and cell.execution_count == before == ip.execution_count


def test_a_failing_subscriber_is_logged_and_the_others_still_told(ip, heard, capsys, caplog):
    def fails(cell: Cell) -> None:
        raise RuntimeError("a subscriber's own bug")

    heard.subscriptions.append(heard.follower.subscribe(Order.MARKERS, started=fails, ended=fails))
    heard.subscribe("after it", Order.VIEWS)
    last = getattr(sys, "last_value", None)
    ip.run_cell("v = 5", store_history=True)
    assert [moment for _, moment, _ in heard.heard] == ["started", "ended"]
    assert "a subscriber's own bug" not in capsys.readouterr().out  # IPython would print it under the cell
    assert getattr(sys, "last_value", None) is last  # and make it the user's last error
    assert "a follower of the cell's ended failed" in caplog.text


def test_the_cell_running_when_following_began_is_told_as_ended(ip):
    follower = CellFollower(ip)  # one of its own, made while nothing of it follows the shell
    ended: list[Cell] = []
    ip.user_ns["join"] = lambda: follower.subscribe(Order.VIEWS, started=ended.append, ended=ended.append)
    try:
        joined = ip.run_cell("subscription = join()", store_history=True, cell_id="loading")
        (cell,) = ended
        assert (cell.cell_id, cell.execution_count, cell.raw_cell) == ("loading", joined.execution_count,
                                                                       "subscription = join()")
        assert cell.started <= cell.ended and cell.ok
    finally:
        follower.close()
    assert ours(ip) == 2  # the kernel's follower alone
