"""What each point runs before the measured cell: this kernel's cells in order, less the failed ones and our magics,
or what the user chose; in a real IPython shell, whose cell outcomes the extension records."""

from __future__ import annotations

import pytest

from mgenv_jupyter import InvalidValueError
from mgenv_jupyter.magics._sweep import REPLAY_CELL_MAGICS, REPLAY_LINE_MAGICS, setup_plan
from mgenv_jupyter.sweeps._replay import LeftOut, replay_plan


def _run(ip, *cells: str) -> list[int]:
    numbers = []
    for code in cells:
        result = ip.run_cell(code, store_history=True)
        numbers.append(result.execution_count)
    return numbers


def test_failed_cells_and_our_magics_are_left_out_and_the_rest_replays_in_order(ip):
    first, failed, magic_cell, mixed, plain = _run(
        ip, "a = 1", "raise ValueError('no')", "%%envset\nMGE_DEFAULT_DEVICE=cpu0",
        "%envset MEGENGINE_DTR_EVICTION_THRESHOLD=1GB\nb = a + 1", "c = b * 2")
    plan = setup_plan(None, ip)
    by_number = {cell.number: cell for cell in plan.cells}
    assert plan.replayed
    assert [cell.number for cell in plan.cells if cell.number >= first] == [first, mixed, plain]
    assert by_number[mixed].code == "b = a + 1" and by_number[mixed].dropped_lines == (1,)
    assert (failed, LeftOut.FAILED) in plan.left_out and (magic_cell, LeftOut.OUR_MAGIC) in plan.left_out


def test_a_memtrace_cell_is_replayed_as_its_body_by_default(ip):
    """%%memtrace ran its cell as code (it defined names): the default replay keeps that code, less the magic's line
    and any line magic of ours in it."""
    traced, after = _run(ip, "%%memtrace\nmodel_size = 3\n%envset MEGENGINE_DTR_EVICTION_THRESHOLD=1GB\nwidth = 2",
                         "area = model_size * width")
    plan = setup_plan(None, ip)
    by_number = {cell.number: cell for cell in plan.cells}
    assert traced in by_number and after in by_number
    assert by_number[traced].code.strip() == "model_size = 3\nwidth = 2"
    assert (traced, LeftOut.OUR_MAGIC) not in plan.left_out
    namespace: dict = {}
    for cell in plan.cells:
        if cell.number >= traced:
            exec(cell.code, namespace)  # noqa: S102 - the user's own cells, as a point would run them
    assert namespace["area"] == 6


def test_replayed_code_rebuilds_the_state_the_cell_needs(ip):
    first, *_ = _run(ip, "import os as _os_for_replay", "replayed_value = 40 + 2", "1 / 0")
    plan = setup_plan(None, ip)
    namespace: dict = {}
    for cell in plan.cells:
        if cell.number >= first:  # the shared test shell ran other tests' cells before
            exec(cell.code, namespace)  # noqa: S102 - the user's own cells, as a point would run them
    assert namespace["replayed_value"] == 42


def test_chosen_cell_numbers_run_in_the_order_given(ip):
    first, second = _run(ip, "x = 1", "y = 2")
    plan = setup_plan([second, first], ip)
    assert not plan.replayed and [cell.number for cell in plan.cells] == [second, first]


def test_a_cell_number_that_did_not_run_is_refused(ip):
    _run(ip, "x = 1")
    with pytest.raises(InvalidValueError, match="no cell \\[9999\\]"):
        setup_plan([9999], ip)


def test_code_given_instead(ip):
    plan = setup_plan(["import math", "", "r = math.pi"], ip)
    assert plan.code() == ["import math", "r = math.pi"] and not plan.replayed
    assert setup_plan("", ip).cells == ()


@pytest.mark.parametrize("setup", [3.5, [1, "x"], {"a": 1}, [True]])
def test_anything_else_is_refused(ip, setup):
    with pytest.raises(InvalidValueError, match="setup must be"):
        setup_plan(setup, ip)


def test_a_cell_that_ran_a_sweep_and_unknown_outcomes():
    history = ["", "a = 1", "%%envsweep X=1,2\nrun()", "  %envset X=1\nb = 2", "mgenv_jupyter.sweep('x', {})", "c"]
    plan = replay_plan(history, 6, {1: True, 3: True}, REPLAY_LINE_MAGICS, REPLAY_CELL_MAGICS, sweep_cells={4})
    assert [(cell.number, cell.outcome_known) for cell in plan.cells] == [(1, True), (3, True), (5, False)]
    assert plan.cells[1].code == history[3]  # an indented magic line is kept: dropping it could break a block
    assert dict(plan.left_out) == {2: LeftOut.OUR_MAGIC, 4: LeftOut.SWEEP}


def test_only_our_magics_are_dropped():
    history = ["", "%envsetx = 1\n%timeit 1\n%envset A=1\n%envget A\nz = 3"]
    plan = replay_plan(history, 2, {}, REPLAY_LINE_MAGICS, REPLAY_CELL_MAGICS)
    assert plan.cells[0].code == "%envsetx = 1\n%timeit 1\nz = 3" and plan.cells[0].dropped_lines == (3, 4)
