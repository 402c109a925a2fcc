"""One variable as every front end shows it (presentation/_view.py): value, status with its label and reason, editor,
details and whether it applies; printed as %envget prints it, as HTML, and as the sidebar receives it."""

from __future__ import annotations

from mgenv_jupyter.catalog._secrets import MASK
from mgenv_jupyter.presentation._view import present
from mgenv_jupyter.runtime import Status

POOL = "FLAGS_initial_gpu_memory_in_mb"


def test_a_catalog_variable_with_everything_a_user_needs_to_decide(fresh_session):
    fresh_session.set({"MEGENGINE_DTR_EVICTION_THRESHOLD": "5GB"})
    view = present(fresh_session, "MEGENGINE_DTR_EVICTION_THRESHOLD", "en")
    assert (view.value, view.status, view.label) == ("5368709120", Status.PENDING_IMPORT, "takes effect at import")
    assert view.editor is not None and view.editor.kind == "size" and view.applicability.applies
    first, description, default, read, live, *caveats = view.lines()
    assert first == ("MEGENGINE_DTR_EVICTION_THRESHOLD=5 GiB (5368709120): takes effect at import — megengine is "
                     "not imported yet: it reads this when `import megengine` runs")  # a size in the one notation
    assert description.startswith("  Bytes of live tensor memory")
    assert default.startswith("  default: 0 B; allowed: a whole number of bytes")
    assert read.startswith("  read at `import megengine` (source: imperative/src/impl/interpreter/")
    assert live == "  live: megengine.dtr.eviction_threshold = 5368709120"
    assert caveats and all(line.startswith("  caveat: ") for line in caveats)
    assert repr(view) == "\n".join(view.lines())


def test_an_unset_variable_shows_the_live_call_as_an_example_with_the_default(fresh_session):
    view = present(fresh_session, "MGE_DEFAULT_DEVICE", "en")
    lines = view.lines()
    assert lines[0].startswith(f"MGE_DEFAULT_DEVICE=(not set): {view.label} — ")
    assert "  live (example, with the default): megengine.set_default_device('xpux')" in lines


def test_a_variable_that_does_not_apply_says_why(fresh_session):
    view = present(fresh_session, POOL, "en")
    assert not view.applicability.applies
    assert view.lines()[-1].startswith("  does not apply now: only matters under naive_best_fit") and \
        "auto_growth" in view.lines()[-1]
    edited = present(fresh_session, POOL, "en", lookup={"FLAGS_allocator_strategy": "naive_best_fit"}.get)
    assert edited.applicability.applies  # rules follow the values being edited, not only the kernel's


def test_a_variable_outside_the_catalog_is_shown_plainly_and_a_secret_masked(fresh_session):
    fresh_session.set({"MY_API_TOKEN": "hunter2hunter2"})
    view = present(fresh_session, "MY_API_TOKEN", "en")
    assert (view.value, view.status, view.editor, view.details) == (MASK, Status.EFFECTIVE, None, None)
    assert view.lines() == [f"MY_API_TOKEN='{MASK}': effective — set; not a catalog variable"]
    assert "hunter2" not in repr(view) and "hunter2" not in view._repr_html_()


def test_in_chinese(fresh_session):
    fresh_session.set({"FLAGS_allocator_strategy": "naive_best_fit"})
    view = present(fresh_session, "FLAGS_allocator_strategy", "zh")
    assert view.label == "导入时生效"
    assert view.lines()[0].startswith("FLAGS_allocator_strategy='naive_best_fit': 导入时生效 — paddle 尚未导入")
    assert any(line.startswith("  默认值: auto_growth") for line in view.lines())


def test_html_escapes_what_the_user_typed(fresh_session):
    fresh_session.set({"MY_NOTE": "<script>alert(1)</script>"})
    shown = present(fresh_session, "MY_NOTE", "en")._repr_html_()
    assert "<script>" not in shown and "&lt;script&gt;alert(1)&lt;/script&gt;" in shown
    assert shown.startswith("<div class='mgenv-view'><div><code>MY_NOTE=&#x27;&lt;script&gt;")


def test_the_sidebar_gets_the_state_and_not_the_static_facts(fresh_session):
    fresh_session.set({POOL: "4096"})
    state = present(fresh_session, POOL, "en").to_json()
    assert state == {"value": "4096", "status": "pending_import", "message": state["message"],
                     "live": "paddle.set_flags({'FLAGS_initial_gpu_memory_in_mb': 4096})", "live_example": False,
                     "applies": False, "applies_reason": state["applies_reason"]}
    assert "import paddle" in state["message"] and "auto_growth" in state["applies_reason"]
