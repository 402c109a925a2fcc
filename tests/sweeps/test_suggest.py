"""What "try several values…" and "try it first" write: values from the variable's type around what it is, and a
`%%envsweep` cell the magic reads back as those values."""

from __future__ import annotations

from mgenv_jupyter.catalog import catalog
from mgenv_jupyter.presentation.sweep._cell import sweep_cell
from mgenv_jupyter.sweeps._grid import checked_grid, words_to_values
from mgenv_jupyter.sweeps._suggest import suggested_values

GiB = 1024**3


def read_back(cell: str, session) -> dict:
    from mgenv_jupyter.base._shell_words import split_words

    words = [w for w in split_words(cell.splitlines()[0])[1:] if not w.startswith("--")]
    return words_to_values(words, session)


def test_a_size_is_tried_at_shares_of_the_gpu_when_unset_and_around_its_value_when_set():
    entry = catalog().get("MEGENGINE_DTR_EVICTION_THRESHOLD")
    assert suggested_values(entry, None, 11 * GiB)[1:] == ["2816MiB", "6GiB", "8GiB", "10GiB"]
    assert suggested_values(entry, str(5 * GiB), None) == ["2560MiB", "5GiB", "10GiB", "20GiB"]


def test_a_closed_type_is_tried_at_every_choice_and_a_config_at_its_switch():
    assert suggested_values(catalog().get("FLAGS_allocator_strategy"), None, None) == [
        "auto_growth", "naive_best_fit", "thread_local"]
    assert suggested_values(catalog().get("PYTORCH_CUDA_ALLOC_CONF"), "max_split_size_mb:128", None) == [
        "expandable_segments:True,max_split_size_mb:128", "expandable_segments:False,max_split_size_mb:128"]


def test_every_suggested_cell_reads_back_as_its_values_and_passes_the_checks(fresh_session):
    for name in ("MEGENGINE_DTR_EVICTION_THRESHOLD", "PYTORCH_CUDA_ALLOC_CONF", "FLAGS_allocator_strategy",
                 "XLA_PYTHON_CLIENT_MEM_FRACTION", "MXNET_GPU_MEM_POOL_TYPE", "MEGENGINE_DTR_EVICTEE_MINIMUM_SIZE"):
        values = suggested_values(catalog().get(name), fresh_session.get(name), 16 * GiB)
        cell = sweep_cell({name: values}, None, "en")
        assert read_back(cell, fresh_session) == {name: values}, cell
        assert len(checked_grid({name: values}, fresh_session)) == len(values)
        assert cell.splitlines()[1].startswith("# Replace this line")


def test_no_variable_is_offered_a_sweep_of_one_value(fresh_session):
    """"Try several values…" inserted `%%envsweep NAME=<default>` for a number with no upper bound or a free text:
    a sweep that compares nothing. Every catalog variable now gets two values or more, or none."""
    counts = {}
    for entry in catalog():
        if entry.is_env:
            values = suggested_values(entry, fresh_session.get(entry.name), 16 * GiB)
            counts[entry.name] = len(values)
            if values:
                assert len(checked_grid({entry.name: values}, fresh_session)) == len(values)
    assert 1 not in counts.values(), [name for name, count in counts.items() if count == 1]
    # a whole number bounded below only: doublings around what it is
    assert suggested_values(catalog().get("MGB_SUBLINEAR_MEMORY_THRESH_NR_TRY"), "10", None) == ["5", "10", "20", "40"]


def test_the_sidebar_is_told_why_there_is_no_cell_for_a_variable_with_nothing_to_compare(fresh_session):
    from mgenv_jupyter.comms._requests import RequestHandler
    from mgenv_jupyter.protocol import PROTOCOL_VERSION

    (refused,) = RequestHandler(fresh_session).handle({"v": PROTOCOL_VERSION, "type": "sweep_cell", "id": "r1",
                                                       "name": "CUDA_BIN_PATH"})
    assert refused["type"] == "error" and "no values to compare" in refused["message"]
