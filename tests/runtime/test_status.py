"""What a variable's value means for the running kernel (runtime/_status.py): the one decision table, one test per
row, with real modules that read the environment when they are imported (conftest.probe_module) so that "read" means
what it means in a kernel; and the AlreadyReadWarning's text."""

from __future__ import annotations

import importlib
import time

import pytest

from mgenv_jupyter.base._text import Text
from mgenv_jupyter.catalog import Entry, ReadWhen
from mgenv_jupyter.catalog._secrets import MASK
from mgenv_jupyter.catalog._values import OptionalOf, Size, Switch
from mgenv_jupyter.runtime import ImportRecord, ImportWatcher, Status
from mgenv_jupyter.runtime._status import LABELS, Applied, Situation, already_read_warning, assess

T = Text("probe", "探针")
READER = "mgenv_probe_status"
FIRST_USE = Text("the first probe op", "第一次探针运算")


def entry(name: str, when: ReadWhen, **kw) -> Entry:
    kw.setdefault("type", Size())
    kw.setdefault("default", None)
    return Entry(name=name, framework="probe", category=T, when=when, readers=(READER,),
                 read_at="probe", description=T, **kw)


SIZE = entry("PROBE_SIZE", ReadWhen.IMPORT)
LATCH = entry("PROBE_LATCH", ReadWhen.FIRST_USE, first_use=FIRST_USE)
SECRET = entry("PROBE_TOKEN", ReadWhen.IMPORT)


@pytest.fixture
def imported(probe_module, monkeypatch) -> ImportRecord:
    """The record of a real import of the reader, which saw PROBE_SIZE=1024, PROBE_LATCH=1 and a token."""
    probe_module(READER, ["PROBE_SIZE", "PROBE_LATCH", "PROBE_TOKEN"])
    monkeypatch.setenv("PROBE_SIZE", "1024")
    monkeypatch.setenv("PROBE_LATCH", "1")
    monkeypatch.setenv("PROBE_TOKEN", "hunter2")
    watcher = ImportWatcher([READER])
    watcher.install()
    try:
        importlib.import_module(READER)
    finally:
        watcher.uninstall()
    record = watcher.record(READER)
    assert record is not None and record.value("PROBE_SIZE") == "1024"
    return record


def decide(situation: Situation, language: str = "en") -> tuple[Status, str]:
    status, message = assess(situation)
    return status, message.get(language)


# ---- not a catalog variable ----------------------------------------------------------------------------------------

def test_a_variable_outside_the_catalog_that_is_set_is_effective():
    assert decide(Situation("MY_VAR", None, "1", None)) == (Status.EFFECTIVE, "set; not a catalog variable")


def test_a_variable_outside_the_catalog_that_is_not_set_is_unset():
    assert decide(Situation("MY_VAR", None, None, None)) == (Status.UNSET, "not set")


def test_setting_a_variable_outside_the_catalog_reaches_this_process_and_its_children():
    assert decide(Situation("MY_VAR", None, "1", None, change=True)) == (
        Status.EFFECTIVE, "set for this process and the processes it starts; not a catalog variable")


def test_unsetting_a_variable_outside_the_catalog_removes_it():
    assert decide(Situation("MY_VAR", None, None, None, change=True, unset=True)) == (
        Status.UNSET, "removed from this process's environment")


# ---- catalog variables whose reading does not depend on an import --------------------------------------------------

def test_a_variable_no_code_reads_has_no_effect_and_names_its_replacement():
    dead = entry("PROBE_DEAD", ReadWhen.NOT_READ, replaced_by="PROBE_SIZE")
    assert decide(Situation("PROBE_DEAD", dead, "1", None)) == (
        Status.NO_LONGER_READ, f"no code in {READER} reads PROBE_DEAD any more, so it has no effect; use PROBE_SIZE "
                               "instead")
    orphan = entry("PROBE_GONE", ReadWhen.NOT_READ)
    assert decide(Situation("PROBE_GONE", orphan, "1", None))[1].endswith("so it has no effect")


def test_an_npu_run_config_option_is_passed_by_the_users_code():
    option = entry("probe_option", ReadWhen.OPTION, type=OptionalOf(Switch(on="True", off="False")))
    assert decide(Situation("probe_option", option, "True", None)) == (
        Status.OPTION, "passed to NPURunConfig(**session().npu_run_config_kwargs())")


def test_setting_an_option_records_the_keyword_argument():
    option = entry("probe_option", ReadWhen.OPTION, type=OptionalOf(Switch(on="True", off="False")))
    status, message = decide(Situation("probe_option", option, "True", None, change=True, option_value=True))
    assert status is Status.OPTION and message.startswith("recorded: NPURunConfig(probe_option=True, ...)")


def test_removing_an_option_says_so():
    option = entry("probe_option", ReadWhen.OPTION, type=OptionalOf(Switch(on="True", off="False")))
    assert decide(Situation("probe_option", option, None, None, change=True, unset=True)) == (
        Status.UNSET, "removed from the NPURunConfig options")


def test_a_variable_read_on_every_use_is_effective_at_once(imported):
    dynamic = entry("PROBE_DYNAMIC", ReadWhen.EVERY_CALL, type=Switch())
    assert decide(Situation("PROBE_DYNAMIC", dynamic, "1", imported)) == (
        Status.EFFECTIVE, f"{READER} reads it on every use: effective now")
    assert decide(Situation("PROBE_DYNAMIC", dynamic, None, imported, change=True, unset=True))[0] is Status.UNSET


def test_a_variable_read_for_every_new_object_is_effective_for_new_ones():
    per_object = entry("PROBE_PER_OBJECT", ReadWhen.PER_OBJECT, type=Switch())
    assert decide(Situation("PROBE_PER_OBJECT", per_object, "1", None)) == (
        Status.EFFECTIVE, f"{READER} reads it each time the object is created: effective for new ones from now on")


# ---- not set ------------------------------------------------------------------------------------------------------

def test_a_catalog_variable_not_set_and_not_read_says_which_default_applies():
    with_default = entry("PROBE_SIZE", ReadWhen.IMPORT, default="1 GiB")
    assert decide(Situation("PROBE_SIZE", with_default, None, None)) == (
        Status.UNSET, f"{READER} uses its default, 1 GiB")
    assert decide(Situation("PROBE_SIZE", with_default, None, None), "zh") == (
        Status.UNSET, f"{READER} 使用默认值 1 GiB")
    assert decide(Situation("PROBE_SIZE", SIZE, None, None)) == (Status.UNSET, f"{READER} goes without it")


def test_a_variable_read_on_every_use_and_not_set_uses_its_default_even_after_the_import(imported):
    every_call = entry("PROBE_SIZE", ReadWhen.EVERY_CALL, default="0")
    assert decide(Situation("PROBE_SIZE", every_call, None, imported)) == (
        Status.UNSET, f"{READER} uses its default, 0 B")  # a size's default in the one notation


# ---- before the reader is imported ---------------------------------------------------------------------------------

def test_before_the_import_a_variable_read_at_import_takes_effect_then():
    assert decide(Situation("PROBE_SIZE", SIZE, "2048", None)) == (
        Status.PENDING_IMPORT, f"{READER} is not imported yet: it reads this when `import {READER}` runs")
    assert decide(Situation("PROBE_SIZE", SIZE, None, None, change=True, unset=True))[0] is Status.UNSET


def test_before_the_first_use_a_variable_read_then_takes_effect_then():
    assert decide(Situation("PROBE_LATCH", LATCH, "1", None)) == (
        Status.PENDING_FIRST_USE, "read at the first probe op, which has not happened in this kernel")
    assert "第一次探针运算" in decide(Situation("PROBE_LATCH", LATCH, "1", None), "zh")[1]


# ---- after the reader was imported ---------------------------------------------------------------------------------

def test_read_at_import_with_this_very_value_is_effective(imported):
    status, message = decide(Situation("PROBE_SIZE", SIZE, "1024", imported))
    assert status is Status.EFFECTIVE and message.startswith(f"read by {READER} at ") and message.endswith(
        "with this value")


def test_read_at_import_with_another_value_needs_a_restart(imported):
    status, message = decide(Situation("PROBE_SIZE", SIZE, "2048", imported))
    clock = time.strftime("%H:%M:%S", time.localtime(imported.time))
    assert status is Status.ALREADY_READ
    assert message == (f"{READER} read it at {clock}, when it was 1 KiB, and keeps what it read; this value applies in "
                       "a new kernel: 'Restart and apply' carries it over, or set it again after a restart (a plain "
                       "restart loses it)")


def test_a_secret_it_read_is_never_repeated(imported):
    status, message = decide(Situation("PROBE_TOKEN", SECRET, "other", imported))
    assert status is Status.ALREADY_READ and "hunter2" not in message and repr(MASK) in message


def test_a_first_use_variable_changed_after_the_import_may_already_be_latched(imported):
    status, message = decide(Situation("PROBE_LATCH", LATCH, "0", imported))
    assert status is Status.MAY_BE_LATCHED
    assert message.startswith(f"{READER} was imported at ") and "if the first probe op has happened since" in message


def test_a_value_pushed_through_the_live_api_is_applied_live(imported):
    applied = Applied("probe.set_size(2048)", "2048")
    assert decide(Situation("PROBE_SIZE", SIZE, "2048", imported, applied=applied)) == (
        Status.APPLIED_LIVE, f"applied through probe.set_size(2048); {READER} now reports 2 KiB")


def test_a_live_change_of_a_first_use_variable_may_still_be_latched(imported):
    applied = Applied("probe.set_latch(0)", None)
    status, message = decide(Situation("PROBE_LATCH", LATCH, "0", imported, applied=applied))
    assert status is Status.MAY_BE_LATCHED
    assert message.startswith(f"applied through probe.set_latch(0); {READER} now reports unset; but {READER} was ")


# ---- labels and the warning ----------------------------------------------------------------------------------------

def test_every_status_has_a_label_in_both_languages():
    assert set(LABELS) == set(Status)
    for status in Status:
        assert status.label is LABELS[status] and status.label.en and status.label.zh != status.label.en


def test_the_already_read_warning_names_the_module_moment_value_and_way_out(imported):
    warning = already_read_warning(SIZE, imported, "2048", "probe.set_size(2048)").get("en")
    clock = time.strftime("%H:%M:%S", time.localtime(imported.time))
    assert warning == (
        f"{READER} already read PROBE_SIZE at {clock}, when it was 1 KiB, and keeps what it read: the running "
        f"{READER} will not see it set to 2 KiB (os.environ holds it now, and processes started from here inherit "
        "it).\nWay out: a new kernel. With the Framework Env sidebar open, its 'Restart and apply' restarts the kernel "
        "and carries this value over, with the others this session set that a framework reads at start; without the "
        "sidebar, restart the kernel, then run `%load_ext mgenv_jupyter` and `%envset PROBE_SIZE=2048` before "
        f"{READER} is imported; or change it live now with probe.set_size(2048).")
    unset = already_read_warning(SIZE, imported, None, None).get("en")
    assert "will not see it unset" in unset
    assert unset.endswith(f"run `%load_ext mgenv_jupyter` and `%envunset PROBE_SIZE` before {READER} is imported.")


def test_the_warning_for_a_module_imported_before_loading_says_what_can_be_known(imported):
    early = ImportRecord(READER, None, {"PROBE_SIZE": "1024"}, before_load=True)
    warning = already_read_warning(SIZE, early, "2048", None)
    assert str(warning).startswith(f"{READER} was imported before mgenv_jupyter was loaded and read PROBE_SIZE then; "
                                   "at kernel start it was 1 KiB, and keeps what it read")
    assert "在加载 mgenv_jupyter 之前就已导入" in warning.get("zh") and "PROBE_SIZE" in warning
