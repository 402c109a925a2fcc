"""The simulated GPU's scenario format (memory/simulated/_scenario.py): every field checked for its JSON type and its
range, a bad scenario refused with a short message naming the field, scenario files read only when they are small
regular JSON files, and any JSON value at all either a valid scenario or a clean refusal (hypothesis)."""

from __future__ import annotations

import copy
import json
import os
import re
import time
from typing import Any

import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st
from said import said

from mgenv_jupyter.base._errors import InvalidValueError
from mgenv_jupyter.memory._nvml_source import NvmlSource
from mgenv_jupyter.memory._sources import UnavailableSource, default_sources
from mgenv_jupyter.memory.simulated import _scenario as scenario_format
from mgenv_jupyter.memory.simulated import _simulation as simulation
from mgenv_jupyter.memory.simulated._scenario import PRESETS, KernelUse, Scenario

GiB = 1024**3


@pytest.mark.parametrize(("data", "words"), [
    ({"devices": [{"total": "lots"}]}, "devices[0].total must be a size from 1 to 1 PiB: bytes, or text such as "
                                       "\"512MB\" or \"40GB\", not 'lots'"),
    ({"devices": [{"pid_namespace": "host"}]}, "devices[0].pid_namespace must be 'same' or 'foreign', not 'host'"),
    ({"errors": [{"at": 1, "error": "COFFEE"}]}, "unknown NVML error 'COFFEE'"),
    ({"step_seconds": 0}, "step_seconds must be a number of seconds from 0.001 to 1e+09, not 0"),
    # wrong JSON types
    ([{"devices": []}], "a scenario must be a JSON object, not a list"),
    ({"devices": "A100"}, "devices must be a list of at most 64 objects, not 'A100'"),
    ({"devices": [3]}, "devices[0] must be a JSON object, not 3"),
    ({"devices": [{"workers": {"at": 0, "bytes": 1}}]}, "devices[0].workers must be a list"),
    ({"devices": [{"kernel": ["1GB"]}]}, "devices[0].kernel must be an object with start, step, max, wave, or a size"),
    ({"devices": [{"kernel": {"start": {"GB": 1}}}]}, "devices[0].kernel.start must be a size"),
    ({"devices": [{"mig": "false"}]}, "devices[0].mig must be true or false, not 'false'"),
    ({"library": 0}, "library must be true or false, not 0"),
    ({"name": ["x"]}, "name must be a non-empty string"),
    ({"devices": [{"name": "GPU\n"}]}, "devices[0].name must be a non-empty string of at most 95 bytes of printable"),
    ({"errors": [{"at": 1, "error": 7}]}, "errors[0].error must be an NVML error name"),
    ({"devices": [{"totl": "40GB"}]}, "devices[0] has an unknown field 'totl': allowed are name, total"),
    ({"devices": [{"other_processes": [{"pid": "1", "bytes": 1}]}]}, "other_processes[0].pid must be a whole number"),
    ({"devices": [{"other_processes": [{"pid": 1}]}]}, "other_processes[0].bytes is missing: give a size"),
    # absurd numbers
    ({"devices": [{"total": 1e308}]}, "devices[0].total must be a size from 1 to 1 PiB"),
    ({"devices": [{"total": "16385TB"}]}, "devices[0].total must be a size from 1 to 1 PiB"),
    ({"devices": [{"total": "9" * 400}]}, "devices[0].total must be a size from 1 to 1 PiB"),
    ({"devices": [{"total": float("nan")}]}, "devices[0].total must be a size from 1 to 1 PiB"),
    ({"devices": [{"total": float("inf")}]}, "devices[0].total must be a size from 1 to 1 PiB"),
    ({"devices": [{"others": -1}]}, "devices[0].others must be a size from 0 to 1 PiB"),
    ({"devices": [{"total": 0}]}, "devices[0].total must be a size from 1 to 1 PiB"),
    ({"step_seconds": 1e-300}, "step_seconds must be a number of seconds from 0.001"),
    ({"step_seconds": float("inf")}, "step_seconds must be a number of seconds from 0.001"),
    ({"period": -1}, "period must be a number of seconds from 0 to 1e+09, not -1"),
    ({"period": 1e300}, "period must be a number of seconds from 0 to 1e+09, not 1e+300"),
    ({"period": 10**400}, "period must be a number of seconds from 0 to 1e+09, not a number"),
    ({"devices": [{"total": 10**400}]}, "devices[0].total must be a size from 1 to 1 PiB"),
    ({"devices": [{"workers": [{"at": 0, "bytes": 1, "count": 10**400}]}]}, "count must be a whole number"),
    ({"errors": [{"at": float("nan")}]}, "errors[0].at must be a number of seconds from 0 to 1e+09, not nan"),
    ({"errors": [{"at": 1, "for": 0}]}, "errors[0].for must be a number of seconds above 0"),
    ({"errors": [{"at": 1, "for": float("-inf")}]}, "errors[0].for must be a number of seconds above 0"),
    ({"errors": [{}]}, "errors[0].at is missing"),
    ({"devices": [{}] * 65}, "devices has 65 items; at most 64 are allowed"),
    ({"errors": [{"at": 1}] * 65}, "errors has 65 items; at most 64 are allowed"),
    ({"devices": [{"other_processes": [{"pid": 1, "bytes": 1}] * 1025}]}, "has 1,025 items; at most 1024"),
    ({"devices": [{"other_processes": [{"pid": 2**32, "bytes": 1}]}]}, "pid must be a whole number from 1 to"),
    # worker processes are real: bounded per group and in all
    ({"devices": [{"workers": [{"at": 0, "bytes": 1, "count": 10**9}]}]}, "count must be a whole number from 0 to 16"),
    ({"devices": [{"workers": [{"at": 0, "bytes": 1, "count": -1}]}]}, "count must be a whole number from 0 to 16"),
    ({"devices": [{"workers": [{"at": 0, "bytes": 1, "count": 9}]}, {"workers": [{"at": 0, "bytes": 1, "count": 8}]}]},
     "the workers' counts add up to 17; at most 16 worker processes in all"),
])
def test_bad_scenarios_say_what_is_wrong(data, words):
    with pytest.raises(InvalidValueError) as caught:
        Scenario.from_json(data)
    assert words in str(caught.value) and len(str(caught.value)) < 200


def test_a_valid_scenario_at_the_bounds_is_accepted():
    scenario = Scenario.from_json({
        "step_seconds": scenario_format.MIN_STEP_SECONDS, "period": scenario_format.MAX_SECONDS,
        "devices": [{"total": scenario_format.MAX_BYTES, "kernel": scenario_format.MAX_BYTES,
                     "workers": [{"at": 0, "bytes": 0, "count": 0}]}] * scenario_format.MAX_DEVICES,
        "errors": [{"at": 0, "for": scenario_format.MAX_SECONDS}] * scenario_format.MAX_ERROR_WINDOWS,
    })
    assert len(scenario.devices) == 64 and scenario.devices[0].total == 1024**5


def test_kernel_use_without_a_max_stays_within_nvml_fields():
    kernel = KernelUse(start=0, step=scenario_format.MAX_BYTES)
    assert kernel.at(1e9, scenario_format.MIN_STEP_SECONDS) <= scenario_format.MAX_BYTES


def test_unknown_preset_names_the_presets():
    with pytest.raises(InvalidValueError, match="training"):
        Scenario.load("a100-80gbx")


# ---- scenario files: bounded, and refused cleanly --------------------------------------------------------------------

def refused_through_the_environment(monkeypatch, spec: str) -> str:
    """The state `default_sources()` shows for `MGENV_SIMULATE_GPU=spec`; it must come at once and raise nothing."""
    monkeypatch.setenv(simulation.ENV, spec)
    started = time.monotonic()
    sources = default_sources()
    try:
        assert time.monotonic() - started < 2
        [broken] = [s for s in sources if isinstance(s, UnavailableSource)]
        assert said(broken.state).startswith("simulated GPU not started: ") and len(said(broken.state)) < 250
        return said(broken.state)
    finally:
        for source in sources:
            source.close()


def test_scenario_files_that_are_not_small_regular_json_files_are_refused(monkeypatch, tmp_path):
    os.mkfifo(tmp_path / "pipe")
    assert "a pipe or a device" in refused_through_the_environment(monkeypatch, str(tmp_path / "pipe"))
    assert "a pipe or a device" in refused_through_the_environment(monkeypatch, "/dev/zero")
    assert "a directory" in refused_through_the_environment(monkeypatch, str(tmp_path))
    big = tmp_path / "big.json"
    big.write_text('{"name": "' + "x" * (2 * 1024 * 1024) + '"}')
    assert "larger than 1 MiB" in refused_through_the_environment(monkeypatch, str(big))
    deep = tmp_path / "deep.json"
    deep.write_text("[" * 200_000 + "]" * 200_000)
    assert "nested too deeply" in refused_through_the_environment(monkeypatch, str(deep))
    broken = tmp_path / "broken.json"
    broken.write_text('{"devices": [')
    assert "is not JSON" in refused_through_the_environment(monkeypatch, str(broken))
    digits = tmp_path / "digits.json"
    digits.write_text('{"period": ' + "9" * 5000 + "}")
    assert "is not JSON" in refused_through_the_environment(monkeypatch, str(digits))
    nan = tmp_path / "nan.json"
    nan.write_text('{"step_seconds": NaN}')
    assert "step_seconds must be a number of seconds" in refused_through_the_environment(monkeypatch, str(nan))


# ---- fuzzing: any JSON value is a valid scenario or a clean refusal ------------------------------------------------

FIELD_NAMES = ["name", "library", "driver", "step_seconds", "period", "devices", "errors", "total", "others",
               "reserved", "mig", "process_memory", "pid_namespace", "kernel", "workers", "other_processes", "start",
               "step", "max", "wave", "at", "bytes", "count", "pid", "for", "error"]


leaves = st.one_of(
    st.none(), st.booleans(), st.integers(), st.integers(-(2**70), 2**70),
    st.floats(allow_nan=True, allow_infinity=True),
    st.sampled_from([1e308, -0.0, 1e-300, 2**64, 10**30, 10**400, -(10**400), 0.0005, 17, 16, 64, 65, 1024, 2**32]),
    st.text(max_size=12),
    st.sampled_from(["40GB", "512MB", "1.5 gb", "1025TB", "same", "foreign", "UNKNOWN", "GPU_IS_LOST", "9" * 400,
                     "-1GB", "1e308", "NaN", "", "GPU\x00", "\ud800"]),
)


json_values = st.recursive(
    leaves,
    lambda children: st.one_of(st.lists(children, max_size=4),
                               st.dictionaries(st.one_of(st.sampled_from(FIELD_NAMES), st.text(max_size=6)), children,
                                               max_size=4)),
    max_leaves=24,
)


def paths(value: Any, prefix: tuple = ()) -> list[tuple]:
    """Every place in a JSON value, as the keys and indices that lead there."""
    found = [prefix]
    if isinstance(value, dict):
        for key, item in value.items():
            found.extend(paths(item, (*prefix, key)))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            found.extend(paths(item, (*prefix, index)))
    return found


@st.composite
def mutated_scenarios(draw: st.DrawFn) -> Any:
    """A valid scenario (a preset or the documented file format) with a few places replaced, removed or added."""
    base = copy.deepcopy(draw(st.sampled_from([*PRESETS.values(), DOC_SCENARIO])))
    for _ in range(draw(st.integers(1, 3))):
        where = draw(st.sampled_from(paths(base)))
        if not where:
            base = draw(json_values)
            continue
        parent = base
        for step in where[:-1]:
            parent = parent[step]
        action = draw(st.sampled_from(["replace", "remove", "add"]))
        if action == "remove":
            del parent[where[-1]]
        elif action == "add" and isinstance(parent, dict):
            parent[draw(st.sampled_from(FIELD_NAMES))] = draw(json_values)
        else:
            parent[where[-1]] = draw(json_values)
    return base


DOC_SCENARIO = {
    "name": "my-run", "library": True, "driver": True, "step_seconds": 1.0, "period": 90,
    "devices": [{"name": "NVIDIA A100-SXM4-40GB", "total": "40GB", "others": "1GB", "reserved": "512MB", "mig": False,
                 "process_memory": True, "pid_namespace": "same",
                 "kernel": {"start": "1.5GB", "step": "256MB", "max": "24GB", "wave": "1GB"},
                 "workers": [{"at": 3, "bytes": "300MB", "count": 2}],
                 "other_processes": [{"pid": 1, "bytes": "5GB"}]}],
    "errors": [{"at": 20, "for": 3, "error": "UNKNOWN"}],
}


scenarios = st.one_of(json_values, mutated_scenarios())


FUZZ = settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])


def parsed(data: Any) -> Scenario | InvalidValueError:
    """`Scenario.from_json(data)`: a scenario within every bound, or InvalidValueError with a short message."""
    try:
        scenario = Scenario.from_json(data)
    except InvalidValueError as exc:
        assert len(str(exc)) < 250, str(exc)
        return exc
    assert sum(w.count for d in scenario.devices for w in d.workers) <= scenario_format.MAX_WORKERS
    assert len(scenario.devices) <= scenario_format.MAX_DEVICES
    for device in scenario.devices:
        sizes = [device.total, device.others, device.reserved, *(b for _, b in device.other_processes)]
        if device.kernel is not None:
            sizes += [device.kernel.start, device.kernel.step, device.kernel.wave, device.kernel.max or 0]
        assert all(0 <= size <= scenario_format.MAX_BYTES for size in sizes)
    assert scenario_format.MIN_STEP_SECONDS <= scenario.step_seconds <= scenario_format.MAX_SECONDS
    return scenario


@FUZZ
@given(data=scenarios)
def test_any_json_value_is_a_valid_scenario_or_a_clean_refusal(data):
    event("valid" if isinstance(parsed(data), Scenario) else "refused")


@FUZZ
@given(data=scenarios)
def test_any_scenario_file_gives_a_simulation_or_the_not_started_state(data, tmp_path):
    outcome = parsed(data)
    if isinstance(outcome, Scenario) and any(w.count for d in outcome.devices for w in d.workers):
        return  # workers are real processes: the fuzzer never starts them
    path = tmp_path / "fuzzed.json"
    path.write_text(json.dumps(data))
    os.environ[simulation.ENV] = str(path)
    sources = default_sources()
    try:
        broken = [said(s.state) for s in sources if isinstance(s, UnavailableSource)]
        if isinstance(outcome, InvalidValueError):
            assert broken == [f"simulated GPU not started: {outcome}".replace("'custom'", repr(path.stem))]
        else:
            assert broken == []
            nvml = next(s for s in sources if isinstance(s, NvmlSource))
            nvml.sample()
            words = said(nvml.state)
            assert not re.match(r"NVML error: \w+: ", words), words  # a Python exception, not an NVML one
    finally:
        for source in sources:
            source.close()
        simulation.stop_environment()
        del os.environ[simulation.ENV]


def test_notebooks_give_each_named_notebooks_kernel_its_share():
    scenario = Scenario.from_json({"devices": [{"notebooks": {"big.ipynb": "20GB", "sub/a.ipynb": 1024}}]})
    assert scenario.devices[0].notebooks == (("big.ipynb", 20 * 1024**3), ("sub/a.ipynb", 1024))


@pytest.mark.parametrize("notebooks, words", [
    (["big.ipynb"], "devices[0].notebooks must be an object of at most 1024 notebook paths, each to a size"),
    ({"": "1GB"}, "devices[0].notebooks has a key that is not a notebook path"),
    ({"a\nb.ipynb": "1GB"}, "devices[0].notebooks has a key that is not a notebook path"),
    ({"a.ipynb": "lots"}, "devices[0].notebooks['a.ipynb'] must be a size"),
    ({f"{i}.ipynb": 1 for i in range(1025)}, "has 1,025 notebooks; at most 1024 are allowed"),
])
def test_bad_notebooks_are_refused_naming_the_field(notebooks, words):
    with pytest.raises(InvalidValueError) as refused:
        Scenario.from_json({"devices": [{"notebooks": notebooks}]})
    assert words in str(refused.value)
