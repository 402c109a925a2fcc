"""The last verify() result kept for the sidebar (its wire form: tests/presentation/test_wire.py)."""

from __future__ import annotations

import pytest

from mgenv_jupyter.catalog._secrets import MASK
from mgenv_jupyter.cluster import _last_verify as last_verify
from mgenv_jupyter.cluster._seen import AFTER_START, AT_START, MISSING, Seen
from mgenv_jupyter.cluster._verify_report import ClusterReport

DTR = "MEGENGINE_DTR_EVICTION_THRESHOLD"
FLAG = "FLAGS_fraction_of_gpu_memory_to_use"
KEY = "WANDB_API_KEY"
TOKEN = "sk-proj-abcdefghijklmnopqrstuvwx"  # shaped like a credential, under an innocent name


def report() -> ClusterReport:
    return ClusterReport([], [
        Seen("node_a", DTR, "5368709120", "5368709120", True, AT_START),
        Seen("node_a", KEY, MASK, MASK, True, AT_START),
        Seen("node_b", DTR, "5368709120", "5", False, AFTER_START, ("megengine",)),
        Seen("node_b", FLAG, "0.5", None, False, MISSING),
        Seen("node_b", KEY, MASK, MASK, False, AT_START),
        Seen("node_b", "MGENV_NOTE", TOKEN, TOKEN, True, AT_START),
        Seen("node_b", "MGENV_LONG", "x" * 2000, "x" * 2000, True, AT_START),
    ], {"node_c": "ActorDiedError: the actor died unexpectedly before finishing this task"})


@pytest.fixture(autouse=True)
def no_last_result():
    last_verify.forget()
    yield
    last_verify.forget()


def test_the_last_result_is_kept_and_handed_to_every_observer_until_it_unsubscribes():
    assert last_verify.last() is None
    got: list[tuple[ClusterReport, float]] = []

    def broken(result: ClusterReport, made: float) -> None:
        raise RuntimeError("a sidebar whose comm broke")

    last_verify.observe(broken)  # must not keep the result from the others
    def keep(result: ClusterReport, made: float) -> None:
        got.append((result, made))

    last_verify.observe(keep)
    first = report()
    last_verify.remember(first)
    stored = last_verify.last()
    assert stored is not None and stored[0] is first and got == [stored]
    last_verify.unobserve(broken)
    last_verify.unobserve(keep)
    last_verify.remember(ClusterReport([], []))
    assert len(got) == 1 and last_verify.last()[0].seen == []
