"""Issue 13 on a real Ray cluster of three nodes on this machine: the notebook's settings reach every node's workers
through the session's runtime_env, normalised; verify() says so node by node; every node's simulated GPU streams into
the kernel's history under the node's label; a node whose processes are killed is marked lost while the other two go
on; closing ends the actors."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from mgenv_jupyter.catalog._secrets import MASK

HERE = Path(__file__).resolve().parent
NODES = ["node_a", "node_b", "node_c"]


def test_the_runtime_env_carries_the_notebooks_normalised_values_and_leaves_out_the_rest(scenario: dict[str, Any]):
    env_vars = scenario["runtime_env"]["env_vars"]
    assert env_vars["MEGENGINE_DTR_EVICTION_THRESHOLD"] == "5368709120"  # 5GB, in the bytes MegEngine reads
    assert env_vars["FLAGS_eager_delete_tensor_gb"] == "0"
    assert env_vars["MGENV_HOSTILE"] == scenario["hostile_expected"]
    assert "MY_API_TOKEN" not in env_vars and "MGENV_EXPANDED" not in env_vars and "MGENV_DIGIT" not in env_vars
    assert "tok-123" not in " ".join(scenario["not_carried"]) and "MY_API_TOKEN" in scenario["not_carried"][0]
    assert scenario["ray_format_valid"]


def test_verify_shows_every_node_got_the_normalised_bytes_at_worker_start(scenario: dict[str, Any]):
    assert sorted(scenario["nodes"]) == NODES
    rows = {(row["node"], row["name"]): row for row in scenario["verify"]}
    assert {node for node, _ in rows} == set(NODES) and scenario["verify_ok"], scenario["verify"]
    for node in NODES:
        row = rows[(node, "MEGENGINE_DTR_EVICTION_THRESHOLD")]
        assert row["seen"] == "5368709120" and row["matches"] and row["arrived"] == "at worker start"
        assert rows[(node, "FLAGS_eager_delete_tensor_gb")]["seen"] == "0"


def test_verify_compares_a_secret_by_a_keyed_hmac_that_differs_per_call(scenario: dict[str, Any]):
    checked = scenario["secret_verify"]
    assert checked["right_ok"] and not checked["wrong_ok"]
    for rows, matches in ((checked["right"], True), (checked["wrong"], False)):
        assert sorted(row["node"] for row in rows) == NODES
        assert all(row["matches"] is matches and row["seen"] == row["expected"] == MASK for row in rows), rows
    raw = scenario["secret_raw"]
    assert "tok-123" not in raw["text"] and raw["plain_sha256"] not in raw["text"]
    first, second = raw["digests"]
    assert len(first) == len(second) == 64 and first != second  # same secret, same node, a new key each call


def test_a_task_on_each_node_reads_the_values_back_exactly_and_nothing_ran(scenario: dict[str, Any]):
    for node in NODES:
        answer = scenario["read_back"][node]
        assert answer["on_its_node"]  # the task ran where its custom resource is
        values = answer["values"]
        assert values["MEGENGINE_DTR_EVICTION_THRESHOLD"] == "5368709120"
        assert values["MGENV_HOSTILE"] == scenario["hostile_expected"] and not answer["canary"]
        assert values["MY_API_TOKEN"] is None and values["MGENV_EXPANDED"] is None and values["MGENV_DIGIT"] is None


def test_the_kernels_history_holds_series_from_all_three_nodes_each_with_its_own_preset(scenario: dict[str, Any]):
    assert scenario["streaming_after"] is not None, scenario["states_before"]
    assert scenario["states_before"] == {"node_a": "ok", "node_b": "ok", "node_c": "nvml (simulated): per-process "
                                         "memory unavailable (the driver does not report it, as under Windows WDDM)"}
    assert scenario["simulations"] == {"node_a": "a100-40gb", "node_b": "2xv100", "node_c": "no-process-memory"}
    series = set(scenario["series"])
    assert {"node_a gpu0 (simulated) process", "node_b gpu0 (simulated) process", "node_b gpu1 (simulated) process",
            "node_c gpu0 (simulated) used"} <= series
    assert "node_c gpu0 (simulated) process" not in series  # that preset's driver reports no per-process memory
    # The chart groups the lines by node: each series on the wire names the node it was read on.
    nodes = scenario["series_nodes"]
    assert nodes == {key: key.split(" ")[0] if key.startswith("node_") else None for key in nodes}
    assert {key for key in series if key.startswith("node_")} <= set(nodes)


def test_a_killed_node_is_marked_lost_while_the_others_keep_streaming(scenario: dict[str, Any]):
    assert scenario["killed"] == "raylet"
    assert scenario["lost_after"] is not None and scenario["lost_after"] < 30
    states = scenario["states_after"]
    assert states["node_c"].startswith("lost: ") and states["node_a"] == states["node_b"] == "ok"
    assert scenario["wire_states_after"]["node_c"].startswith("lost: ")  # what the chart's legend shows per node
    assert set(scenario["wire_states_after"]) == {"node_a", "node_b", "node_c"}
    before, after = scenario["batches"]["before"], scenario["batches"]["after"]
    assert after["node_a"] >= before["node_a"] + 15 and after["node_b"] >= before["node_b"] + 15  # 10 Hz, 2 s on
    assert after["node_c"] <= before["node_c"] + 15
    rows = scenario["rows_with_values_after_loss"]
    assert rows["node_a"] >= 15 and rows["node_b"] >= 15 and rows["node_c"] <= 15


def test_closing_the_chart_ends_the_actors_and_takes_the_nodes_out_of_the_sampler(scenario: dict[str, Any]):
    # The live nodes' actors were listed by name before; the chart's close ended the watch, and them within seconds.
    assert [name.split("/")[1] for name in scenario["named_before_close"]] == ["node_a", "node_b"]
    assert scenario["closed_with_chart"]
    assert scenario["named_gone_after"] is not None and scenario["named_gone_after"] < 10
    assert scenario["actors_gone"] is not None
    states = scenario["states_after_close"]
    assert states["node_a"] == states["node_b"] == "ended" and states["node_c"].startswith("lost: ")
    assert not any(name.endswith("(remote)") for name in scenario["sources_after_close"])


def test_a_drivers_actors_end_when_it_exits_or_is_killed(scenario: dict[str, Any], local_cluster):
    """The kernel stops: cleanly (the interpreter exits with the watch open) or killed (SIGKILL, no clean-up at all).
    Ray ends the actors of a non-detached watch either way, since their owner is gone."""
    import os
    import signal

    import psutil

    drivers = {mode: local_cluster.spawn(HERE / "watch_driver.py", mode) for mode in ("exit", "hold")}
    seen = {mode: local_cluster.result_of(*driver) for mode, driver in drivers.items()}
    # While the drivers run, their actors are alive and listed. The "exit" driver waits for our word before it exits:
    # it used to exit as soon as it had written its answer, and Ray ended its actors (as it should) within a second
    # or two, while this test still waited for the "hold" driver's answer: on a loaded machine their pids were gone
    # by the check below (a fresh clone's ./dev test failed so once).
    for answer in seen.values():
        assert len(answer["names"]) == 2 and set(answer["names"]) <= set(answer["live"])
        assert all(psutil.pid_exists(pid) for pid in answer["pids"])
    Path(str(drivers["exit"][1]) + ".go").touch()
    os.kill(seen["hold"]["driver"], signal.SIGKILL)
    ended = time.monotonic()
    assert drivers["exit"][0].wait(60) == 0 and drivers["hold"][0].wait(60) == -signal.SIGKILL
    pids = [pid for answer in seen.values() for pid in answer["pids"]]
    while any(_running(pid) for pid in pids) and time.monotonic() - ended < 30:
        time.sleep(0.1)
    assert not [pid for pid in pids if _running(pid)]
    processes_gone = time.monotonic() - ended
    names = [name for answer in seen.values() for name in answer["names"]]
    checked = local_cluster.run(HERE / "watch_driver.py", "check", *names, str(local_cluster.temp / "check.json"))
    assert checked["left"] == [] and checked["gone_after"] is not None
    print(f"driver exit/SIGKILL: actor processes gone {processes_gone:.1f} s after the SIGKILL, and no named actor "
          f"left when a new driver looked")


def test_a_node_that_joins_after_watch_started_is_watched_too(scenario: dict[str, Any], local_cluster):
    process, first = local_cluster.spawn(HERE / "watch_driver.py", "join")
    before = local_cluster.result_of(process, first)
    assert "node_d" not in before["labels"]
    local_cluster.add("node_d")  # a fourth `ray start`, after the watch began
    after = local_cluster.result_of(process, first.with_suffix(".joined"), timeout=240)
    assert process.wait(60) == 0
    assert after["streaming_after"] is not None and after["labels"] == sorted([*before["labels"], "node_d"])
    print(f"node_d streaming {after['streaming_after']:.1f} s after the watch began: {after['states']['node_d']!r}")
    assert not after["states"]["node_d"].startswith(("lost", "starting")) and after["series"]
    node_d = [name for name in after["names"] if name.split("/")[1] == "node_d"]
    assert len(node_d) == 1 and node_d[0] in after["live"]
    assert after["left"] == [] and after["gone_after"] is not None  # closing ends the joined node's actor as well


def _running(pid: int) -> bool:
    import psutil

    try:
        return psutil.Process(pid).status() != psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return False


def test_the_tier_stays_short(scenario: dict[str, Any], local_cluster):
    started = sum(local_cluster.start_seconds.values())
    print(f"cluster start {started:.1f} s, scenario {scenario['scenario_seconds']:.1f} s, "
          f"verify {scenario['verify_seconds']:.2f} s, streaming after {scenario['streaming_after']:.1f} s, "
          f"lost after {scenario['lost_after']:.1f} s")
    assert started + scenario["scenario_seconds"] < 180
