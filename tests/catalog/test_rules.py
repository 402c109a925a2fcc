"""Rules that tie variables together, as catalog data (catalog/_rules.py): a condition holds for the values it names,
and every condition and group in the catalog names real variables and values their types accept."""

from __future__ import annotations

from mgenv_jupyter.base._text import Text
from mgenv_jupyter.catalog import catalog
from mgenv_jupyter.catalog._rules import Condition

NAIVE_ONLY = Condition("FLAGS_allocator_strategy", ("naive_best_fit",), because=Text("b", "b"),
                       otherwise=Text("not with {value}", "{value} 下不起作用"))


def test_a_condition_holds_only_for_the_values_it_names():
    assert NAIVE_ONLY.holds("naive_best_fit")
    assert not NAIVE_ONLY.holds("auto_growth")
    assert not NAIVE_ONLY.holds(None)  # the presentation layer puts the default in place of an unset value


def test_every_condition_in_the_catalog_names_a_variable_and_values_it_accepts():
    known = catalog()
    conditions = {entry.name: entry.applies_when for entry in known if entry.applies_when is not None}
    assert conditions  # Paddle's pool sizes at least
    for name, condition in conditions.items():
        entry, target = known.get(name), known.get(condition.variable)
        assert entry is not None and target is not None and target.framework == entry.framework, name
        for value in condition.values:
            assert target.type.parse(value).text == value, (name, value)
        for text in (condition.otherwise.en, condition.otherwise.zh):
            assert "{value}" in text, name  # says which value makes the variable not apply


def test_every_group_in_the_catalog_switches_variables_of_its_own_framework():
    known = catalog()
    assert known.groups
    for group in known.groups:
        for name in group.members:
            member = known.get(name)
            assert member is not None and member.framework == group.framework, (group.key, name)
            assert member.type.parse(group.on).text == group.on and member.type.parse(group.off).text == group.off
            assert known.group_of(name) is group
