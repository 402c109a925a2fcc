"""The values a sweep tries: read from the magic's line, checked as %envset checks them, made into points."""

from __future__ import annotations

import pytest

from mgenv_jupyter import InvalidValueError
from mgenv_jupyter.sweeps._grid import MAX_POINTS, checked_grid, words_to_values

THRESHOLD = "MEGENGINE_DTR_EVICTION_THRESHOLD"
TORCH_CONF = "PYTORCH_CUDA_ALLOC_CONF"


def test_sizes_are_normalised_as_envset_writes_them(fresh_session):
    grid = checked_grid({THRESHOLD: ["1GB", "512MB", 4096]}, fresh_session)
    assert grid.given() == [{THRESHOLD: "1GB"}, {THRESHOLD: "512MB"}, {THRESHOLD: "4096"}]
    assert grid.points() == [{THRESHOLD: str(1024**3)}, {THRESHOLD: str(512 * 1024**2)}, {THRESHOLD: "4096"}]


def test_several_variables_make_every_combination_first_varies_slowest(fresh_session):
    grid = checked_grid({"OMP_NUM_THREADS": ["1", "2"], "MALLOC_ARENA_MAX": ["1", "4", "8"]}, fresh_session)
    assert len(grid) == 6
    assert [tuple(point.values()) for point in grid.points()] == [
        ("1", "1"), ("1", "4"), ("1", "8"), ("2", "1"), ("2", "4"), ("2", "8")]


def test_a_bad_value_refuses_the_sweep_and_says_what_is_allowed(fresh_session):
    with pytest.raises(InvalidValueError) as caught:
        checked_grid({"FLAGS_allocator_strategy": ["auto_growth", "fastest"]}, fresh_session)
    message = str(caught.value)
    assert "fastest" in message and "naive_best_fit" in message and "nothing was started" in message


def test_every_problem_is_listed_at_once(fresh_session):
    with pytest.raises(InvalidValueError) as caught:
        checked_grid({THRESHOLD: ["5XB"], "FLAGS_allocator_strategy": ["fastest"]}, fresh_session)
    assert THRESHOLD in str(caught.value) and "FLAGS_allocator_strategy" in str(caught.value)


def test_a_near_miss_of_a_catalog_name_needs_force(fresh_session):
    with pytest.raises(InvalidValueError, match="did you mean FLAGS_allocator_strategy"):
        checked_grid({"FLAGS_alocator_strategy": ["a", "b"]}, fresh_session)
    assert len(checked_grid({"FLAGS_alocator_strategy": ["a", "b"]}, fresh_session, force=True)) == 2


def test_a_value_given_twice_is_refused_after_normalising(fresh_session):
    with pytest.raises(InvalidValueError, match="given twice"):
        checked_grid({THRESHOLD: ["1GB", "1024MB"]}, fresh_session)


@pytest.mark.parametrize("values, words", [
    ("5GB", "list"), ([], "list"), ([None], "NoneType"), ([True], "bool"), ({"a": 1}, "list")])
def test_values_must_be_a_list_of_strings_or_numbers(fresh_session, values, words):
    with pytest.raises(InvalidValueError, match=words):
        checked_grid({THRESHOLD: values}, fresh_session)


def test_a_grid_too_large_is_refused_before_anything_starts(fresh_session):
    values = [str(n) for n in range(1, 64)]
    with pytest.raises(InvalidValueError, match=f"at most {MAX_POINTS}"):
        checked_grid({"A_ONE": values, "A_TWO": values}, fresh_session)


def test_a_secret_value_is_never_echoed(fresh_session):
    token = "ghp_" + "a" * 36
    with pytest.raises(InvalidValueError) as caught:
        checked_grid({"MGE_DEFAULT_DEVICE": ["cpu0", token]}, fresh_session)
    assert token not in str(caught.value)


def test_an_npu_run_config_option_is_not_an_environment_variable(fresh_session):
    option = next(entry.name for entry in fresh_session.catalog if not entry.is_env)
    with pytest.raises(InvalidValueError, match="NPURunConfig"):
        checked_grid({option: ["1", "2"]}, fresh_session)


def test_checking_changes_nothing(fresh_session):
    checked_grid({THRESHOLD: ["1GB", "2GB"]}, fresh_session)
    assert fresh_session.get(THRESHOLD) is None and fresh_session.history == []


# ---- the magic's line ----------------------------------------------------------------------------------------------

def test_commas_separate_values(fresh_session):
    assert words_to_values([f"{THRESHOLD}=1GB,2GB, 3GB", "OMP_NUM_THREADS=1"], fresh_session) == {
        THRESHOLD: ["1GB", "2GB", "3GB"], "OMP_NUM_THREADS": ["1"]}


def test_a_value_holding_commas_is_its_own_word_with_the_name_repeated(fresh_session):
    words = [f"{TORCH_CONF}=expandable_segments:True,max_split_size_mb:128", f"{TORCH_CONF}=expandable_segments:False"]
    values = words_to_values(words, fresh_session)
    assert values == {TORCH_CONF: ["expandable_segments:True,max_split_size_mb:128", "expandable_segments:False"]}
    assert len(checked_grid(values, fresh_session)) == 2


def test_a_comma_value_given_once_is_ambiguous_and_says_how_to_write_it(fresh_session):
    with pytest.raises(InvalidValueError) as caught:
        words_to_values([f"{TORCH_CONF}=expandable_segments:True,max_split_size_mb:128"], fresh_session)
    assert f"{TORCH_CONF}=VALUE" in str(caught.value) and "repeat the name" in str(caught.value)


@pytest.mark.parametrize("word", ["NOEQUALS", "=1,2", f"{THRESHOLD}=1GB,,2GB", f"{THRESHOLD}=1GB,"])
def test_malformed_words_are_refused(fresh_session, word):
    with pytest.raises(InvalidValueError):
        words_to_values([word], fresh_session)


def test_values_taken_together_make_one_point_per_position(fresh_session):
    grid = checked_grid({"OMP_NUM_THREADS": ["1", "2", "4"], "MALLOC_ARENA_MAX": ["1", "2", "4"]}, fresh_session,
                        zipped=True)
    assert len(grid) == 3 and [tuple(p.values()) for p in grid.points()] == [("1", "1"), ("2", "2"), ("4", "4")]
    with pytest.raises(InvalidValueError, match="as many values"):
        checked_grid({"OMP_NUM_THREADS": ["1", "2"], "MALLOC_ARENA_MAX": ["1"]}, fresh_session, zipped=True)
