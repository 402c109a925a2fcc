"""CuPy's adapter (runtime/frameworks/_cupy.py): its out-of-memory error, the REAL one captured on an H100
(tests/data/cuda_facts_h100.json: class, MRO and message verbatim), raised here through a stand-in class built from the
captured MRO, as tests/oom/test_recognise.py does for the frameworks' GPU errors."""

from __future__ import annotations

import builtins
import json
from pathlib import Path

from mgenv_jupyter.oom._recognise import recognise

FACTS = json.loads((Path(__file__).parents[2] / "data" / "cuda_facts_h100.json").read_text())
GiB = 1024**3


def captured(case: str) -> BaseException:
    """The captured error, raised through a class named as the captured one on its builtin base (a stand-in)."""
    data = FACTS["cases"][case]
    module, _, name = data["type"].rpartition(".")
    base = next(getattr(builtins, entry.split(".", 1)[1]) for entry in data["mro"][1:] if entry.startswith("builtins."))
    return type(name, (base,), {"__module__": module})(data["message"])


def test_cupy_gpu_oom_captured_on_an_h100_is_cupy_not_a_plain_memory_error():
    event = recognise(captured("cupy: one allocation larger than the GPU"))
    assert event is not None
    assert (event.framework, event.device, event.requested) == ("cupy", "gpu", 1024 * GiB)


def test_a_cupy_error_of_another_wording_is_still_cupy_on_the_gpu():
    error = captured("cupy: one allocation larger than the GPU")
    event = recognise(type(error)("a future CuPy's other words"))
    assert event is not None and (event.framework, event.device, event.requested) == ("cupy", "gpu", None)


def test_cupy_gives_back_the_free_blocks_of_both_its_pools():
    """CuPy is not installed here: a stand-in module, labelled, records the calls its adapter makes."""
    from mgenv_jupyter.runtime.frameworks._cupy import release_cache

    freed: list[str] = []

    class Pool:
        def __init__(self, name: str) -> None:
            self.name = name

        def free_all_blocks(self) -> None:
            freed.append(self.name)

    stand_in = type("cupy", (), {"get_default_memory_pool": staticmethod(lambda: Pool("device")),
                                 "get_default_pinned_memory_pool": staticmethod(lambda: Pool("pinned"))})
    calls = release_cache(stand_in, lambda: [])
    assert [(call.what, call.gpu) for call in calls] == [
        ("cupy.get_default_memory_pool().free_all_blocks()", True),
        ("cupy.get_default_pinned_memory_pool().free_all_blocks()", False)]  # pinned: page-locked host memory
    for call in calls:
        call.action()
    assert freed == ["device", "pinned"]
