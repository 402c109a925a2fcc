"""The catalog's rules evaluated against values (catalog/_applicability.py): whether a variable applies with the values
chosen (edited or applied; an unset one counts as its default), and whether a group is on, off or partly on."""

from __future__ import annotations

from mgenv_jupyter.catalog import catalog
from mgenv_jupyter.catalog._applicability import ALWAYS, applicability, effective_text, group_state
from mgenv_jupyter.catalog._megengine_dtr import DTR_SWITCH

POOL = "FLAGS_initial_gpu_memory_in_mb"


def lookup(**values: str):
    return values.get


def test_the_value_a_framework_sees_is_the_normalised_value_or_the_default():
    known = catalog()
    assert effective_text(known, "FLAGS_allocator_strategy", lookup()) == "auto_growth"  # unset: the default
    assert effective_text(known, POOL, lookup(**{POOL: "2GB"})) == "2048"  # as Paddle reads it
    assert effective_text(known, POOL, lookup(**{POOL: "lots"})) == "lots"  # refused values are shown as typed
    assert effective_text(known, "MY_VAR", lookup(MY_VAR="x")) == "x"  # not in the catalog: as it is
    assert effective_text(known, "MY_VAR", lookup()) is None


def test_paddles_pool_sizes_apply_only_under_naive_best_fit():
    known = catalog()
    pool = known.get(POOL)
    assert pool is not None
    unset = applicability(known, pool, lookup())
    assert not unset.applies and unset.reason is not None and "auto_growth" in unset.reason  # the default strategy
    chosen = applicability(known, pool, lookup(FLAGS_allocator_strategy="naive_best_fit"))
    assert chosen.applies and "naive_best_fit" in (chosen.reason or "")
    chinese = applicability(known, pool, lookup(FLAGS_allocator_strategy="thread_local"), "zh")
    assert not chinese.applies and "thread_local" in (chinese.reason or "") and "不起作用" in (chinese.reason or "")
    assert chinese.to_json() == {"applies": False, "reason": chinese.reason}


def test_a_variable_without_a_rule_always_applies():
    known = catalog()
    strategy = known.get("FLAGS_allocator_strategy")
    assert strategy is not None and applicability(known, strategy, lookup()) is ALWAYS
    assert ALWAYS.applies and ALWAYS.reason is None


def test_a_group_is_on_off_or_partly_on():
    known = catalog()
    on = dict.fromkeys(DTR_SWITCH.members, "1")
    assert group_state(known, DTR_SWITCH, lookup()) == "off"  # every member's default is 0
    assert group_state(known, DTR_SWITCH, on.get) == "on"
    assert group_state(known, DTR_SWITCH, lookup(MEGENGINE_ENABLE_DROP="true")) == "partly"  # "true" is read as 1
