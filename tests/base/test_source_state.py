"""A memory source's state as a code and its arguments (mgenv_jupyter/base/_source_state.py): what code acts on, as it
crosses the wire and as another process's is taken."""

from __future__ import annotations

from mgenv_jupyter.base._source_state import FOREIGN_PIDS, PROBLEMS, STATE_OK, State, from_wire, problems


def test_a_state_is_its_code_and_its_arguments_as_text():
    state = State("nvml_device_error", device="gpu0", error=KeyError("x"))
    assert (state.code, state.arg("device"), state.arg("error"), state.arg("none")) == (
        "nvml_device_error", "gpu0", "'x'", "")
    assert state == State("nvml_device_error", device="gpu0", error="'x'") and hash(state) == hash(State(
        "nvml_device_error", device="gpu0", error="'x'"))
    assert state.at("gpu1").arguments == {"device": "gpu0", "error": "'x'", "where": "gpu1"}


def test_several_problems_are_one_state_whose_parts_say_what_they_concern():
    foreign = State(FOREIGN_PIDS, pids="4242").at("gpu1")
    both = problems([State("no_gpu"), foreign, State("no_gpu")])
    assert both.code == PROBLEMS and both.parts == (State("no_gpu"), foreign)  # each once
    assert both.has(FOREIGN_PIDS) and both.has(PROBLEMS) and not both.has("lost")
    assert problems([]) == STATE_OK and problems([foreign]) == foreign


def test_a_state_from_another_process_is_taken_only_as_a_short_code_with_text_arguments():
    wire = State(PROBLEMS, [State("nvml_error", error="e").at("gpu0")]).wire()
    assert wire == {"code": PROBLEMS, "args": {}, "parts": [{"code": "nvml_error", "args": {"error": "e",
                                                                                           "where": "gpu0"}}]}
    assert from_wire(wire, str) == State(PROBLEMS, [State("nvml_error", error="e", where="gpu0")])
    for bad in ({"code": "a b"}, {"code": ""}, {"code": "x" * 41}, {"code": 3}, {"code": "ok", "args": {"a": 1}},
                {"code": "ok", "args": []}, {"code": "ok", "parts": [{"code": "ok", "parts": [{"code": "ok"}]}]}):
        assert from_wire(bad, str) is None, bad
