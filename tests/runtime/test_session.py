"""EnvSession outcomes, proven with real modules that read the environment at import (see conftest.probe_module)."""

from __future__ import annotations

import contextlib
import importlib
import os
import sys
import threading
import types
import warnings
from collections.abc import Iterator

import pytest

from mgenv_jupyter import AlreadyReadWarning, InvalidValueError, MayBeLatchedWarning
from mgenv_jupyter.base._text import Text
from mgenv_jupyter.catalog import Catalog, Entry, ReadWhen
from mgenv_jupyter.catalog._values import OptionalOf, Size, Switch
from mgenv_jupyter.runtime import EnvSession, ImportWatcher, Status
from mgenv_jupyter.runtime._session import HISTORY_LIMIT

T = Text("probe", "探针")


def entry(name: str, when: ReadWhen, reader: str, **kw) -> Entry:
    kw.setdefault("type", Size())
    return Entry(name=name, framework="probe", category=T, default=None, when=when, readers=(reader,),
                 read_at="probe", description=T, **kw)


@pytest.fixture
def probe_session(probe_module):
    reader = probe_module("mgenv_probe_reader", ["PROBE_SIZE", "PROBE_LATCH"])
    known = Catalog((
        entry("PROBE_SIZE", ReadWhen.IMPORT, reader),
        entry("PROBE_LATCH", ReadWhen.FIRST_USE, reader, first_use=Text("the first probe op", "第一次")),
        entry("PROBE_DEAD", ReadWhen.NOT_READ, reader, replaced_by="PROBE_SIZE", type=Switch()),
        entry("PROBE_DYNAMIC", ReadWhen.EVERY_CALL, reader, type=Switch()),
        entry("probe_option", ReadWhen.OPTION, reader, type=OptionalOf(Switch(on="True", off="False"))),
    ))
    watcher = ImportWatcher([reader])
    watcher.install()
    yield EnvSession(watcher, known=known), reader
    watcher.uninstall()


def test_before_import_the_module_reads_the_normalised_value(probe_session):
    session, reader = probe_session
    report = session.set({"PROBE_SIZE": "5GB"})
    assert report["PROBE_SIZE"].outcome is Status.PENDING_IMPORT
    assert "import mgenv_probe_reader" in report["PROBE_SIZE"].message
    module = importlib.import_module(reader)
    assert module.SEEN["PROBE_SIZE"] == "5368709120"  # bytes, not "5GB" (which a C++ %zu parse reads as 5)
    assert session.state("PROBE_SIZE").status is Status.EFFECTIVE


def test_after_import_setting_warns_with_module_time_value_and_way_out(probe_session):
    session, reader = probe_session
    os.environ["PROBE_SIZE"] = "1024"
    module = importlib.import_module(reader)
    with pytest.warns(AlreadyReadWarning) as caught:
        report = session.set({"PROBE_SIZE": "2048"})
    text = str(caught[0].message)
    assert "PROBE_SIZE" in text and reader in text and "1 KiB" in text and "restart" in text  # a size as 1 KiB
    assert report["PROBE_SIZE"].outcome is Status.ALREADY_READ
    assert os.environ["PROBE_SIZE"] == "2048"  # still set, so child processes inherit it
    assert module.SEEN["PROBE_SIZE"] == "1024"
    assert session.state("PROBE_SIZE").status == Status.ALREADY_READ.value
    with pytest.warns(AlreadyReadWarning):  # every time, not only the first
        session.set({"PROBE_SIZE": "4096"})


def test_status_after_says_what_set_will_record_and_sets_nothing(probe_session):
    """The out-of-memory report asks this before offering a remedy: the same checks and the same decision as set."""
    session, reader = probe_session
    before = dict(os.environ)
    assert session.status_after({"PROBE_SIZE": "5GB", "PROBE_LATCH": "1"}) == {
        "PROBE_SIZE": Status.PENDING_IMPORT, "PROBE_LATCH": Status.PENDING_FIRST_USE}
    importlib.import_module(reader)
    predicted = session.status_after({"PROBE_SIZE": "2GB"})
    assert dict(os.environ) == before and session.history == []  # nothing set, nothing recorded
    with pytest.raises(InvalidValueError, match="PROBE_SIZE"):
        session.status_after({"PROBE_SIZE": "lots"})  # refused as set refuses it
    with pytest.warns(AlreadyReadWarning):
        recorded = session.set({"PROBE_SIZE": "2GB"})["PROBE_SIZE"].outcome
    assert predicted == {"PROBE_SIZE": recorded} and recorded is Status.ALREADY_READ


def test_first_use_variable_may_be_latched_after_import(probe_session):
    session, reader = probe_session
    assert session.set({"PROBE_LATCH": "1"})["PROBE_LATCH"].outcome is Status.PENDING_FIRST_USE
    importlib.import_module(reader)
    with pytest.warns(MayBeLatchedWarning, match="mgenv_probe_reader was imported") as caught:
        change = session.set({"PROBE_LATCH": "2"})["PROBE_LATCH"]
    assert issubclass(caught[0].category, AlreadyReadWarning)  # code that filters AlreadyReadWarning hears it too
    assert change.outcome is Status.MAY_BE_LATCHED
    assert "the first probe op" in change.message


def test_dead_variable_says_no_effect_and_what_to_use(probe_session):
    session, _ = probe_session
    change = session.set({"PROBE_DEAD": "1"})["PROBE_DEAD"]
    assert change.outcome is Status.NO_LONGER_READ and "PROBE_SIZE" in change.message


def test_dynamic_variable_is_effective_now(probe_session):
    session, _ = probe_session
    assert session.set({"PROBE_DYNAMIC": "on"})["PROBE_DYNAMIC"].outcome is Status.EFFECTIVE
    assert os.environ["PROBE_DYNAMIC"] == "1"


def test_options_are_recorded_as_keyword_arguments_not_environment(probe_session):
    session, _ = probe_session
    change = session.set({"probe_option": "true"})["probe_option"]
    assert change.outcome is Status.OPTION
    assert session.npu_run_config_kwargs() == {"probe_option": True}
    assert "probe_option" not in os.environ
    session.unset(["probe_option"])
    assert session.npu_run_config_kwargs() == {}


def test_batch_is_all_or_nothing(probe_session):
    session, _ = probe_session
    before = dict(os.environ)
    with pytest.raises(InvalidValueError) as err:
        session.set([("PROBE_DYNAMIC", "1"), ("PROBE_SIZE", "lots"), ("PLAIN_VAR", "x")])
    assert "PROBE_SIZE" in str(err.value) and "nothing was changed" in str(err.value)
    assert dict(os.environ) == before and session.history == []


def test_near_miss_is_refused_with_a_suggestion_unless_forced(probe_session):
    session, _ = probe_session
    with pytest.raises(InvalidValueError, match="did you mean PROBE_SIZE"):
        session.set({"PROBE_SIZ": "1"})
    assert "PROBE_SIZ" not in os.environ
    session.set({"PROBE_SIZ": "1"}, force=True)
    assert os.environ["PROBE_SIZ"] == "1"


@pytest.mark.parametrize("name", ["", "1ABC", "A-B", "A B", "A=B", "ÄBC", "名字", "A\u00b2", "A\x00"])
def test_a_name_outside_letters_digits_and_underscores_is_refused(probe_session, name):
    """Only [A-Za-z_][A-Za-z0-9_]*: Python identifiers beyond ASCII (ÄBC, 名字) are names no shell can export."""
    session, _ = probe_session
    before = dict(os.environ)
    with pytest.raises(InvalidValueError, match="is not a valid variable name: use letters, digits and underscores"):
        session.set([(name, "1")], force=True)
    assert dict(os.environ) == before and session.history == []


@pytest.mark.parametrize("name", ["_", "_A1", "a", "class", "Z9_"])
def test_every_ascii_identifier_is_a_name(probe_session, name):
    session, _ = probe_session
    session.set([(name, "1")], force=True)
    assert os.environ[name] == "1"


def test_unknown_names_are_plain_strings(probe_session):
    session, _ = probe_session
    change = session.set({"MY_SETTING": " spaced value "})["MY_SETTING"]
    assert change.outcome is Status.EFFECTIVE and os.environ["MY_SETTING"] == " spaced value "


def test_history_records_source_and_observers_are_notified(probe_session):
    session, _ = probe_session
    seen = []
    session.observe(seen.append)
    session.set({"PROBE_DYNAMIC": "1"}, source="widget")
    session.unset(["PROBE_DYNAMIC"], source="magic")
    assert [(c.name, c.source, c.new) for c in session.history] == [
        ("PROBE_DYNAMIC", "widget", "1"), ("PROBE_DYNAMIC", "magic", None)]
    assert len(seen) == 2 and seen[0]["PROBE_DYNAMIC"].new == "1"


def test_a_failing_observer_does_not_undo_the_change(probe_session):
    session, _ = probe_session

    def broken(report):
        raise RuntimeError("observer bug")

    session.observe(broken)
    session.set({"PROBE_DYNAMIC": "1"})
    assert os.environ["PROBE_DYNAMIC"] == "1"


def test_secret_values_are_masked_in_history_and_state(probe_session):
    session, _ = probe_session
    session.set({"MY_API_KEY": "hunter2"})
    assert os.environ["MY_API_KEY"] == "hunter2"
    assert session.history[-1].new == "********"
    assert session.state("MY_API_KEY").value == "********"
    assert "hunter2" not in session.diff().to_string()


def test_diff_lists_changes_since_start_with_source(probe_session):
    session, _ = probe_session
    session.set({"PROBE_DYNAMIC": "1"}, source="file")
    frame = session.diff().set_index("name")
    assert frame.loc["PROBE_DYNAMIC", "now"] == "1" and frame.loc["PROBE_DYNAMIC", "source"] == "file"


def test_modules_imported_before_loading_are_detected_honestly(probe_module):
    reader = probe_module("mgenv_probe_early", ["PROBE_SIZE"])
    importlib.import_module(reader)
    known = Catalog((entry("PROBE_SIZE", ReadWhen.IMPORT, reader),))
    watcher = ImportWatcher([reader])
    watcher.install()
    try:
        session = EnvSession(watcher, known=known)
        with pytest.warns(AlreadyReadWarning, match="imported before mgenv_jupyter was loaded"):
            session.set({"PROBE_SIZE": "1"})
    finally:
        watcher.uninstall()


def test_a_lone_surrogate_leaves_nothing_half_set(probe_session):
    """Found: set({"A": "1", "B": "\\ud800"}) raised UnicodeEncodeError with A=1 left behind and no history."""
    session, _ = probe_session
    seen = []
    session.observe(seen.append)
    with pytest.raises(InvalidValueError, match="B_PART: the value cannot be encoded"):
        session.set({"A_PART": "1", "B_PART": "\ud800"})
    assert "A_PART" not in os.environ and session.history == [] and seen == []


def test_concurrent_batches_record_the_true_old_values_and_notify_in_order(probe_session):
    """Eight threads set the same variable 200 times each: every record's `old` is the previous record's `new`
    (old, write and record happen under one lock), and observers see the changes in the order they took effect."""
    session, _ = probe_session
    seen: list[int] = []
    session.observe(lambda report: seen.extend(change.seq for change in report))

    def worker(number: int) -> None:
        for i in range(200):
            session.set({"RACE_VAR": f"{number}-{i}"})

    threads = [threading.Thread(target=worker, args=(n,)) for n in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    history = session.history
    assert len(history) == 1600
    for previous, change in zip(history, history[1:], strict=False):
        assert change.old == previous.new and change.seq == previous.seq + 1
    assert seen == [change.seq for change in history]
    assert os.environ["RACE_VAR"] == history[-1].new


def test_the_history_is_bounded(probe_session, monkeypatch):
    session, _ = probe_session
    for i in range(HISTORY_LIMIT + 50):
        session.set({"BOUNDED_VAR": str(i)})
    history = session.history
    assert len(history) == HISTORY_LIMIT and history[-1].seq == HISTORY_LIMIT + 50 and history[0].seq == 51
    window, total = session.history_window(before=100, limit=10)
    assert [c.seq for c in window] == list(range(90, 100)) and total == HISTORY_LIMIT + 50


def test_a_secret_by_value_is_masked_everywhere_the_session_shows_it(probe_session):
    session, _ = probe_session
    url = "postgres://app:hunter2@db.internal/app"
    token = "ghp_" + "Z" * 36
    session.set({"DATABASE_URL": url, "GITHUB_PAT": token})
    for name, value in (("DATABASE_URL", url), ("GITHUB_PAT", token)):
        assert os.environ[name] == value
        assert session.state(name).value == "********" and value not in repr(session.state(name))
    text = repr(session.history) + session.diff().to_string() + session.history_frame().to_string()
    assert url not in text and token not in text and "hunter2" not in text
    assert all(change.secret for change in session.history)


@contextlib.contextmanager
def warnings_as_errors() -> Iterator[None]:
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        yield


# ---- first-use latches told apart by the frameworks' probes ---------------------------------------------------------

@pytest.fixture
def torch_imported(monkeypatch):
    """A stand-in torch (torch.cuda.is_initialized, as in torch 2.13) imported before the session's watcher."""
    state = {"cuda": False}
    torch = types.ModuleType("torch")

    def is_initialized() -> bool:
        if state["cuda"] is None:
            raise RuntimeError("cannot tell")
        return bool(state["cuda"])

    torch.cuda = types.SimpleNamespace(is_initialized=is_initialized)  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "torch", torch)
    watcher = ImportWatcher(("torch",))
    watcher.install()
    yield EnvSession(watcher, environ={}), state
    watcher.uninstall()


def test_a_first_use_that_has_not_happened_is_pending_even_after_import(torch_imported):
    session, _ = torch_imported
    with warnings_as_errors():
        change = session.set({"PYTORCH_NO_CUDA_MEMORY_CACHING": "1"})["PYTORCH_NO_CUDA_MEMORY_CACHING"]
    assert change.outcome is Status.PENDING_FIRST_USE and "the first CUDA allocation" in change.message


def test_a_first_use_that_has_happened_is_already_read_and_warns(torch_imported):
    session, state = torch_imported
    state["cuda"] = True
    with pytest.warns(AlreadyReadWarning, match="torch read PYTORCH_NO_CUDA_MEMORY_CACHING at the first CUDA "
                                                "allocation, which has already happened") as caught:
        change = session.set({"PYTORCH_NO_CUDA_MEMORY_CACHING": "1"})["PYTORCH_NO_CUDA_MEMORY_CACHING"]
    assert change.outcome is Status.ALREADY_READ and not issubclass(caught[0].category, MayBeLatchedWarning)
    assert session.state("PYTORCH_NO_CUDA_MEMORY_CACHING").status is Status.ALREADY_READ


def test_a_probe_that_cannot_tell_leaves_may_be_latched(torch_imported):
    session, state = torch_imported
    state["cuda"] = None
    with pytest.warns(MayBeLatchedWarning):
        change = session.set({"PYTORCH_NO_CUDA_MEMORY_CACHING": "1"})["PYTORCH_NO_CUDA_MEMORY_CACHING"]
    assert change.outcome is Status.MAY_BE_LATCHED


def test_a_live_api_that_outlasts_the_latch_is_applied_live(torch_imported, monkeypatch):
    session, state = torch_imported
    state["cuda"] = True
    settings = {"now": ""}
    sys.modules["torch"]._C = types.SimpleNamespace(  # type: ignore[attr-defined]
        _accelerator_setAllocatorSettings=lambda text: settings.update(now=text),
        _accelerator_getAllocatorSettings=lambda: settings["now"])
    with warnings_as_errors():
        change = session.set({"PYTORCH_ALLOC_CONF": "expandable_segments:true"})["PYTORCH_ALLOC_CONF"]
    assert change.outcome is Status.APPLIED_LIVE and settings["now"] == "expandable_segments:True"
    assert change.effective == "expandable_segments:True"


def test_a_value_set_before_the_first_use_is_effective_after_it(torch_imported):
    session, state = torch_imported
    session.set({"PYTORCH_NO_CUDA_MEMORY_CACHING": "1"})
    state["cuda"] = True  # the first use happens, and reads the value set
    now = session.state("PYTORCH_NO_CUDA_MEMORY_CACHING")
    assert now.status is Status.EFFECTIVE and "at the first CUDA allocation with this value" in now.message
