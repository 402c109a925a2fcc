"""One catalog entry and the per-framework factory that declares entries (catalog/_entry.py): what a framework's
entries share is said once, an entry's own fields win, and an entry that does not say where and when it is read is
refused."""

from __future__ import annotations

import pytest

from mgenv_jupyter.base._text import Text
from mgenv_jupyter.catalog import catalog
from mgenv_jupyter.catalog._entry import Entry, EntryFactory, ReadWhen
from mgenv_jupyter.catalog._values import OptionalOf, Switch

T = Text("probe", "探针")


def test_the_factory_fills_what_a_frameworks_entries_share():
    variable = EntryFactory("probe", readers=("probe",), read_at="probe/init.py", when=ReadWhen.IMPORT,
                            live_api="probe.set")
    entry = variable("PROBE_FLAG", category=T, type=Switch(), default="0", description=T, loads_code=None)
    assert (entry.framework, entry.readers, entry.read_at, entry.when, entry.live_api) == (
        "probe", ("probe",), "probe/init.py", ReadWhen.IMPORT, "probe.set")


def test_an_entrys_own_fields_win_over_the_factorys():
    variable = EntryFactory("probe", readers=("probe",), read_at="probe/init.py", when=ReadWhen.IMPORT)
    entry = variable("PROBE_OLD", category=T, type=Switch(), default=None, description=T, when=ReadWhen.NOT_READ,
                     read_at="probe/init.py (removed in 2.0)", readers=("probe", "probe_ext"), loads_code=None)
    assert entry.when is ReadWhen.NOT_READ and entry.read_at == "probe/init.py (removed in 2.0)"
    assert entry.readers == ("probe", "probe_ext")


@pytest.mark.parametrize(("shared", "missing"), [
    ({}, "needs read_at and when"),
    ({"read_at": "probe/init.py"}, "needs when"),
    ({"when": ReadWhen.IMPORT}, "needs read_at"),
])
def test_an_entry_that_does_not_say_where_and_when_it_is_read_is_refused(shared, missing):
    variable = EntryFactory("probe", readers=("probe",), **shared)
    with pytest.raises(TypeError, match=f"catalog entry PROBE_FLAG {missing}"):
        variable("PROBE_FLAG", category=T, type=Switch(), default="0", description=T, loads_code=None)


def test_only_npu_run_config_options_are_not_environment_variables():
    option = Entry(name="probe_option", framework="probe", category=T, type=OptionalOf(Switch()), default="None",
                   when=ReadWhen.OPTION, readers=("probe",), read_at="NPURunConfig", description=T)
    assert not option.is_env and option.optional
    assert {entry.name for entry in catalog() if not entry.is_env} == {
        entry.name for entry in catalog() if entry.when is ReadWhen.OPTION}
    assert {entry.framework for entry in catalog() if not entry.is_env} == {"ascend"}
